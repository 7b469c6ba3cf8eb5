// Kueue's scheduler over the protocol's state: one scheduling cycle works on
// one snapshot (heads, nominate, assign flavors, find preemption targets,
// order the entries, process them), as pkg/scheduler/scheduler.go does
// (kueue-semantics.md §2, §4). The model's own code, written from Kueue's:
// engine/ has an independent one, and replay compares the two.
//
// The cycle is one atomic action of the protocol: what happens between
// cycles (victims' pods terminating, jobs finishing, faults) interleaves
// with it, what happens inside it does not, as in Kueue, whose scheduler
// works on a snapshot taken at the start of the cycle.
#pragma once

#include <cstdint>
#include <vector>

#include "model/kueue_objects.hpp"
#include "protocols/kueue_admission/params.hpp"
#include "protocols/kueue_admission/quota.hpp"
#include "protocols/kueue_admission/state.hpp"

namespace kmc::protocols::ka {

using XState = State<std::int64_t>;

// The public modes of an assignment, worst first (flavorassigner.go).
enum class Mode { NoFit, Preempt, DeferredFit, Fit };

struct Assignment {
  int flavor = -1;
  Mode mode = Mode::NoFit;
  int borrow = 0;            // the height of the lowest subtree that fits; 0: within nominal
  std::vector<int> need;     // (flavor, resource) cells that need preemption
  std::vector<int> targets;  // victims, when mode is Preempt
  // Those of the targets preempted with reason InCohortReclaimWhileBorrowing.
  std::vector<int> reclaimed_while_borrowing;
};

// What one scheduling cycle did with its heads.
struct CycleOutcome {
  // Nominated, then skipped (requeued at once without acting): what earlier
  // entries of the cycle took or preempted invalidated them.
  std::vector<int> skipped;
  // Reserved quota, or evicted a victim that was not on its way out already.
  std::vector<int> acted;
  // The victims whose eviction the cycle issued (not those already evicted).
  std::vector<int> evicted;
};

class Scheduler {
 public:
  explicit Scheduler(const AdmissionParams& p);

  const AdmissionParams& params() const { return p_; }
  // The cohort tree's shape, and its quotas as the manifests set them.
  const QuotaTree& tree() const { return tree_; }
  // The edits of environment.queueEdits applied in s.
  int edits_done(const XState& s) const {
    return p_.any_queue_edits()
               ? static_cast<int>(p_.queue_edits.size() - s.budget[p_.budget_queue_edits()])
               : 0;
  }
  // The quotas in force in s: those of the manifests, as the edits so far set
  // them, without the deleted ClusterQueues that are gone.
  const QuotaTree& tree_at(const XState& s) const {
    return p_.any_quota_edits() ? *p_.trees_after[p_.tree_slot(edits_done(s), removed_mask(s))]
                                : tree_;
  }
  // Deleted ClusterQueues (kmc.yaml environment.queueEdits `delete: true`;
  // cluster_queue_deletion.cpp). Bit i: p.deleted_cqs[i] is gone.
  int removed_mask(const XState& s) const {
    int m = 0;
    for (std::size_t i = 0; i < p_.deleted_cqs.size(); ++i)
      if (s.deletion[static_cast<std::size_t>(p_.deleted_cqs[i])] == kCqGone) m |= 1 << i;
    return m;
  }
  // cq has a deletionTimestamp in the API: the operator's edit is applied.
  // Not once an edit created it again.
  bool deleted(const XState& s, int cq) const {
    if (!p_.any_cq_deletions()) return false;
    const int at = p_.deleted_at[static_cast<std::size_t>(cq)];
    const int again = p_.recreated_at[static_cast<std::size_t>(cq)];
    const int done = edits_done(s);
    return at >= 0 && done > at && (again < 0 || done <= again);
  }
  // The cache has cq terminating (inactive), or gone.
  bool terminating(const XState& s, int cq) const {
    return p_.any_cq_deletions() && s.deletion[static_cast<std::size_t>(cq)] != kCqInCache;
  }
  // The ClusterQueue controller may mark the deleted cq terminating in the cache.
  bool may_terminate(const XState& s, int cq) const {
    return deleted(s, cq) && s.deletion[static_cast<std::size_t>(cq)] == kCqInCache;
  }
  // It may remove cq's resource-in-use finalizer: terminating, and no workload
  // holds quota in it (cache.ClusterQueueEmpty).
  bool may_finalize(const XState& s, int cq) const;
  // ... and does: the ClusterQueue is gone from the cache and its cohort tree.
  void finalize(XState& s, int cq) const;
  // The next edit creates a deleted ClusterQueue again while its old object
  // is still there, terminating: the API server refuses the create
  // (AlreadyExists), so the operator's edit waits until the finalizer is gone.
  bool edit_waits(const XState& s) const;
  Snapshot snapshot(const XState& s) const {
    return Snapshot(tree_at(s), s.usage, p_.broken_skip_cohort_limit);
  }

