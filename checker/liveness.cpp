#include "checker/liveness.hpp"

#include "checker/fair_scc.hpp"

namespace kmc::checker {

const char* to_string(Fairness f) {
  switch (f) {
    case Fairness::None:
      return "none";
    case Fairness::Weak:
      return "weak";
    case Fairness::Strong:
      return "strong";
  }
  return "?";
}

namespace {

using scc::kNone;

// The states from which some path inside `adj` reaches an accepting state:
// one backward pass instead of a forward search per premise state, which
// would be quadratic when the property holds.
std::vector<char> can_reach(const ExploredGraph& g, const scc::Adjacency& adj,
                            std::vector<char> accepting) {
  const std::size_t n = accepting.size();
  std::vector<std::uint32_t> work;
  for (std::uint32_t v = 0; v < n; ++v)
    if (accepting[v]) work.push_back(v);
  std::vector<std::uint32_t> rstart(n + 1, 0), rfrom(adj.edges.size());
  for (auto e : adj.edges) ++rstart[g.to[e] + 1];
  for (std::size_t i = 0; i < n; ++i) rstart[i + 1] += rstart[i];
  std::vector<std::uint32_t> fill(rstart.begin(), rstart.end() - 1);
  for (std::uint32_t s = 0; s < n; ++s)
    for (auto k = adj.start[s]; k < adj.start[s + 1]; ++k) rfrom[fill[g.to[adj.edges[k]]]++] = s;
  while (!work.empty()) {
    const auto v = work.back();
    work.pop_back();
    for (auto k = rstart[v]; k < rstart[v + 1]; ++k)
      if (!accepting[rfrom[k]]) accepting[rfrom[k]] = 1, work.push_back(rfrom[k]);
  }
  return accepting;
}

}  // namespace

std::optional<Lasso> find_lasso(const ExploredGraph& g, const LeadsToQuery& q) {
  const std::size_t n = g.enabled.size();
  const std::uint64_t pbit = std::uint64_t{1} << q.premise_bit,
                      gbit = std::uint64_t{1} << q.goal_bit;
  std::vector<char> not_goal(n);
  for (std::size_t v = 0; v < n; ++v) not_goal[v] = !(g.holds[v] & gbit);
  const auto fair = scc::fair_components(g, not_goal, q.fairness);
  const scc::Adjacency adj = scc::out_edges(g, not_goal);
  // Stuttering forever is fair wherever no fairly scheduled unit is enabled
  // (TLA+'s behaviours may always stutter; fairness alone forbids it).
  std::uint64_t fair_units = 0;
  for (std::size_t f = 0; f < q.fairness.size(); ++f)
    if (q.fairness[f] != Fairness::None) fair_units |= std::uint64_t{1} << f;
  auto may_stutter = [&](std::uint32_t v) { return g.expanded[v] && !(g.enabled[v] & fair_units); };
  auto accepting = [&](std::uint32_t v) { return fair[v] != kNone || may_stutter(v); };
  std::vector<char> accept(n, 0);
  for (std::uint32_t v = 0; v < n; ++v) accept[v] = not_goal[v] && accepting(v);
  const auto can_fail = can_reach(g, adj, std::move(accept));
  for (std::uint32_t s = 0; s < n; ++s) {
    if (!can_fail[s] || !(g.holds[s] & pbit)) continue;
    auto prefix = scc::path_to(g, adj, s, accepting);
    const std::uint32_t c = prefix->empty() ? s : g.to[prefix->back()];
    Lasso lasso{s, std::move(*prefix), {}};
    if (!may_stutter(c))
      lasso.cycle = scc::fair_cycle(g, fair, c, q.fairness);  // a stutter is the shorter story
    return lasso;
  }
  return std::nullopt;
}

}  // namespace kmc::checker
