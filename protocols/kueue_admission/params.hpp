// The Kueue admission protocol's parameters (one cluster), compiled from a
// Scenario: plain numbers and names indexed densely, so the scheduling cycle
// does no lookups. Quantities are in Kueue's integer units (CPU in
// milli-units, everything else in base units: kueue-semantics.md §1.5).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/kueue_objects.hpp"
#include "model/scenario.hpp"

namespace kmc::protocols::ka {

class QuotaTree;

inline constexpr std::int64_t kNoLimit = -1;  // borrowingLimit / lendingLimit unset

enum class WithinCq { Never, LowerPriority, LowerOrNewerEqualPriority };
enum class Reclaim { Never, LowerPriority, Any };

// A node of the cohort tree: a ClusterQueue (leaf) or a Cohort. Quotas are
// per (flavor, resource), [f * R + r]; a CQ's flavors outside its resource
// group have nominal 0 and no limits, as Kueue's quota maps simply lack them.
struct QuotaNode {
  std::string name;
  int parent = -1;  // index into AdmissionParams::cohorts; -1: a root
  std::vector<std::int64_t> nominal, borrowing_limit, lending_limit;  // [f * R + r]
};

// An admission check of the ProvisioningRequest controller (kueue-semantics.md
// §5.3): a Workload that reserves quota in a flavor the check applies to is
// Admitted only once the Cluster Autoscaler provisions its request.
struct CheckParams {
  std::string name;  // the AdmissionCheck's
  // provisioningClassName check-capacity.autoscaling.x-k8s.io: the autoscaler
  // answers at once, Provisioned or Failed; it never leaves the request Accepted.
  bool check_capacity = false;
  int backoff_limit = 3;  // retryStrategy.backoffLimitCount: a failed attempt past it is Rejected
  std::vector<int> managed;  // managedResources; empty: every resource
  // check-capacity without parameters.noRetry "true": a request it finds no
  // room for is Provisioned=False, tried again later, never Failed
  // (model/provisioning_class.hpp).
  bool retries_later = false;
};

struct CqParams {
  QuotaNode quota;
  // The flavors of the resource group whose flavor the scheduler chooses (the
  // one group with several, else the first), in preference order.
  std::vector<int> flavors;
  std::vector<int> covered;  // resources the resource groups cover
  // [r]: a resource of another resource group, each of one flavor, always
  // takes that flavor; -1: the chosen flavor (the workload's `flavor`).
  std::vector<int> fixed_flavor;
  bool strict_fifo = false;
  WithinCq within = WithinCq::Never;
  Reclaim reclaim = Reclaim::Never;
  bool borrow_within_cohort = false;                // borrowWithinCohort.policy LowerPriority
  std::int64_t max_priority_threshold = INT64_MAX;  // unset: no threshold
  bool try_next_when_borrow = false;                // whenCanBorrow: TryNextFlavor
  bool try_next_when_preempt = true;                // whenCanPreempt: TryNextFlavor
  bool preemption_over_borrowing = false;           // preference: PreemptionOverBorrowing
  std::int64_t fair_weight_milli = 1000;            // spec.fairSharing.weight (default 1)
  // [f]: the admission checks (bits over AdmissionParams::checks) that apply to an
  // admission assigning flavor f, of any group, to some resource (onFlavors, or
  // every flavor of the queue).
  std::vector<std::int64_t> checks_on;
  model::StopPolicy stop = model::StopPolicy::None;  // spec.stopPolicy at the start
  // Some Cohort above it, other than the root, is an object (not only named by
  // a spec.cohortName): the Cohort controller reconciles it on each status
  // update of this queue (cohortCqHandler, ClusterQueueAncestors leaves the
  // root out) and requeues the tree's parked workloads, whether or not a
  // LocalQueue is stopped.
  bool cohort_object_above = false;
};

// A LocalQueue some workload is queued to.
struct LqParams {
  std::string name;                                  // "namespace/name"
  model::StopPolicy stop = model::StopPolicy::None;  // spec.stopPolicy at the start
  // Some Cohort above it, other than the root, is an object (not only named by
  // a spec.cohortName): the Cohort controller reconciles it on each status
  // update of this queue (cohortCqHandler, ClusterQueueAncestors leaves the
  // root out) and requeues the tree's parked workloads, whether or not a
  // LocalQueue is stopped.
  bool cohort_object_above = false;
};

// One (flavor, resource) quota as an edit sets it; nullopt keeps the value, and
// a limit set to kNoLimit is removed.
struct QuotaSet {
  int fr = 0;  // [f * R + r]
  std::optional<std::int64_t> nominal, borrowing_limit, lending_limit;
};

// kmc.yaml environment.queueEdits: an operator's edit of one queue, its
// stopPolicy, its quotas, or both (compile_queue_edits.cpp).
struct QueueEdit {
  bool local = false;  // a LocalQueue (index into local_queues); see `cohort`
  int queue = -1;
  // A queue's policy after the edit (its policy before, where the edit sets only quotas).
  model::StopPolicy policy = model::StopPolicy::None;
  std::vector<QuotaSet> quotas;  // a ClusterQueue's or Cohort's
  bool cohort = false;           // a Cohort (index into cohorts); neither: a ClusterQueue
  // The queue's deletion: a ClusterQueue's (cluster_queue_deletion.cpp), or a
  // Cohort's, whose `quotas` are then all 0 without limits (compile_queue_edits.cpp).
  bool deletes = false;
  // A LocalQueue's deletion: `policy` is Hold from then on, which is what Kueue
  // does to the workloads of a missing LocalQueue (compile_queue_edits.cpp).
  bool deletes_local = false;
  // The queue's creation: absent until now (stopPolicy Hold, and a
  // ClusterQueue without quota; a Cohort implicit: no quota, no limits, no
  // parent), it gets its manifest's policy and quotas (queue_creation.cpp).
  bool creates = false;
  int cohort_parent = -1;  // a Cohort's creation: its manifest's parent (index into cohorts)
  // False for an edit of a ClusterQueue or Cohort that sets what the spec
  // already says: the API server writes nothing, so Kueue gets no update
  // event (and its controllers act only on a changed spec: the ClusterQueue
  // controller's specUpdated, the Cohort controller's DeepEqual predicate).
  // Nothing is requeued (compile_queue_edits.cpp).
  bool spec_updated = true;
};

struct WorkloadParams {
  std::string name;  // "namespace/name"
  int cq = 0;
  int lq = -1;  // its LocalQueue (AdmissionParams::local_queues); -1: none with a stopPolicy
  std::int64_t priority = 0;
  std::int64_t created = 0;       // the queue-order timestamp (creationTimestamp)
  std::vector<std::int64_t> req;  // [r], total for all pods
  std::vector<bool> eligible;     // [f]: taints and node selectors allow the flavor
  bool pods = false;  // a pod group (the Pod integration): quota waits for its pods to terminate
  // Its namespace is not one its ClusterQueue's namespaceSelector selects: every
  // cycle that pops it parks it, whatever the queueing strategy (NamespaceMismatch).
  bool namespace_mismatch = false;
  int initial_flavor = -1;       // status.admission: already holding quota at the start
  std::int64_t reserved_at = 0;  // its QuotaReserved time, for the victim order
  // Its class under SchedulingEquivalenceHashing: workloads of one ClusterQueue
  // with the same class have the same scheduling hash (priority and pod sets),
  // so a BestEffortFIFO head that does not fit parks them all. -1: alike no other.
  int equivalence = -1;
  std::string scheduling_shape = {};  // what the hash reads, as compiled from the manifest
  // kmc.yaml environment.arrivals: absent at the start, created during the run.
  // Arrivals come in creationTimestamp order: this one only after `arrives_after`
  // (-1: the first), so the queue order the timestamps give is the order they came in.
  bool arrives = false;
  int arrives_after = -1;
  // kmc.yaml environment.deletions: a user may delete it (its job cancelled).
  bool deletable = false;
  // A pod group's re-adoption slot (K12): the Workload a restarted Kueue
  // before #15154 builds from the group's pods when they are all terminating
  // and their Workload is gone. Absent until then; `readopts` is the original.
  int readopts = -1;
  // [f]: the checks it waits for when it reserves quota with flavor f chosen: those
  // of its queue on a flavor assigned to what it requests, and whose ProvisioningRequest it needs
  // (reqIsNeeded: it requests a managed resource; otherwise the check is Ready at once).
  std::vector<std::int64_t> checks;
  // Its status at the start: checks Ready (bits) while QuotaReserved, not
  // Admitted; each check's retryCount.
  std::int64_t initial_ready = 0;
  bool initial_admitted = true;    // with initial_flavor: Admitted, not only QuotaReserved
  bool initial_pods_ready = true;  // PodsReady True in the dump (read where pods may be late)
  std::vector<std::int64_t> initial_retries;  // [check]
  // Waiting out a backoff in the dump (Requeued False after a PodsReady timeout
  // or a check's Retry, or a requeueState.requeueAt): it starts in Backoff. Only
  // while requeueAt is after the dump's time (model/dump_clock.hpp); one already
  // past is over, and the workload controller requeues it at once. With
  // initial_evicted and a flavor: the backoff its pods' end starts.
  bool initial_backoff = false;
  // The dump caught its eviction half done: Evicted while it still holds quota.
  // A Job's quota goes once the job reconciler has stopped it, which the model
  // takes as at once (as at any eviction of a Job): it starts without a flavor.
  // A running Pod group's goes once its pods are gone: it keeps initial_flavor
  // and starts Evicted (spec.cpp Spec::initial).
  bool initial_evicted = false;
  std::int64_t initial_requeues = 0;  // status.requeueState.count, at most backoffLimitCount
  // Pending in the dump, evicted by a PodsReady timeout or a check: it waits in
  // order of that eviction's time (GetQueueOrderTimestamp), not its creation. -1: none.
  std::int64_t evicted_at = -1;
  // With PrioritySortingWithinCohort off, evicted_at is a preemption with reason
  // InCohortReclaimWhileBorrowing: it waits from 1 ms after it, behind whatever
  // else that second holds.
  bool evicted_after = false;
  // The resource index of the `pods` Kueue adds to its requests where its
  // ClusterQueue covers them (add_implicit_pods); -1: none. Preemption chooses
  // victims without them (TotalRequestsFor), the admission counts them.
  int implicit_pods = -1;
};

// The name of a re-adoption slot: its original's, marked.
inline constexpr const char* kReadoptedSuffix = " (re-adopted)";

struct AdmissionParams {
  std::vector<std::string> resources, flavors;
  std::vector<CqParams> cqs;
  std::vector<QuotaNode> cohorts;         // parents before children is not required
  std::vector<WorkloadParams> workloads;  // in queue order: priority, then creation, then name
  std::vector<CheckParams> checks;        // the ProvisioningRequest checks of any ClusterQueue
  std::vector<LqParams> local_queues;
  std::vector<QueueEdit> queue_edits;  // in the order they are applied
  // [k][queue]: each ClusterQueue's and LocalQueue's stopPolicy once the first k
  // edits are applied (finish() derives them).
  std::vector<std::vector<model::StopPolicy>> cq_stop_after, lq_stop_after;
  // How the Cluster Autoscaler answers (kmc.yaml autoscaler.answer) a request of
  // a class other than check-capacity.
  model::AutoscalerAnswer answer = model::AutoscalerAnswer::Provisions;

