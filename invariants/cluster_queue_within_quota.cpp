// I1 per ClusterQueue, manager and workers: usage never exceeds nominal quota
// (the protocol has no cohorts, so nothing may be borrowed) and is never
// negative. The predicate is multikueue_safety.hpp's, shared with the SMT engines.
#include "invariants/multikueue_registry.hpp"
#include "invariants/multikueue_safety.hpp"

namespace kmc::invariants {

MkProperty cluster_queue_within_quota(const protocols::MultiKueue& p) {
  auto holds = [&p](const protocols::MultiKueue::State& s) {
    return mk::cluster_queue_within_quota<std::int64_t>(p.params(), s, {});
  };
  return MkProperty::always(
      "cluster-queue-within-quota",
      "no ClusterQueue, on the manager or a worker, holds more than its quota", {.holds = holds});
}

}  // namespace kmc::invariants
