// I1 per ClusterQueue, manager and workers: usage never exceeds nominal quota
// (the protocol has no cohorts, so nothing may be borrowed) and is never negative.
#include "invariants/multikueue_registry.hpp"

namespace kmc::invariants {

MkProperty cluster_queue_within_quota(const protocols::MultiKueue& p) {
  auto holds = [&p](const protocols::MultiKueue::State& s) {
    const auto& mp = p.params();
    for (std::size_t q = 0; q < mp.cqs.size(); ++q)
      for (std::size_t f = 0; f < mp.cqs[q].flavors.size(); ++f)
        for (int r = 0; r < mp.R(); ++r) {
          const auto used = s.usage[p.u(static_cast<int>(q), static_cast<int>(f), r)];
          const auto nominal = std::max<std::int64_t>(0, mp.cqs[q].nominal[f * mp.R() + r]);
          if (used < 0 || used > nominal) return false;
        }
    return true;
  };
  return MkProperty::always(
      "cluster-queue-within-quota",
      "no ClusterQueue, on the manager or a worker, holds more than its quota", {.holds = holds});
}

}  // namespace kmc::invariants
