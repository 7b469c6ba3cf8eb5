#include "checker/liveness.hpp"

#include <algorithm>
#include <deque>
#include <functional>

namespace kmc::checker {

const char* to_string(Fairness f) {
  switch (f) {
    case Fairness::None: return "none";
    case Fairness::Weak: return "weak";
    case Fairness::Strong: return "strong";
  }
  return "?";
}

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

struct Adjacency {
  std::vector<std::uint32_t> start, edges;  // CSR: out-edges by source
};

Adjacency out_edges(const ExploredGraph& g, const std::vector<char>& in) {
  const std::size_t n = g.enabled.size();
  Adjacency a;
  a.start.assign(n + 1, 0);
  for (std::size_t e = 0; e < g.from.size(); ++e)
    if (in[g.from[e]] && in[g.to[e]]) ++a.start[g.from[e] + 1];
  for (std::size_t i = 0; i < n; ++i) a.start[i + 1] += a.start[i];
  a.edges.resize(a.start[n]);
  std::vector<std::uint32_t> fill(a.start.begin(), a.start.end() - 1);
  for (std::size_t e = 0; e < g.from.size(); ++e)
    if (in[g.from[e]] && in[g.to[e]]) a.edges[fill[g.from[e]]++] = static_cast<std::uint32_t>(e);
  return a;
}

// Iterative Tarjan over the states marked `in`; returns a component id per state (kNone outside).
std::vector<std::uint32_t> components(const ExploredGraph& g, const Adjacency& adj, const std::vector<char>& in) {
  const std::size_t n = in.size();
  std::vector<std::uint32_t> comp(n, kNone), index(n, kNone), low(n, 0), stack;
  std::vector<char> on_stack(n, 0);
  std::uint32_t next_index = 0, next_comp = 0;
  struct Frame { std::uint32_t v, k; };
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

// Marks in `fair` the states of fair components inside `in`, refining
// components that fail a strong-fairness condition. Returns the component
// id of each fair state (kNone elsewhere), so cycles stay inside one.
std::vector<std::uint32_t> fair_components(const ExploredGraph& g, std::vector<char> in, const LeadsToQuery& q) {
  const std::size_t n = in.size();
  std::vector<std::uint32_t> fair(n, kNone);
  for (int round = 0; round < 64; ++round) {
    const Adjacency adj = out_edges(g, in);
    const auto comp = components(g, adj, in);
    std::uint32_t comps = 0;
    for (auto c : comp) if (c != kNone) comps = std::max(comps, c + 1);
    std::vector<std::uint64_t> taken(comps, 0), enabled_any(comps, 0), disabled_any(comps, 0);
    std::vector<char> nontrivial(comps, 0);
    for (std::uint32_t v = 0; v < n; ++v) {
      if (comp[v] == kNone) continue;
      enabled_any[comp[v]] |= g.enabled[v];
      disabled_any[comp[v]] |= ~g.enabled[v];
      for (auto k = adj.start[v]; k < adj.start[v + 1]; ++k) {
        const auto e = adj.edges[k];
        if (comp[g.to[e]] != comp[v]) continue;
        nontrivial[comp[v]] = 1;
        taken[comp[v]] |= std::uint64_t{1} << g.family[e];
      }
    }
    bool refined = false;
    std::vector<std::uint64_t> strong_bad(comps, 0);
    for (std::uint32_t c = 0; c < comps; ++c) {
      if (!nontrivial[c]) continue;
      bool ok = true;
      for (std::size_t f = 0; f < q.fairness.size(); ++f) {
        const std::uint64_t bit = std::uint64_t{1} << f;
        if (q.fairness[f] == Fairness::Weak && !(taken[c] & bit) && !(disabled_any[c] & bit)) ok = false;
        if (q.fairness[f] == Fairness::Strong && !(taken[c] & bit) && (enabled_any[c] & bit)) strong_bad[c] |= bit;
      }
      if (ok && !strong_bad[c]) {
        for (std::uint32_t v = 0; v < n; ++v) if (comp[v] == c) fair[v] = c + static_cast<std::uint32_t>(round) * 1'000'000u;
      }
    }
    // Drop the states where an unsatisfied strong family is enabled, and look again.
    for (std::uint32_t v = 0; v < n; ++v) {
      if (comp[v] != kNone && (g.enabled[v] & strong_bad[comp[v]])) in[v] = 0, refined = true;
      if (fair[v] != kNone) in[v] = 0;  // already settled
    }
    if (!refined) break;
  }
  return fair;
}

// Shortest path of edge indices from `from` to any state accepted by `goal`,
// using only edges whose endpoints satisfy `allowed`.
std::optional<std::vector<std::uint32_t>> path_to(const ExploredGraph& g, const Adjacency& adj, std::uint32_t from,
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
      for (auto u = v; u != from; u = g.from[via[u]]) edges.push_back(via[u]);
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

// A cycle from c inside its fair component that meets every weak/strong requirement.
std::vector<std::uint32_t> fair_cycle(const ExploredGraph& g, const std::vector<std::uint32_t>& fair, std::uint32_t c,
                                      const LeadsToQuery& q) {
  std::vector<char> in(fair.size(), 0);
  for (std::size_t v = 0; v < fair.size(); ++v) in[v] = fair[v] == fair[c];
  const Adjacency adj = out_edges(g, in);
  std::vector<std::uint32_t> cycle;
  std::uint32_t cur = c;
  auto go = [&](const std::function<bool(std::uint32_t)>& goal) {
    const auto path = path_to(g, adj, cur, goal);  // inside one component every state is reachable
    for (auto e : *path) cycle.push_back(e), cur = g.to[e];
  };
  for (std::size_t f = 0; f < q.fairness.size(); ++f) {
    if (q.fairness[f] == Fairness::None) continue;
    const std::uint64_t bit = std::uint64_t{1} << f;
    bool edge_needed = true;
    if (q.fairness[f] == Fairness::Weak)
      for (std::size_t v = 0; v < in.size() && edge_needed; ++v)
        if (in[v] && !(g.enabled[v] & bit)) go([&, v](std::uint32_t u) { return u == v; }), edge_needed = false;
    if (q.fairness[f] == Fairness::Strong) {
      edge_needed = false;
      for (std::size_t v = 0; v < in.size(); ++v) edge_needed = edge_needed || (in[v] && (g.enabled[v] & bit));
    }
    if (!edge_needed) continue;
    for (std::uint32_t v = 0; v < in.size(); ++v)
      for (auto k = adj.start[v]; k < adj.start[v + 1]; ++k)
        if (g.family[adj.edges[k]] == f) {
          go([v](std::uint32_t u) { return u == v; });
          cycle.push_back(adj.edges[k]), cur = g.to[adj.edges[k]];
          v = static_cast<std::uint32_t>(in.size()) - 1;
          break;
        }
  }
  if (cycle.empty()) {  // no requirement: any step inside the component, then home
    cycle.push_back(adj.edges[adj.start[c]]);
    cur = g.to[cycle.back()];
  }
  go([c](std::uint32_t u) { return u == c; });
  return cycle;
}

}  // namespace

std::optional<Lasso> find_lasso(const ExploredGraph& g, const LeadsToQuery& q) {
  const std::size_t n = g.enabled.size();
  const std::uint64_t pbit = std::uint64_t{1} << q.premise_bit, gbit = std::uint64_t{1} << q.goal_bit;
  std::vector<char> not_goal(n);
  for (std::size_t v = 0; v < n; ++v) not_goal[v] = !(g.holds[v] & gbit);
  const auto fair = fair_components(g, not_goal, q);
  const Adjacency adj = out_edges(g, not_goal);
  // Stuttering forever is fair wherever no fairly scheduled family is enabled
  // (TLA+'s behaviours may always stutter; fairness alone forbids it).
  std::uint64_t fair_families = 0;
  for (std::size_t f = 0; f < q.fairness.size(); ++f)
    if (q.fairness[f] != Fairness::None) fair_families |= std::uint64_t{1} << f;
  auto may_stutter = [&](std::uint32_t v) { return g.expanded[v] && !(g.enabled[v] & fair_families); };
  auto accepting = [&](std::uint32_t v) { return fair[v] != kNone || may_stutter(v); };
  // One backward pass from the accepting states (inside not-goal) marks every
  // state that can fail; only the first premise state among them gets a
  // forward search. Searching forward from every premise state would be
  // quadratic when the property holds.
  std::vector<char> can_fail(n, 0);
  std::vector<std::uint32_t> work;
  for (std::uint32_t v = 0; v < n; ++v)
    if (not_goal[v] && accepting(v)) can_fail[v] = 1, work.push_back(v);
  std::vector<std::uint32_t> rstart(n + 1, 0), rfrom(adj.edges.size());
  for (auto e : adj.edges) ++rstart[g.to[e] + 1];
  for (std::size_t i = 0; i < n; ++i) rstart[i + 1] += rstart[i];
  std::vector<std::uint32_t> fill(rstart.begin(), rstart.end() - 1);
  for (auto e : adj.edges) rfrom[fill[g.to[e]]++] = g.from[e];
  while (!work.empty()) {
    const auto v = work.back();
    work.pop_back();
    for (auto k = rstart[v]; k < rstart[v + 1]; ++k)
      if (!can_fail[rfrom[k]]) can_fail[rfrom[k]] = 1, work.push_back(rfrom[k]);
  }
  for (std::uint32_t s = 0; s < n; ++s) {
    if (!can_fail[s] || !(g.holds[s] & pbit)) continue;
    auto prefix = path_to(g, adj, s, accepting);
    const std::uint32_t c = prefix->empty() ? s : g.to[prefix->back()];
    Lasso lasso{s, std::move(*prefix), {}};
    if (!may_stutter(c)) lasso.cycle = fair_cycle(g, fair, c, q);  // a stutter is the shorter story
    return lasso;
  }
  return std::nullopt;
}

}  // namespace kmc::checker