  // One scheduling cycle, in place; `out`, if given, says what it did.
  // `failed_eviction` >= 0: the eviction patch of that victim fails (it keeps
  // running), as IssuePreemptions' error path has it. `overwritten_eviction`
  // >= 0: that victim's eviction lands before its in-flight admission patch,
  // which then overwrites it (kubernetes-sigs/kueue#11480).
  void cycle(XState& s, CycleOutcome* out = nullptr, int failed_eviction = -1,
             int overwritten_eviction = -1) const;
  // waitForPodsReady.blockAdmission: the entry the goroutine sleeps holding
  // (waitForPodsReadyIfNeeded, inside processEntry) and the flavor its cycle
  // assigned; w < 0 while it is not asleep (block_admission.cpp).
  struct BlockedEntry {
    int w = -1;
    int flavor = -1;
  };
  BlockedEntry blocked_entry(const XState& s) const;
  void block(XState& s, int w, int f) const;
  // The goroutine, awake (every workload in the cache PodsReady), goes on in
  // the entry it held: Scheduler.admit, against the cycle's old snapshot.
  void wake(XState& s, CycleOutcome* out = nullptr) const;
  // An admission made now is patched asynchronously with an outcome still
  // open: the patch may fail, or land after a later cycle's eviction.
  bool patch_in_flight(const XState& s) const {
    return (p_.writes_may_fail() && s.budget[p_.budget_write_failures()] > 0) ||
           (p_.late_writes() && s.budget[p_.budget_late_writes()] > 0);
  }
  // The workload cq's heap would pop now; -1: none.
  int head(const XState& s, int cq) const;
  // ClusterQueue.IsPreemptor under PrioritizePreemptorWorkloads: w is its
  // queue's preemptor, waiting for its victims to stop.
  bool preemptor(const XState& s, int w) const {
    return p_.prioritize_preemptors && s.sticky[p_.workloads[w].cq] == w;
  }
  bool any_head(const XState& s) const;
  // Flavor assignment and, for Preempt, its targets, as nominate() computes
  // them against `snap` (only: the nominated flavor, for a recompute).
  // `gone` marks workloads already removed from snap.
  Assignment assign(const XState& s, const Snapshot& snap, int w, const std::vector<bool>& gone,
                    int only = -1) const;
  // The victims GetTargets chooses for w in flavor f on the cells `need`,
  // with w's requests `usage` per cell; those it preempts with reason
  // InCohortReclaimWhileBorrowing also into *while_borrowing, where given.
  std::vector<int> targets(const XState& s, const Snapshot& snap, int w, int f,
                           const std::vector<int>& need, const std::vector<std::int64_t>& usage,
                           const std::vector<bool>& gone,
                           std::vector<int>* while_borrowing = nullptr) const;

  // Whether w holds quota (counted in the cache: QuotaReserved, not finished).
  static bool holds(const XState& s, int w) {
    return s.phase[w] == kAdmitted || s.phase[w] == kEvicted || s.phase[w] == kStuck ||
           s.phase[w] == kReserved;
  }
  // w is in its ClusterQueue's active heap: a head, where its queues let it be.
  static bool in_heap(const XState& s, int w) {
    return s.phase[w] == kPending || s.phase[w] == kQueuedInBackoff;
  }
  // AddFromLocalQueue (a LocalQueue added or resumed, a ClusterQueue created,
  // a restart): w pushed into its active heap by PushActiveIfNotPresent, which
  // reads neither its backoff nor the parked equivalence classes.
  static void push_from_local_queue(XState& s, int w) {
    if (s.phase[w] == kInadmissible) s.phase[w] = kPending;
    if (s.phase[w] == kBackoff) s.phase[w] = kQueuedInBackoff;
  }
  // Holds quota and is not being evicted: what the scheduler counts (§2.5).
  static bool reserved(const XState& s, int w) {
    return s.phase[w] == kAdmitted || s.phase[w] == kReserved;
  }