  // Fair sharing (Configuration fairSharing; kueue-semantics.md §4.7), flat cohorts only.
  bool fair_sharing = false;
  std::vector<bool> fs_strategies;  // true: LessThanOrEqualToFinalShare (S2-a), false: S2-b
  bool integer_drs = false;         // before #6617: DRS in integers, 0 for small borrowers (K01)
  bool fs_preempt_within_nominal = true;  // FairSharingPreemptWithinNominal
  // PrioritySortingWithinCohort (beta, on): a cycle's entries and fair sharing's
  // tournament compare priorities before queue-order timestamps; off, they do
  // not, and a victim preempted with reason InCohortReclaimWhileBorrowing waits
  // from its preemption (GetQueueOrderTimestamp).
  bool priority_sorting_within_cohort = true;
  // Feature gates and options (kueue-semantics.md §0).
  bool fast_quota_release = false;  // FastQuotaReleaseInPodIntegration (alpha, off)
  // waitForPodsReady (on by default) with blockAdmission: a Fit admission waits
  // until every workload holding quota is PodsReady.
  bool block_admission = false;
  // environment.podsReadyTimeouts: waitForPodsReady evictions left to the
  // adversary; the workloads whose quota goes at eviction can time out.
  int pods_ready_timeouts = 0;
  // environment.admissionWriteFailures: the scheduler's admission patches that may
  // fail after it assumed the workload in its cache (scheduler.go admit's error path).
  int admission_write_failures = 0;
  // environment.evictionWriteFailures: the eviction patches of preemption victims
  // that may fail (IssuePreemptions' error path): the victim keeps running.
  int eviction_write_failures = 0;
  // environment.lateAdmissionWrites: times an admission patch still in flight
  // lands after a later cycle's eviction of the workload, overwriting its
  // Evicted condition (kubernetes-sigs/kueue#11480): the victim runs on.
  int late_admission_writes = 0;
  // #11502: the admission goroutine satisfies the workload's preemption
  // expectation once its patch landed, so a lost eviction is issued again.
  // The variant pre-11502 turns it off: the expectation waits for an eviction
  // the scheduler will never see (cell `expecting`).
  bool satisfy_expectation_on_admission = true;
  // environment.podFailures (blockAdmission only): a running job's ready pods
  // may fail that many times (PodsReady False, WaitForRecovery).
  int pod_failures = 0;
  // environment.capacityRevocations: the autoscaler may revoke the Provisioned
  // request of an Admitted workload that many times (-1 compiles to one per workload).
  int capacity_revocations = 0;
  // waitForPodsReady.recoveryTimeout above 0: a job waiting for recovery may be
  // timed out (0s turns the recovery timeout off).
  bool recovery_times_out = true;
  // waitForPodsReady.requeuingStrategy.backoffLimitCount; -1: nil (requeued forever).
  int pods_ready_limit = -1;
  // waitForPodsReady.requeuingStrategy.timestamp Creation: a workload a PodsReady timeout
  // evicted waits by its creation, not by the eviction (GetQueueOrderTimestamp).
  bool timeout_requeue_by_creation = false;
  bool sticky_head = true;  // #7157; the variant pre-7157 turns it off
  // PrioritizePreemptorWorkloads (alpha, off by default): a ClusterQueue's
  // preemptor (StrictFIFO too, in the sticky cell) goes first in the cycle and
  // keeps its quota when its victims are already going.
  bool prioritize_preemptors = false;
  bool force_fail_stuck_pods = true;      // #7312 (FailureRecoveryPolicy); pre-7312 turns it off
  bool recompute_on_overlap = true;       // RecomputeAssignmentUponPreemptionTargetsOverlap
  bool broken_skip_cohort_limit = false;  // deliberately broken: must be caught
  bool equivalence_hashing = true;        // SchedulingEquivalenceHashing (on by default)
  bool recheck_in_cycle = true;  // #805: entries re-checked against the cycle so far (pre-805: off)
  // #2641 (MultiplePreemptions, v0.8): several preemptions per cohort and cycle. Off (pre-2641):
  // one preemptor or admission per cohort per cycle, in-flight preemptions included (K11).
  bool multiple_preemptions = true;
  // Before #15154 (Kueue 0.18/0.19 patches, September 2026) a restarted Kueue
  // builds a new Workload for a pod group whose pods are all terminating and
  // whose Workload is gone (K12); since, it finalizes the pods instead.
  bool readopt_terminating_groups = false;
  int stuck_terminating = 0;    // environment budget: victims whose pods get stuck (kubelet lost)
  int controller_restarts = 0;  // environment budget: Kueue restarts (-1: unlimited)
  model::Warnings warnings;
  // kmc.yaml's own properties, checked beside the protocol's (model/user_properties.hpp).
  std::vector<model::UserPropertySpec> user_properties;
  // The cohort tree's constant quantities, derived once from the above by
  // compile_admission (or by finish() for parameters built by hand).
  std::shared_ptr<const QuotaTree> tree;
  // [tree_slot(k, removed)]: the tree after the first k queue edits, with the
  // deleted ClusterQueues of mask `removed` gone, where some edit sets quotas or
  // deletes a ClusterQueue (quota_edits.cpp).
  std::vector<std::shared_ptr<const QuotaTree>> trees_after;
  bool any_quota_edits() const { return !trees_after.empty(); }
  std::size_t tree_slot(int edits, int removed) const {
    return (static_cast<std::size_t>(edits) << deleted_cqs.size()) |
           static_cast<std::size_t>(removed);
  }
  // [cq]: the index of the edit that deletes it, or -1; the index of the edit
  // that creates it again once it is gone, or -1; and the deleted ClusterQueues
  // in the order of their deletions: bit i of a removal mask is deleted_cqs[i]
  // (cluster_queue_deletion.cpp).
  std::vector<int> deleted_at, recreated_at, deleted_cqs;
  bool any_cq_deletions() const { return !deleted_cqs.empty(); }
  void finish();
  void finish_stops();        // cq_stop_after, lq_stop_after (stop_policy.cpp)
  void finish_quota_edits();  // deleted_at, recreated_at, deleted_cqs, trees_after

