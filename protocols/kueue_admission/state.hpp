// The state of one cluster's Kueue, as the checker stores it: one phase per
// Workload, the flavor it holds quota in, the cache's usage per ClusterQueue,
// and the queue manager's memory (the sticky preemptor of each ClusterQueue,
// the order in which holders got their quota). Fields are flat vectors over
// the layout's axes (protocols/kueue_admission/spec.cpp declares them).
#pragma once

#include <boost/hana.hpp>
#include <cstdint>
#include <vector>

namespace kmc::protocols::ka {

// A Workload's phase, in Kueue's conditions (kueue-semantics.md §1.5, §4.6).
enum Phase : std::int64_t {
  kPending,       // in its ClusterQueue's active heap
  kInadmissible,  // BestEffortFIFO: parked until an event requeues its cohort tree
  kAdmitted,      // QuotaReserved and Admitted (no admission checks in this protocol)
  kEvicted,       // Evicted (Preempted): still holds quota until its pods or job stop
  kStuck,         // Evicted, with pods stuck terminating (the kubelet is gone)
  kFinished,
  kAbsent,  // not created yet (kmc.yaml environment.arrivals; a re-adoption slot)
  // Deleted by a user (kmc.yaml environment.deletions): the Workload is gone,
  kDeleted,        // and so are its pods;
  kOrphanedPods,   // its pod group's pods are still terminating;
  kOrphanedStuck,  // they are stuck terminating (the kubelet is gone): a zombie.
  // Two-phase admission (kueue-semantics.md §5), where a ClusterQueue has admission checks:
  kReserved,     // QuotaReserved, waiting for its checks to be Ready (holds quota, job suspended)
  kBackoff,      // evicted by a Retry check: out of its queue until requeueAt (Requeued=False)
  kDeactivated,  // a check Rejected it: spec.active=false, never requeued
  // In its ClusterQueue's active heap while its backoff is ahead (Requeued=False):
  // AddFromLocalQueue pushed it (a LocalQueue added or resumed, a ClusterQueue
  // created, Kueue restarted), and PushActiveIfNotPresent reads no backoff.
  // A head like kPending; requeued after a failed attempt it is kBackoff again.
  kQueuedInBackoff,
};

// The phase's name in traces and reports.
inline const char* phase_name(std::int64_t phase) {
  static const char* const names[] = {
      "Pending",          "Inadmissible",     "Admitted",
      "Evicted",          "StuckTerminating", "Finished",
      "Absent",           "Deleted",          "DeletedPodsTerminating",
      "DeletedPodsStuck", "QuotaReserved",    "Backoff",
      "Deactivated",      "PendingInBackoff"};
  return phase >= kPending && phase <= kQueuedInBackoff ? names[phase] : "?";
}

// State::ready's bit above the checks' (K of them): a Retry check holds the
// workload's reservation until its requeueAt (rules.hpp kProvisioningFailed).
inline std::int64_t retry_hold_bit(int checks) {
  return std::int64_t{1} << checks;
}

template <class V>
struct State {
  BOOST_HANA_DEFINE_STRUCT(
      State, (std::vector<V>, phase),  // [workload] Phase
      (std::vector<V>, flavor),        // [workload] the flavor it holds quota in, -1
      (std::vector<V>, rank),    // [workload] holders of its priority in the order they reserved:
                                 // 0 the oldest; -1 not holding, or no ClusterQueue may preempt
      (std::vector<V>, usage),   // [cq][flavor][resource] the cache's usage
      (std::vector<V>, sticky),  // [cq] the preemptor kept at the head (BestEffortFIFO), -1
      (std::vector<V>, budget),  // [budget] environment faults left
      // Where some ClusterQueue has admission checks:
      (std::vector<V>, ready),  // [workload] its checks that are Ready (bits), while QuotaReserved
      (std::vector<V>, retries),  // [workload][admissionCheck] the check's retryCount
      // [workload] the queue-order timestamp, where it is not the creationTimestamp's
      // place in the static order: evicted by a check or a PodsReady timeout, ordered by the
      // eviction's time, or (PrioritySortingWithinCohort off) preempted with reason
      // InCohortReclaimWhileBorrowing, by the preemption's
      // (GetQueueOrderTimestamp); below 0: creation (Requeued). Ranks shared with `born`, dense.
      (std::vector<V>, requeued),
      // [workload] an arrival's creation, on requeued's timeline; -1: there from the start
      (std::vector<V>, born),
      // [scheduler] waitForPodsReady.blockAdmission: while the scheduling goroutine
      // sleeps in cache.WaitForPodsReady (a Fit entry met a workload not PodsReady),
      // 1 + w * F + f for the entry w it holds and its flavor f; else 0
      (std::vector<V>, blocked),
      // [workload] requeueState.count: PodsReady timeouts so far, where a
      // backoffLimitCount can deactivate it
      (std::vector<V>, requeues),
      // [workload] 1 while the scheduler's admission patch is in flight: the
      // cache holds the assumed workload (its quota counts), the API server has
      // not got it, so no controller acts on it yet. Only where writes may fail.
      (std::vector<V>, writing),
      // [workload] Unready while its job runs with pods not all ready (PodsReady
      // False), until PodsReady or its timeout; it stays while it holds quota.
      // Only where blockAdmission reads it and a PodsReady timeout may fire or a pod fail.
      (std::vector<V>, unready),
      // [workload] 1 while it holds quota it reserved before the latest edit of
      // quotas (environment.queueEdits): limits no longer in force admitted it, so
      // it may leave its queue above them. Only where some edit sets quotas or
      // deletes a ClusterQueue.
      (std::vector<V>, before_edit),
      // [cq] CqDeletion: how far the cache has got with a deleted ClusterQueue.
      // Only for the ClusterQueues an edit deletes.
      (std::vector<V>, deletion),
      // [workload] 1 while the scheduler's preemptionExpectations wait for an
      // eviction of it that a late admission patch overwrote: every preemptor
      // counts it preempted and issues nothing. Only before #11502 (variant
      // pre-11502), where environment.lateAdmissionWrites may overwrite one.
      (std::vector<V>, expecting),
      // [workload] 1 while a Pod group's pods terminate after a preemption with
      // reason InCohortReclaimWhileBorrowing, which stamped `requeued`: their end
      // returns it to its queue, where a stamp from a PodsReady timeout or a check
      // means a backoff (rules.hpp kForceFail). Only with PrioritySortingWithinCohort
      // off, where such a preemption orders its victim; or for a Pod group the dump
      // caught halfway through such an eviction, its backoff over by the dump's time
      // (AdmissionParams::tracks_reclaimed).
      (std::vector<V>, reclaimed));
  bool operator==(const State&) const = default;
};

// The values of cell `unready`: PodsReady False since the job started
// (WaitForStart), or since a pod failed after they were all ready (WaitForRecovery).
enum Unready : std::int64_t { kNotStarted = 1, kRecovering = 2 };

// The values of cell `requeued` below 0 (a rank on the timeline from 0 up):
// not evicted for a retry; or evicted by a PodsReady timeout but waiting by its
// creation (requeuingStrategy.timestamp Creation), which still marks a pod
// group terminating after that timeout for a backoff (rules.hpp kForceFail).
enum Requeued : std::int64_t { kNotRequeued = -1, kRequeuedInCreationOrder = -2 };

// The values of cell `deletion` (cluster_queue_deletion.cpp): the cache has the
// ClusterQueue as its spec says (deleted in the API or not, until the
// ClusterQueue controller reconciles the deletion), terminating, or gone.
enum CqDeletion : std::int64_t { kCqInCache = 0, kCqTerminating = 1, kCqGone = 2 };

// kBudgetRestart is there only where restarts are allowed (Spec::layout).
enum Budget : int { kBudgetStuck, kBudgetRestart };

}  // namespace kmc::protocols::ka
