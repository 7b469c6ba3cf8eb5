#include "checker/stuck.hpp"

#include <algorithm>

namespace kmc::checker {

namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFF;

// Per state, the subjects some path from it can change (or all of them,
// where a path reaches a state the search never expanded). Within a strongly
// connected component every state reaches every other, so the set is the
// component's: the changes of its edges, and the sets of the components its
// edges lead to. Tarjan's algorithm finishes a component only after every
// component it reaches, so one forward pass gives every set, for all
// subjects at once, with no reverse graph (which would cost 4 bytes an edge).
std::vector<std::uint64_t> movable(const ExploredGraph& g) {
  const std::size_t n = g.should_move.size();
  std::vector<std::uint32_t> index(n, kNone), low(n, 0), stack;
  std::vector<std::uint64_t> mask(n, 0);  // a state's own edges, then its component's set
  std::vector<char> on_stack(n, 0);
  struct Frame {
    std::uint32_t v, e;
  };
  std::vector<Frame> call;
  std::uint32_t next = 0;
  for (std::uint32_t root = 0; root < n; ++root) {
    if (index[root] != kNone) continue;
    auto enter = [&](std::uint32_t v) {
      index[v] = low[v] = next++;
      stack.push_back(v), on_stack[v] = 1;
      if (!g.expanded[v]) mask[v] = ~std::uint64_t{0};  // its future is unknown
      call.push_back({v, g.edges_begin(v)});
    };
    enter(root);
    while (!call.empty()) {
      Frame& f = call.back();
      if (f.e < g.edges_end(f.v)) {
        const std::uint32_t e = f.e++, w = g.to[e];
        mask[f.v] |= g.changes[e];
        if (index[w] == kNone) {
          enter(w);
        } else if (on_stack[w]) {
          low[f.v] = std::min(low[f.v], index[w]);
        } else {
          mask[f.v] |= mask[w];  // a finished component: its set is final
        }
        continue;
      }
      const std::uint32_t v = f.v;
      call.pop_back();
      if (!call.empty()) {
        const std::uint32_t u = call.back().v;
        low[u] = std::min(low[u], low[v]);
        if (low[v] != index[v]) continue;
      } else if (low[v] != index[v]) {
        continue;
      }
      // v roots a component: its set is the union over its states, given to each.
      std::uint64_t set = 0;
      auto it = stack.end();
      do set |= mask[*--it];
      while (*it != v);
      for (auto k = it; k != stack.end(); ++k) mask[*k] = set, on_stack[*k] = 0;
      stack.erase(it, stack.end());
      if (!call.empty()) mask[call.back().v] |= set;  // the edge into v's component
    }
  }
  return mask;
}

}  // namespace

std::optional<StuckFinding> find_stuck(const ExploredGraph& g, int subjects) {
  const std::size_t n = g.should_move.size();
  if (n == 0 || subjects == 0) return std::nullopt;
  const auto can_move = movable(g);
  const std::uint64_t all = subjects >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << subjects) - 1;
  for (std::uint32_t s = 0; s < n; ++s)
    if (const std::uint64_t frozen = g.should_move[s] & ~can_move[s] & all)
      return StuckFinding{s, std::countr_zero(frozen)};
  return std::nullopt;
}

}  // namespace kmc::checker
