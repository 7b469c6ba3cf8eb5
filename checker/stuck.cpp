#include "checker/stuck.hpp"

#include <algorithm>

namespace kmc::checker {

namespace {

// CSR of the reverse graph, built once for all subjects.
struct Reverse {
  std::vector<std::uint32_t> start, from;
};

Reverse reverse_of(const ExploredGraph& g) {
  const std::size_t n = g.should_move.size();
  Reverse r;
  r.start.assign(n + 1, 0);
  for (auto v : g.to) ++r.start[v + 1];
  for (std::size_t i = 0; i < n; ++i) r.start[i + 1] += r.start[i];
  r.from.resize(g.to.size());
  std::vector<std::uint32_t> fill(r.start.begin(), r.start.end() - 1);
  for (std::uint32_t s = 0; s < n; ++s)
    for (auto e = g.edges_begin(s); e < g.edges_end(s); ++e) r.from[fill[g.to[e]]++] = s;
  return r;
}

}  // namespace

std::optional<StuckFinding> find_stuck(const ExploredGraph& g, int subjects) {
  const std::size_t n = g.should_move.size();
  if (n == 0 || subjects == 0) return std::nullopt;
  const Reverse rev = reverse_of(g);
  std::optional<StuckFinding> best;
  std::vector<char> can_move(n);
  std::vector<std::uint32_t> work;
  for (int i = 0; i < subjects; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    std::fill(can_move.begin(), can_move.end(), 0);
    work.clear();
    auto mark = [&](std::uint32_t s) {
      if (!can_move[s]) can_move[s] = 1, work.push_back(s);
    };
    for (std::size_t s = 0; s < n; ++s)
      if (!g.expanded[s]) mark(static_cast<std::uint32_t>(s));
    for (std::uint32_t s = 0; s < n; ++s)
      for (auto e = g.edges_begin(s); e < g.edges_end(s); ++e)
        if (g.changes[e] & bit) {
          mark(s);
          break;
        }
    while (!work.empty()) {
      const std::uint32_t v = work.back();
      work.pop_back();
      for (auto k = rev.start[v]; k < rev.start[v + 1]; ++k) mark(rev.from[k]);
    }
    for (std::size_t s = 0; s < n; ++s) {
      if (best && s >= best->state) break;
      if ((g.should_move[s] & bit) && !can_move[s]) {
        best = StuckFinding{static_cast<std::uint32_t>(s), i};
        break;
      }
    }
  }
  return best;
}

}  // namespace kmc::checker