  int R() const { return static_cast<int>(resources.size()); }
  int F() const { return static_cast<int>(flavors.size()); }
  int Q() const { return static_cast<int>(cqs.size()); }
  int C() const { return static_cast<int>(cohorts.size()); }
  int W() const { return static_cast<int>(workloads.size()); }
  int fr(int f, int r) const { return f * R() + r; }
  // The cell that resource r of a workload of ClusterQueue cq with flavor f uses.
  int cell(int cq, int f, int r) const {
    const auto& fixed = cqs[static_cast<std::size_t>(cq)].fixed_flavor;
    const int x = fixed.empty() ? -1 : fixed[static_cast<std::size_t>(r)];
    return fr(x >= 0 ? x : f, r);
  }
  bool any_arrivals() const;
  bool any_checks() const { return !checks.empty(); }
  // The checks of cq on every flavor of its resource groups: those a workload
  // keeps without an admission (AdmissionChecksForWorkload; compile_checks.cpp).
  std::int64_t checks_on_every_flavor(int cq) const;
  // Some workload can be evicted for a retry after a backoff (a check, a PodsReady timeout).
  bool any_requeue() const { return any_checks() || pods_ready_timeouts > 0 || dumped_requeues; }
  // With PrioritySortingWithinCohort off, some victim can be preempted with reason
  // InCohortReclaimWhileBorrowing (classical preemption, a ClusterQueue in a cohort
  // that reclaims with borrowWithinCohort) and then waits from that preemption.
  bool victims_queue_from_preemption() const;
  // Some workload's place in its queue can move off its creation (queue_order.cpp):
  // the timeline cells `requeued` and `born` exist.
  bool queue_order_moves() const { return any_requeue() || victims_queue_from_preemption(); }
  // A workload in backoff can be pushed into its heap before it ends (kQueuedInBackoff):
  // by a restart, or by an edit that adds a LocalQueue or ClusterQueue or resumes one.
  bool may_push_in_backoff() const {
    return any_requeue() && (controller_restarts != 0 || any_queue_edits());
  }
  // Some workload of the dump is in backoff or ordered by its eviction (initial_backoff,
  // evicted_at).
  bool dumped_requeues = false;
  // Some Pod group starts Evicted (initial_evicted), ordered by its eviction, with
  // its backoff over: its pods' end returns it to its queue (State::reclaimed).
  bool dumped_requeues_at_once = false;
  // Some Pod group starts Evicted, waits by its creation, and has a backoff ahead:
  // marked kRequeuedInCreationOrder while its pods terminate (as a timeout's with
  // requeuingStrategy.timestamp Creation).
  bool dumped_backoff_by_creation = false;
  bool marks_creation_order() const {
    return timeout_requeue_by_creation || dumped_backoff_by_creation;
  }
  // The cell `reclaimed` exists: for victims_queue_from_preemption() or a dump's
  // Pod group of dumped_requeues_at_once.
  bool tracks_reclaimed() const {
    return dumped_requeues_at_once || victims_queue_from_preemption();
  }
  // The earliest evicted_at; -1: none. Workloads created from then on are on the
  // queue-order timeline (State::born) from the start (queue_order.cpp).
  std::int64_t earliest_dumped_eviction() const;
  bool born_on_timeline(int w) const;
  // requeueState.count is tracked where a backoffLimitCount can stop the timeouts.
  bool counts_requeues() const { return pods_ready_timeouts > 0 && pods_ready_limit >= 0; }
  // The budget cell of podsReadyTimeouts (after stuckTerminating and controllerRestarts).
  int budget_timeouts() const { return controller_restarts != 0 ? 2 : 1; }
  // The budget cell of admissionWriteFailures (after the three above, where present).
  int budget_write_failures() const {
    return budget_timeouts() + (pods_ready_timeouts > 0 ? 1 : 0);
  }
  bool writes_may_fail() const { return admission_write_failures > 0; }
  // The budget cell of evictionWriteFailures (after the four above, where present).
  int budget_eviction_failures() const {
    return budget_write_failures() + (writes_may_fail() ? 1 : 0);
  }
  bool evictions_may_fail() const { return eviction_write_failures > 0; }
  // The budget cell of podFailures (after the five above, where present).
  int budget_pod_failures() const {
    return budget_eviction_failures() + (evictions_may_fail() ? 1 : 0);
  }
  // The budget cell of queueEdits (after the six above, where present): the edits not applied.
  int budget_queue_edits() const { return budget_pod_failures() + (pods_may_fail() ? 1 : 0); }
  bool any_queue_edits() const { return !queue_edits.empty(); }
  // The budget cell of capacityRevocations (after the seven above, where present).
  int budget_revocations() const { return budget_queue_edits() + (any_queue_edits() ? 1 : 0); }
  bool revocations() const { return capacity_revocations > 0; }
  // The budget cell of lateAdmissionWrites (after the eight above, where present).
  int budget_late_writes() const { return budget_revocations() + (revocations() ? 1 : 0); }
  bool late_writes() const { return late_admission_writes > 0; }
  // An admission patch may be in flight (cell `writing`): it may fail, or land late.
  bool patches_in_flight() const { return writes_may_fail() || late_writes(); }
  // The state keeps the preemption expectations an overwritten eviction left
  // unsatisfied (cell `expecting`): only before #11502.
  bool tracks_expectations() const { return late_writes() && !satisfy_expectation_on_admission; }
  // CapacityRevoked may happen to w: it needs some check's ProvisioningRequest. Its quota goes
  // at once, a pod group's too: the cache drops a deactivated workload.
  bool may_be_revoked(int w) const;
  // Some queue is stopped at some point of some run.
  bool any_stop() const;
  // Some queue drains (HoldAndDrain) at some point of some run.
  bool any_drain() const;
  // Where blockAdmission reads it, a running job's ready pods may fail.
  bool pods_may_fail() const { return block_admission && pod_failures > 0; }
  // The state keeps whether a job's pods are ready (cell `unready`: 1 not yet
  // started, 2 waiting for recovery).
  bool tracks_unready() const { return pods_may_be_late() || pods_may_fail(); }
  // Where blockAdmission reads PodsReady and a timeout may still fire, an
  // admitted job's pods may be late (state cell `unready`) until PodsReady(w).
  bool pods_may_be_late() const { return block_admission && pods_ready_timeouts > 0; }
  // A PodsReady timeout may evict w: its quota goes at once (a Job, a lone
  // Pod, or FastQuotaReleaseInPodIntegration), or once its pods are gone (a pod group).
  bool may_time_out(int) const { return pods_ready_timeouts > 0; }
  // An evicted w holds its quota until its pods are gone.
  bool holds_until_pods_gone(int w) const { return workloads[w].pods && !fast_quota_release; }
  int K() const { return static_cast<int>(checks.size()); }
  // Whether the autoscaler may answer check k's request Provisioned, or Failed
  // (BookingExpired too, before admission). Neither: Accepted, never answered.
  bool may_provision(int k) const;
  bool may_fail(int k) const;
  bool any_deletions() const;
  // The re-adoption slot of workload w, -1 when it has none.
  int readoption_of(int w) const;
  bool preemption_configured() const;
  // Whether every preemption leaves a mark in some state, so that the guard
  // some-preemption can be decided on states: the preemptor stays at its
  // BestEffortFIFO queue's head (#7157), or every victim's pods terminate, or
  // every Job workload held its quota from the start (and shows preempted
  // back in its queue).
  bool preemption_observable() const;
  // Why the guard some-preemption cannot be checked here; empty where it can.
  std::string some_preemption_unchecked() const;
};

// Named variants (kmc.yaml options.variant): historical Kueue behaviours and
// deliberately broken ones that the properties must catch.
const std::vector<std::string>& admission_variants();

// Throws model::InputError (file, line, field) for what the protocol cannot
// model or what Kueue would reject (a cohort cycle, a negative quota).
AdmissionParams compile_admission(const model::Scenario& scenario);

}  // namespace kmc::protocols::ka
