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
  deleted_at.assign(cqs.size(), -1);
  recreated_at.assign(cqs.size(), -1);
  deleted_cqs.clear();
  for (std::size_t k = 0; k < queue_edits.size(); ++k) {
    const QueueEdit& e = queue_edits[k];
    if (e.local || e.cohort) continue;
    const auto q = static_cast<std::size_t>(e.queue);
    if (e.deletes) {
      deleted_at[q] = static_cast<int>(k);
      deleted_cqs.push_back(e.queue);
    } else if (e.creates && deleted_at[q] >= 0) {
      recreated_at[q] = static_cast<int>(k);  // compile_queue_edits: at most once
    }
  }
  const bool any = any_cq_deletions() ||
                   std::any_of(queue_edits.begin(), queue_edits.end(), [](const QueueEdit& e) {
                     return !e.quotas.empty() || (e.cohort && e.creates);
                   });
  if (!any) return;
  // Every (edits, removed) pair, the impossible ones too (a ClusterQueue gone
  // before its deletion): the table stays a plain index, and is small.
  const int masks = 1 << deleted_cqs.size();
  for (std::size_t k = 0; k <= queue_edits.size(); ++k)
    for (int m = 0; m < masks; ++m) {
      const QueueEdit* e = k > 0 ? &queue_edits[k - 1] : nullptr;
      const bool same = e != nullptr && (e->quotas.empty() || !e->spec_updated) && !e->deletes &&
                        !(e->cohort && e->creates);
      trees_after.push_back(k == 0 && m == 0 ? tree
                            : same
                                ? trees_after[tree_slot(static_cast<int>(k) - 1, m)]
                                : std::make_shared<const QuotaTree>(*this, static_cast<int>(k), m));
    }
}

// What over-admission (observe.cpp) must not blame on the scheduler: usage
// that limits no longer in force admitted.
void Scheduler::mark_before_edit(XState& s) const {
  for (int w = 0; w < p_.W(); ++w) s.before_edit[w] = reserved(s, w) ? 1 : 0;
}

}  // namespace kmc::protocols::ka
