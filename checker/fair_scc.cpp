#include "checker/fair_scc.hpp"

#include <algorithm>
#include <deque>

namespace kmc::checker::scc {

Adjacency out_edges(const ExploredGraph& g, const std::vector<char>& in) {
  const std::size_t n = g.enabled.size();
  Adjacency a;
  a.start.assign(n + 1, 0);
  for (std::uint32_t s = 0; s < n; ++s) {
    a.start[s + 1] = a.start[s];
    if (!in[s]) continue;
    for (auto e = g.edges_begin(s); e < g.edges_end(s); ++e)
      if (in[g.to[e]]) a.edges.push_back(e), ++a.start[s + 1];
  }
  return a;
}

namespace {

// Iterative Tarjan over the states marked `in`; returns a component id per state (kNone outside).
std::vector<std::uint32_t> components(const ExploredGraph& g, const Adjacency& adj,
                                      const std::vector<char>& in) {
  const std::size_t n = in.size();
  std::vector<std::uint32_t> comp(n, kNone), index(n, kNone), low(n, 0), stack;
  std::vector<char> on_stack(n, 0);
  std::uint32_t next_index = 0, next_comp = 0;
  struct Frame {
    std::uint32_t v, k;
  };
  std::vector<Frame> call;
  for (std::uint32_t root = 0; root < n; ++root) {
    if (!in[root] || index[root] != kNone) continue;
    call.push_back({root, adj.start[root]});
    index[root] = low[root] = next_index++;
    stack.push_back(root), on_stack[root] = 1;
    while (!call.empty()) {
      Frame& f = call.back();
      if (f.k < adj.start[f.v + 1]) {
        const std::uint32_t w = g.to[adj.edges[f.k++]];
        if (index[w] == kNone) {
          index[w] = low[w] = next_index++;
          stack.push_back(w), on_stack[w] = 1;
          call.push_back({w, adj.start[w]});
        } else if (on_stack[w]) {
          low[f.v] = std::min(low[f.v], index[w]);
        }
        continue;
      }
      const std::uint32_t v = f.v;
      call.pop_back();
      if (!call.empty()) low[call.back().v] = std::min(low[call.back().v], low[v]);
      if (low[v] != index[v]) continue;
      for (std::uint32_t w = kNone; w != v;) {
        w = stack.back();
        stack.pop_back(), on_stack[w] = 0;
        comp[w] = next_comp;
      }
      ++next_comp;
    }
  }
  return comp;
}

// What fairness asks of each component: the units taken inside it, enabled
// somewhere, disabled somewhere, and whether it has an inner edge at all.
struct Summary {
  std::vector<std::uint64_t> taken, enabled_any, disabled_any;
  std::vector<char> nontrivial;
};

Summary summarize(const ExploredGraph& g, const Adjacency& adj,
                  const std::vector<std::uint32_t>& comp) {
  std::uint32_t comps = 0;
  for (auto c : comp)
    if (c != kNone) comps = std::max(comps, c + 1);
  Summary s{std::vector<std::uint64_t>(comps, 0), std::vector<std::uint64_t>(comps, 0),
            std::vector<std::uint64_t>(comps, 0), std::vector<char>(comps, 0)};
  for (std::uint32_t v = 0; v < comp.size(); ++v) {
    if (comp[v] == kNone) continue;
    s.enabled_any[comp[v]] |= g.enabled[v];
    s.disabled_any[comp[v]] |= ~g.enabled[v];
    for (auto k = adj.start[v]; k < adj.start[v + 1]; ++k) {
      const auto e = adj.edges[k];
      if (comp[g.to[e]] != comp[v]) continue;
      s.nontrivial[comp[v]] = 1;
      s.taken[comp[v]] |= std::uint64_t{1} << g.family[e];
    }
  }
  return s;
}

// The strongly fair units component c fails (taken nowhere, enabled
// somewhere), or nullopt when c fails a weak requirement outright.
std::optional<std::uint64_t> strong_failures(const Summary& s, std::uint32_t c,
                                             const std::vector<Fairness>& fairness) {
  std::uint64_t bad = 0;
  for (std::size_t f = 0; f < fairness.size(); ++f) {
    const std::uint64_t bit = std::uint64_t{1} << f;
    if (s.taken[c] & bit) continue;
    if (fairness[f] == Fairness::Weak && !(s.disabled_any[c] & bit)) return std::nullopt;
    if (fairness[f] == Fairness::Strong && (s.enabled_any[c] & bit)) bad |= bit;
  }
  return bad;
}

}  // namespace

std::vector<std::uint32_t> fair_components(const ExploredGraph& g, std::vector<char> in,
                                           const std::vector<Fairness>& fairness) {
  const std::size_t n = in.size();
  std::vector<std::uint32_t> fair(n, kNone);
  for (std::uint32_t round = 0; round < 64; ++round) {
    const Adjacency adj = out_edges(g, in);
    const auto comp = components(g, adj, in);
    const Summary s = summarize(g, adj, comp);
    std::vector<std::uint64_t> strong_bad(s.taken.size(), 0);
    for (std::uint32_t c = 0; c < s.taken.size(); ++c) {
      if (!s.nontrivial[c]) continue;
      const auto bad = strong_failures(s, c, fairness);
      if (bad) strong_bad[c] = *bad;
      if (bad && !*bad)
        for (std::uint32_t v = 0; v < n; ++v)
          if (comp[v] == c) fair[v] = c + round * 1'000'000u;
    }
    // Drop the states where an unsatisfied strong unit is enabled, and look again.
    bool refined = false;
    for (std::uint32_t v = 0; v < n; ++v) {
      if (comp[v] != kNone && (g.enabled[v] & strong_bad[comp[v]])) in[v] = 0, refined = true;
      if (fair[v] != kNone) in[v] = 0;  // already settled
    }
    if (!refined) break;
  }
  return fair;
}

std::optional<std::vector<std::uint32_t>> path_to(const ExploredGraph& g, const Adjacency& adj,
                                                  std::uint32_t from,
                                                  const std::function<bool(std::uint32_t)>& goal) {
  std::vector<std::uint32_t> via(adj.start.size() - 1, kNone);
  std::vector<char> seen(adj.start.size() - 1, 0);
  std::deque<std::uint32_t> work{from};
  seen[from] = 1;
  while (!work.empty()) {
    const auto v = work.front();
    work.pop_front();
    if (goal(v)) {
      std::vector<std::uint32_t> edges;
      for (auto u = v; u != from; u = g.from(via[u])) edges.push_back(via[u]);
      std::reverse(edges.begin(), edges.end());
      return edges;
    }
    for (auto k = adj.start[v]; k < adj.start[v + 1]; ++k) {
      const auto e = adj.edges[k];
      if (!seen[g.to[e]]) seen[g.to[e]] = 1, via[g.to[e]] = e, work.push_back(g.to[e]);
    }
  }
  return std::nullopt;
}

namespace {

// A walk inside one component that collects the cycle's edges.
struct Walk {
  const ExploredGraph& g;
  const Adjacency& adj;
  std::uint32_t cur;
  std::vector<std::uint32_t> edges;

