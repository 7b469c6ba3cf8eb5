// Edits of quotas during the run (kmc.yaml environment.queueEdits with
// `quotas`): an operator changes a ClusterQueue's or a Cohort's nominalQuota,
// borrowingLimit or lendingLimit while workloads hold and wait for quota.
//
// Kueue's pieces, each read from its source:
// - the cache applies the new spec and recomputes the whole cohort tree's
//   subtree quotas and usage from its ClusterQueues' (updateClusterQueue,
//   updateCohortTreeResources); nothing is evicted, so a queue may be left
//   above quotas that shrank, and then borrows, or is in debt to its cohort;
// - the queue manager requeues the cohort tree's parked workloads
//   (UpdateClusterQueue with specUpdated; AddOrUpdateCohort's notifyCohort);
// - the next scheduling cycle's snapshot measures everything against the new
//   quotas, preemption included (a reclaim may now find a borrower).
//
// The tree's shape is constant: an edit sets the quotas of flavors and
// resources the queue has (compile_environment.cpp refuses the others), so
// the model precomputes the tree after each number of edits.
#include <algorithm>

#include "protocols/kueue_admission/quota.hpp"
#include "protocols/kueue_admission/scheduler.hpp"

namespace kmc::protocols::ka {

void AdmissionParams::finish_quota_edits() {
  trees_after.clear();
  const bool any = std::any_of(queue_edits.begin(), queue_edits.end(),
                               [](const QueueEdit& e) { return !e.quotas.empty(); });
  if (!any) return;
  trees_after.push_back(tree);
  for (std::size_t k = 1; k <= queue_edits.size(); ++k)
    trees_after.push_back(queue_edits[k - 1].quotas.empty()
                              ? trees_after.back()
                              : std::make_shared<const QuotaTree>(*this, static_cast<int>(k)));
}

// What over-admission (observe.cpp) must not blame on the scheduler: usage
// that limits no longer in force admitted.
void Scheduler::mark_before_edit(XState& s) const {
  for (int w = 0; w < p_.W(); ++w) s.before_edit[w] = reserved(s, w) ? 1 : 0;
}

}  // namespace kmc::protocols::ka
