#include "checker/recurrence.hpp"

#include <algorithm>

#include "checker/fair_scc.hpp"

namespace kmc::checker {

std::optional<Lasso> find_recurrence(const ExploredGraph& g, const RecurrenceQuery& q) {
  const std::size_t n = g.enabled.size();
  const std::uint64_t pbit = std::uint64_t{1} << q.premise_bit,
                      sbit = std::uint64_t{1} << q.subject_bit;
  std::vector<char> premise(n);
  for (std::size_t v = 0; v < n; ++v) premise[v] = (g.holds[v] & pbit) != 0;
  const auto fair = scc::fair_components(g, std::move(premise), q.fairness);
  // A marked edge with both ends in one fair component can be taken forever, fairly.
  std::vector<std::uint32_t> inner;
  for (std::size_t k = 0; k < g.marked_edge.size(); ++k) {
    const auto e = g.marked_edge[k];
    if ((g.marked_subjects[k] & sbit) && fair[g.from(e)] != scc::kNone &&
        fair[g.from(e)] == fair[g.to[e]])
      inner.push_back(e);
  }
  if (inner.empty()) return std::nullopt;
  std::vector<std::uint32_t> accepting;  // component ids
  for (auto e : inner) accepting.push_back(fair[g.from(e)]);
  std::sort(accepting.begin(), accepting.end());
  std::uint32_t c = 0;
  while (!std::binary_search(accepting.begin(), accepting.end(), fair[c])) ++c;
  std::vector<std::uint32_t> here;
  for (auto e : inner)
    if (fair[g.from(e)] == fair[c]) here.push_back(e);
  return Lasso{c, {}, scc::fair_cycle(g, fair, c, q.fairness, here)};
}

}  // namespace kmc::checker
