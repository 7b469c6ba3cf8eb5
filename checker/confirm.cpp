#include "checker/confirm.hpp"

namespace kmc::checker {

bool cycle_is_fair(const std::vector<int>& taken, const std::vector<std::uint64_t>& enabled,
                   const std::vector<Fairness>& fairness) {
  std::uint64_t took = 0, any_enabled = 0, any_disabled = 0;
  for (int u : taken)
    if (u >= 0 && u < 64) took |= std::uint64_t{1} << u;
  for (auto mask : enabled) any_enabled |= mask, any_disabled |= ~mask;
  for (std::size_t u = 0; u < fairness.size() && u < 64; ++u) {
    const std::uint64_t bit = std::uint64_t{1} << u;
    if (fairness[u] == Fairness::Weak && !(took & bit) && !(any_disabled & bit)) return false;
    if (fairness[u] == Fairness::Strong && !(took & bit) && (any_enabled & bit)) return false;
  }
  return true;
}

bool goal_never_follows(const std::vector<char>& premise, const std::vector<char>& goal,
                        std::size_t loop) {
  const std::size_t n = premise.size();
  if (n == 0 || loop >= n) return false;
  for (std::size_t j = loop; j < n; ++j)
    if (goal[j]) return false;  // the loop reaches the goal again and again
  // The latest state from which the goal never holds again; a premise at or after it fails the
  // property.
  std::size_t from = n;
  while (from > 0 && !goal[from - 1]) --from;
  for (std::size_t i = from; i < n; ++i)
    if (premise[i]) return true;
  return false;
}

}  // namespace kmc::checker