  void go(const std::function<bool(std::uint32_t)>& goal) {
    const auto path = path_to(g, adj, cur, goal);  // inside one component every state is reachable
    for (auto e : *path) take(e);
  }
  void take(std::uint32_t e) { edges.push_back(e), cur = g.to[e]; }
  // Walks to the nearest source of an edge `wanted` accepts, and takes that edge.
  void take_one(const std::function<bool(std::uint32_t)>& wanted) {
    auto first_wanted = [&](std::uint32_t v) {
      for (auto k = adj.start[v]; k < adj.start[v + 1]; ++k)
        if (wanted(adj.edges[k])) return adj.edges[k];
      return kNone;
    };
    go([&](std::uint32_t v) { return first_wanted(v) != kNone; });
    take(first_wanted(cur));
  }
};

// Meets unit f's requirement inside the component `in`: a weak unit by
// visiting a state where it is disabled, else by taking it; a strong unit
// by taking it if it is enabled anywhere there.
void meet(Walk& walk, const std::vector<char>& in, std::size_t f, Fairness kind) {
  const std::uint64_t bit = std::uint64_t{1} << f;
  const auto& g = walk.g;
  bool enabled_somewhere = false, disabled_somewhere = false;
  for (std::size_t v = 0; v < in.size(); ++v) {
    if (!in[v]) continue;
    enabled_somewhere = enabled_somewhere || (g.enabled[v] & bit);
    disabled_somewhere = disabled_somewhere || !(g.enabled[v] & bit);
  }
  if (kind == Fairness::Weak && disabled_somewhere)
    return walk.go([&](std::uint32_t u) { return in[u] && !(g.enabled[u] & bit); });
  if (kind == Fairness::Strong && !enabled_somewhere) return;
  walk.take_one([&](std::uint32_t e) { return g.family[e] == f; });
}

}  // namespace

std::vector<std::uint32_t> fair_cycle(const ExploredGraph& g,
                                      const std::vector<std::uint32_t>& fair, std::uint32_t c,
                                      const std::vector<Fairness>& fairness,
                                      const std::vector<std::uint32_t>& must_take) {
  std::vector<char> in(fair.size(), 0);
  for (std::size_t v = 0; v < fair.size(); ++v) in[v] = fair[v] == fair[c];
  const Adjacency adj = out_edges(g, in);
  Walk walk{g, adj, c, {}};
  if (!must_take.empty()) {
    std::vector<std::uint32_t> sorted(must_take);
    std::sort(sorted.begin(), sorted.end());
    walk.take_one(
        [&](std::uint32_t e) { return std::binary_search(sorted.begin(), sorted.end(), e); });
  }
  for (std::size_t f = 0; f < fairness.size(); ++f)
    if (fairness[f] != Fairness::None) meet(walk, in, f, fairness[f]);
  if (walk.edges.empty())
    walk.take(adj.edges[adj.start[c]]);  // no requirement: any step inside, then home
  walk.go([c](std::uint32_t u) { return u == c; });
  return walk.edges;
}

}  // namespace kmc::checker::scc