  // Some workload in the cache is not PodsReady (cache.WorkloadsNotReady), so
  // with blockAdmission a Fit admission waits. An admitted job's pods are ready
  // at once here (time is abstract; the engine's pods_ready_on_start); one
  // reserved and waiting for its checks is never admitted, so never ready, and
  // neither is one whose admission has not reached the API server (its pods are gated).
  // Nor is a victim whose pods are stuck terminating: the node lifecycle controller
  // marks a lost node's pods NotReady, and the job reconciler's
  // generatePodsReadyCondition turns its PodsReady False while the cache holds it.
  static bool any_not_ready(const XState& s) {
    for (auto v : s.phase)
      if (v == kReserved || v == kStuck) return true;
    for (auto v : s.writing)
      if (v != 0) return true;
    for (auto v : s.unready)
      if (v != 0) return true;
    return false;
  }
  // Stopped queues (spec.stopPolicy; kmc.yaml environment.queueEdits; stop_policy.cpp).
  // The policy of ClusterQueue cq, and of w's LocalQueue, in state s.
  model::StopPolicy cq_stop(const XState& s, int cq) const;
  model::StopPolicy lq_stop(const XState& s, int w) const;
  // Heads skip a stopped or terminating ClusterQueue, and the scheduler's
  // snapshot leaves it out, so its workloads are no preemption candidates.
  bool cq_active(const XState& s, int cq) const {
    return !stops_ || (cq_stop(s, cq) == model::StopPolicy::None && !terminating(s, cq));
  }
  // Where w is pushed into its heap outside a requeue (its backoff passed, it
  // arrives): PushOrUpdate puts it straight into the
  // inadmissible set if its equivalence class was bulk-moved there since its
  // ClusterQueue last requeued (SchedulingEquivalenceHashing, BestEffortFIFO).
  // The model reads that from the class: some equivalent workload is parked.
  // (Kueue keeps the mark if every parked one is deleted; the model does not.)
  Phase pushed_phase(const XState& s, int w) const;
  // w's heap may pop it: neither its ClusterQueue nor its LocalQueue is stopped
  // (a stopped LocalQueue's workloads are out of the queues).
  bool queued(const XState& s, int w) const {
    return !stops_ ||
           (cq_active(s, p_.workloads[w].cq) && lq_stop(s, w) == model::StopPolicy::None);
  }
  // The workload controller would act on w for its stopped queue
  // (reconcileOn{Local,Cluster}QueueActiveState): unset a reservation that is
  // not Admitted, or, under HoldAndDrain, evict an Admitted workload.
  bool stop_acts(const XState& s, int w) const;
  void apply_stop(XState& s, int w) const;
  // An operator's next edit of environment.queueEdits (the budget cell counts those left).
  void edit_queue(XState& s) const;
  // After an edit of quotas: every workload holding quota got it under limits no
  // longer in force (cell `before_edit`, quota_edits.cpp).
  void mark_before_edit(XState& s) const;
  // w's admission patch is in flight (environment.admissionWriteFailures,
  // lateAdmissionWrites).
  static bool writing(const XState& s, int w) { return s.writing[w] != 0; }

