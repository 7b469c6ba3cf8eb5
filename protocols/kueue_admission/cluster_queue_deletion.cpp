// A ClusterQueue deleted during the run (kmc.yaml environment.queueEdits
// `{clusterQueue: NAME, delete: true}`).
//
// Kueue's pieces, each read from its source:
// - the ClusterQueue keeps the resource-in-use finalizer, so the deletion only
//   sets its deletionTimestamp; the ClusterQueue controller's Reconcile marks
//   it terminating in the cache (TerminateClusterQueue), a step of its own
//   (ClusterQueueTerminating): until then the queue admits as before. A
//   restart's cache adds it active again (AddClusterQueue reads no
//   deletionTimestamp) until the next Reconcile. A terminating queue is
//   inactive: heads() skips it and the snapshot leaves it out
//   (skipInactiveCQReason), while its usage and quota still count in its
//   cohort, as for a stopped queue. Its Admitted workloads run on (only a
//   spec.stopPolicy HoldAndDrain evicts them), while the workload controller
//   unsets a reservation not yet Admitted as soon as the object has its
//   deletionTimestamp ("terminating or missing", stop_policy.cpp);
// - the controller's Update ignores a deleting ClusterQueue, so its spec
//   edits reach neither the cache nor the queue manager (compile refuses them);
// - once no workload holds quota in it (ClusterQueueEmpty), Reconcile removes
//   the finalizer; the Delete event takes it out of the cache
//   (DeleteClusterQueue: its quota leaves the cohort tree) and out of the
//   queue manager, where its pending workloads wait for a ClusterQueue that
//   is gone. Nothing is evicted where the cohort now has less quota than its
//   borrowers use, and nothing is requeued.
// - creating it again (`create: true` after the deletion) succeeds only once
//   the old object is gone; the new one is its manifest's, added to the cache
//   and to the queue manager as a ClusterQueue created during the run is
//   (queue_creation.cpp): its LocalQueues' pending workloads are pushed into
//   its new heap, and its cohort tree's parked workloads are requeued.
#include "protocols/kueue_admission/scheduler.hpp"

namespace kmc::protocols::ka {

bool Scheduler::may_finalize(const XState& s, int cq) const {
  if (s.deletion[static_cast<std::size_t>(cq)] != kCqTerminating) return false;
  for (int w = 0; w < p_.W(); ++w)
    if (p_.workloads[w].cq == cq && holds(s, w)) return false;
  return true;
}

void Scheduler::finalize(XState& s, int cq) const {
  // Borrowers admitted under the cohort's quota as it was may be left above
  // what it has now: over-admission does not blame the scheduler for that.
  mark_before_edit(s);
  s.deletion[static_cast<std::size_t>(cq)] = kCqGone;
}

bool Scheduler::edit_waits(const XState& s) const {
  if (!p_.any_cq_deletions()) return false;
  const int k = edits_done(s);
  const QueueEdit& e = p_.queue_edits[static_cast<std::size_t>(k)];
  if (!e.creates || e.local || e.cohort) return false;
  const auto q = static_cast<std::size_t>(e.queue);
  return p_.recreated_at[q] == k && s.deletion[q] != kCqGone;
}

}  // namespace kmc::protocols::ka