  // The heap's order between two waiting workloads (kueue-semantics.md §2.1)
  // after the sticky head and priority: GetQueueOrderTimestamp (the
  // creationTimestamp, or the eviction's time for one a check or a PodsReady timeout evicted,
  // or the preemption's for one reclaimed while its preemptor borrowed), then the name.
  bool queued_before(const XState& s, int a, int b) const;
  // a's queue-order timestamp is strictly earlier than b's (withinClusterQueue
  // LowerOrNewerEqualPriority compares them).
  bool older(const XState& s, int a, int b) const;
  // w's queue-order timestamp is now, later than every other: it arrives
  // (`born`), or a check evicts it (`requeued`). Only where the queue order
  // moves (AdmissionParams::queue_order_moves).
  void stamp_born(XState& s, int w) const;
  void stamp_requeued(XState& s, int w) const;
  // The same for a victim preempted with reason InCohortReclaimWhileBorrowing
  // (PrioritySortingWithinCohort off), marked `reclaimed` while its pods terminate.
  void stamp_reclaimed(XState& s, int w) const;
  // A PodsReady timeout evicted it: stamped by the eviction; where
  // requeuingStrategy.timestamp is Creation, marked kRequeuedInCreationOrder
  // while its pods are `terminating`, else not stamped.
  void stamp_timed_out(XState& s, int w, bool terminating) const;
  // The initial state's timeline, where the dump has workloads a PodsReady
  // timeout or a check evicted (WorkloadParams::evicted_at).
  void stamp_dumped_evictions(XState& s) const;
  // The initial state of each Pod group the dump caught halfway through its
  // eviction (WorkloadParams::initial_evicted), once reserved and stamped.
  void resume_dumped_evictions(XState& s) const;
  // w's eviction time no longer orders it (it reserved quota again, or left
  // for good); `gone`: its creation does not either.
  void unstamp(XState& s, int w, bool gone) const;
  // Quota changes in the state: admission, release (eviction completed or
  // finished), each moving the holders' order and, on release, requeueing
  // the inadmissible workloads of the cohort tree.
  // A workload whose checks apply in f waits for them QuotaReserved, else it is Admitted.
  // `landed` false: the scheduler's patch is in flight (`writing`); the API object
  // keeps its queue-order timestamp until it lands (land()).
  void reserve(XState& s, int w, int f, bool landed = true) const;
  // w's admission patch reached the API server (and its job starts, if Admitted).
  void land(XState& s, int w) const;
  // w is Admitted in the API server: its job starts, with its pods late while
  // they may be and a PodsReady timeout may still fire; else ready at once
  // (time is abstract).
  void start_job(XState& s, int w) const;
  // requeue: false inside a cycle, which requeues once at its end.
  void release(XState& s, int w, bool requeue = true) const;
  // w, Admitted or QuotaReserved, is evicted: resetChecksOnEviction sets every
  // check Pending, and a Ready check's retryCount goes with it (a Pending
  // one's stays; a Retry one's grows, which kProvisioningFailed does). Call
  // before release(), while w's flavor says which checks it waits for.
  void reset_checks_on_eviction(XState& s, int w) const;
  // The parked workloads of the cohort tree of `node` (a ClusterQueue's, or Q + a cohort's).
  void requeue_tree(XState& s, int node) const;
  // ClusterQueue cq's status changed (a workload created, reserving or admitted): under a Cohort
  // object other than the root, the Cohort controller requeues the whole tree.
  void status_changed(XState& s, int cq) const;
  // One (flavor, resource) cell's index into [f * R + r] for workload w's resource r.
  std::vector<std::int64_t> usage_cells(int w, int f) const;

 private:
  bool preempts_while_borrowing(const CqParams& cq) const;
  // The entry the fair-sharing tournament pops next among `remaining` (§4.7).
  int tournament(const XState& s, const Snapshot& snap, const std::vector<int>& heads,
                 const std::vector<Assignment>& plans, std::vector<bool>& remaining) const;
  std::vector<int> fair_targets(const XState& s, const Snapshot& snap, int w,
                                const std::vector<int>& need,
                                const std::vector<std::int64_t>& usage,
                                const std::vector<bool>& gone) const;
  // CandidatesOrdering (§4.3) for the preemptor's ClusterQueue `home`.
  bool before(const XState& s, int home, int a, int b) const;
  void fill_back(const XState& s, Snapshot& sim, int home, const std::vector<std::int64_t>& usage,
                 bool allow_borrowing, std::vector<int>& chosen) const;
  // processEntry's updateAssignmentIfNeeded (cycle.cpp).
  Assignment replan(const XState& at, const Snapshot& snap, const std::vector<bool>& preempted,
                    int w, int flavor) const;
  bool fits_projected(const XState& at, const Snapshot& snap, const std::vector<bool>& preempted,
                      int w, const Assignment& a) const;
  bool fits_in(const Snapshot& snap, int cq, const std::vector<std::int64_t>& usage,
               bool allow_borrowing) const;
  std::vector<std::int64_t> reserve_cells(const Snapshot& snap, int w, const Assignment& a) const;

  const AdmissionParams& p_;
  const QuotaTree& tree_;
  // Some queue may be stopped or deleted: p_.any_stop() || p_.any_cq_deletions().
  bool stops_ = false;
  // p_.queue_order_moves(), read on every comparison of two waiting workloads.
  bool order_moves_ = false;
};

}  // namespace kmc::protocols::ka
