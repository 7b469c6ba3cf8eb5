#include "protocols/kueue_admission/spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "model/fingerprint.hpp"

namespace kmc::protocols::ka {

namespace {

using model::FieldKind;

enum Family : int {
  kScheduler,
  kPodTermination,
  kCompletion,
  kFaults,
  kArrivals,
  kDeletions,
  kAutoscaler,
  kRequeue,
  kApiServer,
  kPodStartup,
  kQueueEdits,
  kWorkloadController,
  kClusterQueueController,
};

model::Field field(const char* name, std::vector<int> axes, FieldKind kind, std::int64_t lo,
                   std::int64_t hi) {
  model::Field f;
  f.name = name, f.axes = std::move(axes), f.kind = kind, f.lo = lo, f.hi = hi;
  return f;
}

// The usage a ClusterQueue's (flavor, resource) cell can reach: sums of its
// workloads' requests, so multiples of their greatest common divisor.
// Whether a workload of ClusterQueue cq may hold quota in cell (f, r): f is
// a flavor the scheduler chooses from, or the one flavor of r's other group.
bool has_cell(const AdmissionParams& p, int cq, int f, int r) {
  const auto& q = p.cqs[cq];
  if (!q.fixed_flavor.empty() && q.fixed_flavor[r] >= 0) return q.fixed_flavor[r] == f;
  return std::find(q.flavors.begin(), q.flavors.end(), f) != q.flavors.end();
}

model::CellRange usage_range(const AdmissionParams& p, int cq, int f, int r) {
  if (!has_cell(p, cq, f, r)) return {0, 0, 1};
  // A one-flavor group's cell takes every workload's request (one that may
  // not use that flavor has no eligible flavor to choose either).
  const auto& fixed = p.cqs[cq].fixed_flavor;
  const bool every = !fixed.empty() && fixed[r] == f;
  std::int64_t sum = 0, step = 0;
  for (const auto& w : p.workloads)
    if (w.cq == cq && (every || w.eligible[f])) sum += w.req[r], step = std::gcd(step, w.req[r]);
  return {0, sum, step == 0 ? 1 : step};
}

}  // namespace

model::Layout Spec::layout(const Params& p) {
  model::Layout l;
  std::vector<std::string> workloads, cqs;
  for (const auto& w : p.workloads) workloads.push_back(w.name);
  for (const auto& q : p.cqs) cqs.push_back(q.quota.name);
  l.axes = {{"workload", workloads, -1, {}, 0},
            {"clusterQueue", cqs, -1, {}, 0},
            {"flavor", p.flavors, -1, {}, 0},
            {"resource", p.resources, -1, {}, 0},
            {"budget", {"stuckTerminating"}, -1, {}, 0},
            {"admissionCheck", {}, -1, {}, 0},
            {"scheduler", {"kueue-scheduler"}, -1, {}, 0}};
  for (const auto& c : p.checks) l.axes[kAxisCheck].labels.push_back(c.name);
  if (p.controller_restarts != 0) l.axes[kAxisBudget].labels.push_back("controllerRestarts");
  if (p.pods_ready_timeouts > 0) l.axes[kAxisBudget].labels.push_back("podsReadyTimeouts");
  if (p.writes_may_fail()) l.axes[kAxisBudget].labels.push_back("admissionWriteFailures");
  if (p.evictions_may_fail()) l.axes[kAxisBudget].labels.push_back("evictionWriteFailures");
  if (p.pods_may_fail()) l.axes[kAxisBudget].labels.push_back("podFailures");
  if (p.any_queue_edits()) l.axes[kAxisBudget].labels.push_back("queueEdits");
  if (p.revocations()) l.axes[kAxisBudget].labels.push_back("capacityRevocations");
  if (p.late_writes()) l.axes[kAxisBudget].labels.push_back("lateAdmissionWrites");
  // Absent is in the range only where some workload arrives during the run,
  // the deleted phases (and Absent, for re-adoption slots) where one may be deleted.
  const Phase last = p.may_push_in_backoff() ? kQueuedInBackoff
                     : p.any_requeue()       ? kDeactivated
                     : p.any_deletions()     ? kOrphanedStuck
                     : p.any_arrivals()      ? kAbsent
                                             : kFinished;
  auto phase = field("phase", {kAxisWorkload}, FieldKind::Enum, kPending, last);
  for (int v = kPending; v <= last; ++v) phase.names.push_back(phase_name(v));
  auto flavor = field("flavor", {kAxisWorkload}, FieldKind::Index, -1, p.F() - 1);
  flavor.index_axis = kAxisFlavor;
  auto rank = field("rank", {kAxisWorkload}, FieldKind::Int, -1, p.W() - 1);
  // Per cell, precomputed: the layout outlives no parameters it captures.
  std::vector<model::CellRange> ranges;
  std::vector<char> present;
  std::int64_t most = 0;
  for (int q = 0; q < p.Q(); ++q)
    for (int f = 0; f < p.F(); ++f)
      for (int r = 0; r < p.R(); ++r) {
        ranges.push_back(usage_range(p, q, f, r));
        present.push_back(has_cell(p, q, f, r));
        most = std::max(most, ranges.back().hi);
      }
  auto usage =
      field("usage", {kAxisClusterQueue, kAxisFlavor, kAxisResource}, FieldKind::Int, 0, most);
  const int F = p.F(), R = p.R();
  auto cell = [F, R](const std::vector<int>& at) { return (at[0] * F + at[1]) * R + at[2]; };
  usage.range_of = [ranges, cell](const std::vector<int>& at) { return ranges[cell(at)]; };
  usage.present = [present, cell](const std::vector<int>& at) { return present[cell(at)] != 0; };
  auto sticky = field("sticky", {kAxisClusterQueue}, FieldKind::Index, -1, p.W() - 1);
  sticky.index_axis = kAxisWorkload;
  // Cells that exist only under some parameters (two-phase admission's only
  // where some ClusterQueue has checks).
  auto only_if = [](bool on, model::Field f) {
    f.present = [on](const std::vector<int>&) { return on; };
    f.optional = true;
    return f;
  };
  const bool checks = p.any_checks(), requeues = p.queue_order_moves();
  auto only_with_checks = [&](model::Field f) { return only_if(checks, std::move(f)); };
  auto ready = only_with_checks(
      field("ready", {kAxisWorkload}, FieldKind::Int, 0, 2 * retry_hold_bit(p.K()) - 1));
  int most_retries = 0;
  for (const auto& c : p.checks) most_retries = std::max(most_retries, c.backoff_limit);
  auto retries = field("retries", {kAxisWorkload, kAxisCheck}, FieldKind::Int, 0, most_retries);
  retries.optional = true;
  // At most one point per workload on each of the two timelines, ranked densely.
  auto requeued =
      only_if(requeues, field("requeued", {kAxisWorkload}, FieldKind::Int,
                              p.marks_creation_order() ? kRequeuedInCreationOrder : kNotRequeued,
                              2 * std::int64_t{p.W()} - 1));
  auto born = only_if(
      requeues, field("born", {kAxisWorkload}, FieldKind::Int, -1, 2 * std::int64_t{p.W()} - 1));
  std::vector<char> dated;  // arrivals, and those created after a dumped eviction
  for (int w = 0; w < p.W(); ++w) dated.push_back(p.born_on_timeline(w));
  born.present = [requeues, dated](const std::vector<int>& at) {
    return requeues && dated[at[0]] != 0;
  };
  // The entry the sleeping goroutine holds, and its flavor (Scheduler::block).
  auto blocked = only_if(p.block_admission, field("blocked", {kAxisScheduler}, FieldKind::Enum, 0,
                                                  std::int64_t{p.W()} * p.F()));
  blocked.names = {"none"};
  for (int w = 0; w < p.W(); ++w)
    for (int f = 0; f < p.F(); ++f)
      blocked.names.push_back(fmt::format("{} in {}", p.workloads[w].name, p.flavors[f]));
  auto requeue_count = only_if(
      p.counts_requeues(),
      field("requeues", {kAxisWorkload}, FieldKind::Int, 0, std::max(p.pods_ready_limit + 1, 0)));
  auto writing =
      only_if(p.patches_in_flight(), field("writing", {kAxisWorkload}, FieldKind::Int, 0, 1));
  auto expecting =
      only_if(p.tracks_expectations(), field("expecting", {kAxisWorkload}, FieldKind::Int, 0, 1));
  auto unready = only_if(p.tracks_unready(),
                         field("unready", {kAxisWorkload}, FieldKind::Int, 0, kRecovering));
  auto before_edit =
      only_if(p.any_quota_edits(), field("before_edit", {kAxisWorkload}, FieldKind::Int, 0, 1));
  // Only Pod groups: a Job's quota goes at its eviction, so it never terminates evicted.
  auto reclaimed =
      only_if(p.tracks_reclaimed(), field("reclaimed", {kAxisWorkload}, FieldKind::Int, 0, 1));
  std::vector<char> groups;
  for (int w = 0; w < p.W(); ++w) groups.push_back(p.holds_until_pods_gone(w));
  reclaimed.present = [on = p.tracks_reclaimed(), groups](const std::vector<int>& at) {
    return on && groups[at[0]] != 0;
  };
  auto deletion = field("deletion", {kAxisClusterQueue}, FieldKind::Enum, kCqInCache, kCqGone);
  deletion.names = {"InCache", "Terminating", "Gone"};
  deletion.optional = true;
  deletion.present = [deleted = p.deleted_at](const std::vector<int>& at) {
    const auto q = static_cast<std::size_t>(at[0]);
    return q < deleted.size() && deleted[q] >= 0;
  };
  const auto budget = field(
      "budget", {kAxisBudget}, FieldKind::Int, 0,
      std::max({p.stuck_terminating, p.controller_restarts, p.pods_ready_timeouts,
                p.admission_write_failures, p.eviction_write_failures,
                p.pods_may_fail() ? p.pod_failures : 0, static_cast<int>(p.queue_edits.size()),
                p.capacity_revocations, p.late_admission_writes, 0}));
  l.fields = {phase,   flavor,  rank,        usage,    sticky,    budget,
              ready,   retries, requeued,    born,     blocked,   requeue_count,
              writing, unready, before_edit, deletion, expecting, reclaimed};
  // The scheduler and the pods' termination are weakly fair by default; jobs
  // may run forever, faults are the adversary's, and so is when (whether) a workload arrives.
  // The autoscaler answers when it will (kmc.yaml fairness: {autoscaler: ...}, as
  // for MultiKueue); a backoff's requeueAt is a timer, so it passes. The API
  // server answers a write it was sent (whether it fails is the faults'), and a
  // started job's pods become ready unless a PodsReady timeout comes first.
  l.families = {{"scheduler", 1},
                {"pod-termination", 1},
                {"completion", 0},
                {"faults", 0},
                {"arrivals", 0},
                {"deletions", 0},
                {"autoscaler", 0},
                {"backoff", 1},
                {"api-server", 1},
                {"pod-startup", 1},
                {"queue-edits", 0},
                {"workload-controller", 1},
                {"clusterqueue-controller", 1}};
  const model::ActionKind::Arg workload{"workload", kAxisWorkload};
  const model::ActionKind::Arg check{"admissionCheck", kAxisCheck};
  const model::ActionKind::Arg cluster_queue{"clusterQueue", kAxisClusterQueue};
  l.actions = {
      {"Schedule", {}, kScheduler, "kueue-scheduler"},
      {"Finish", {workload}, kCompletion, "workload"},
      {"PodsTerminated", {workload}, kPodTermination, "kubelet"},
      {"KubeletLost", {workload}, kFaults, "environment"},
      {"ForceFailStuckPods", {workload}, kPodTermination, "kueue-controller"},
      {"ControllerRestart", {}, kFaults, "environment"},
      {"Arrive", {workload}, kArrivals, "user"},
      {"Delete", {workload}, kDeletions, "user"},
      {"Provisioned", {workload, check}, kAutoscaler, "cluster-autoscaler"},
      {"ProvisioningFailed", {workload, check}, kAutoscaler, "cluster-autoscaler"},
      {"BackoffExpired", {workload}, kRequeue, "kueue-controller"},
      {"PodsReadyTimeout", {workload}, kFaults, "kueue-controller"},
      {"AdmissionWritten", {workload}, kApiServer, "kube-apiserver"},
      {"AdmissionWriteFailed", {workload}, kFaults, "kube-apiserver"},
      {"PodsReady", {workload}, kPodStartup, "kubelet"},
      {"EvictionWriteFailed", {workload}, kFaults, "kube-apiserver"},
      {"PodFailed", {workload}, kFaults, "kubelet"},
      {"QueueEdited", {}, kQueueEdits, "user"},
      {"QueueStopped", {workload}, kWorkloadController, "kueue-controller"},
      {"CapacityRevoked", {workload, check}, kFaults, "cluster-autoscaler"},
      {"ClusterQueueFinalized", {cluster_queue}, kClusterQueueController, "kueue-controller"},
      {"ClusterQueueTerminating", {cluster_queue}, kClusterQueueController, "kueue-controller"},
      {"EvictionOverwritten", {workload}, kFaults, "kueue-scheduler"}};
  return l;
}

std::vector<Action> Spec::candidates(const Params& p) {
  std::vector<Action> out;
  auto add = [&](Kind k, int w, int check = -1, int cq = -1) {
    out.push_back(Action{k, static_cast<std::int16_t>(w), static_cast<int>(out.size()),
                         static_cast<std::int16_t>(check), static_cast<std::int16_t>(cq)});
  };
  add(kSchedule, -1);
  for (int w = 0; w < p.W(); ++w) {
    add(kFinish, w);
    if (p.workloads[w].deletable) add(kDelete, w);
    // A pod group's pods terminate after an eviction (unless its quota goes at
    // once, FastQuotaReleaseInPodIntegration) and after a deletion.
    if (!p.workloads[w].pods || (p.fast_quota_release && !p.workloads[w].deletable)) continue;
    add(kPodsTerminated, w);
    if (p.stuck_terminating > 0) add(kKubeletLost, w);
    if (p.stuck_terminating > 0 && p.force_fail_stuck_pods) add(kForceFail, w);
  }
  if (p.controller_restarts != 0) add(kRestart, -1);
  for (int w = 0; w < p.W(); ++w)
    if (p.workloads[w].arrives) add(kArrive, w);
  for (int w = 0; w < p.W(); ++w) {
    std::int64_t any = 0;
    for (auto m : p.workloads[w].checks) any |= m;
    for (int k = 0; k < p.K(); ++k)
      if (any >> k & 1) {
        if (p.may_provision(k)) add(kProvisioned, w, k);
        add(kProvisioningFailed, w, k);  // BookingExpired too, whatever the autoscaler says
      }
    if (p.may_time_out(w)) add(kPodsReadyTimeout, w);
    if (p.tracks_unready()) add(kPodsReady, w);
    if (p.pods_may_fail()) add(kPodFailed, w);
    if (any != 0 || p.may_time_out(w) || p.workloads[w].initial_backoff) add(kBackoffExpired, w);
  }
  for (int w = 0; w < p.W() && p.patches_in_flight(); ++w) {
    add(kAdmissionWritten, w);
    if (p.writes_may_fail()) add(kAdmissionWriteFailed, w);
  }
  if (p.evictions_may_fail())
    for (int w = 0; w < p.W(); ++w) add(kEvictionWriteFailed, w);
  if (p.any_queue_edits()) add(kQueueEdited, -1);
  if (p.any_stop())
    for (int w = 0; w < p.W(); ++w) add(kQueueStopped, w);
  for (int cq : p.deleted_cqs)
    add(kClusterQueueTerminating, -1, -1, cq), add(kClusterQueueFinalized, -1, -1, cq);
  for (int w = 0; w < p.W(); ++w) {
    if (!p.may_be_revoked(w)) continue;
    std::int64_t any = 0;
    for (auto m : p.workloads[w].checks) any |= m;
    for (int k = 0; k < p.K(); ++k)
      if (any >> k & 1) add(kCapacityRevoked, w, k);
  }
  if (p.late_writes())
    for (int w = 0; w < p.W(); ++w) add(kEvictionOverwritten, w);
  return out;
}

State<std::int64_t> Spec::initial(const Params& p) {
  State<std::int64_t> s;
  s.phase.assign(p.W(), kPending);
  for (int w = 0; w < p.W(); ++w)
    if (p.workloads[w].arrives || p.workloads[w].readopts >= 0) s.phase[w] = kAbsent;
  s.flavor.assign(p.W(), -1);
  s.rank.assign(p.W(), -1);
  s.usage.assign(static_cast<std::size_t>(p.Q()) * p.F() * p.R(), 0);
  s.sticky.assign(p.Q(), -1);
  s.budget = {std::max(p.stuck_terminating, 0)};
  if (p.controller_restarts != 0) s.budget.push_back(std::max(p.controller_restarts, 0));
  if (p.pods_ready_timeouts > 0) s.budget.push_back(p.pods_ready_timeouts);
  if (p.writes_may_fail()) s.budget.push_back(p.admission_write_failures);
  if (p.evictions_may_fail()) s.budget.push_back(p.eviction_write_failures);
  if (p.pods_may_fail()) s.budget.push_back(p.pod_failures);
  if (p.any_queue_edits()) s.budget.push_back(static_cast<std::int64_t>(p.queue_edits.size()));
  if (p.revocations()) s.budget.push_back(p.capacity_revocations);
  if (p.late_writes()) s.budget.push_back(p.late_admission_writes);
  // Workloads the manifests show holding quota, in the order they got it.
  std::vector<int> holders;
  for (int w = 0; w < p.W(); ++w)
    if (p.workloads[w].initial_flavor >= 0) holders.push_back(w);
  std::stable_sort(holders.begin(), holders.end(), [&](int a, int b) {
    return p.workloads[a].reserved_at < p.workloads[b].reserved_at;
  });
  s.ready.assign(p.W(), 0);
  // A workload without a reservation keeps the states of its checks on every
  // flavor (syncAdmissionCheckConditions): Ready ones from an unset reservation.
  if (p.any_checks())
    for (int w = 0; w < p.W(); ++w)
      if (p.workloads[w].initial_flavor < 0 && !p.workloads[w].arrives)
        s.ready[w] = p.workloads[w].initial_ready & p.checks_on_every_flavor(p.workloads[w].cq);
  s.retries.assign(static_cast<std::size_t>(p.W()) * p.K(), 0);
  for (int w = 0; w < p.W(); ++w)
    for (int k = 0; k < p.K(); ++k)
      s.retries[static_cast<std::size_t>(w) * p.K() + k] = p.workloads[w].initial_retries.at(k);
  s.requeued.assign(p.W(), kNotRequeued);
  s.born.assign(p.W(), -1);
  s.blocked.assign(1, 0);
  s.requeues.assign(p.W(), 0);
  s.writing.assign(p.W(), 0);
  s.unready.assign(p.W(), 0);
  s.before_edit.assign(p.W(), 0);
  s.deletion.assign(p.Q(), kCqInCache);
  s.expecting.assign(p.W(), 0);
  s.reclaimed.assign(p.W(), 0);
  const Scheduler sched(p);
  // Evicted by a PodsReady timeout or a check in the dump: in backoff, its
  // PodsReady timeouts counted, ordered by the eviction's time.
  for (int w = 0; w < p.W(); ++w) {
    const auto& wl = p.workloads[w];
    if (wl.initial_backoff) s.phase[w] = kBackoff;
    if (p.counts_requeues())
      s.requeues[w] = std::min<std::int64_t>(wl.initial_requeues, p.pods_ready_limit);
  }
  for (int w : holders) {
    sched.reserve(s, w, p.workloads[w].initial_flavor);
    // QuotaReserved in the dump but not Admitted: still waiting for some check.
    if (s.phase[w] == kReserved && p.workloads[w].initial_admitted) s.phase[w] = kAdmitted;
    if (s.phase[w] == kReserved) s.ready[w] = p.workloads[w].initial_ready;
    // Its job runs; its pods are late unless the dump says PodsReady.
    s.unready[w] = 0;
    if (s.phase[w] == kAdmitted && !p.workloads[w].initial_pods_ready) sched.start_job(s, w);
  }
  // After the reservations, which unstamp (SetQuotaReservation resets the order).
  if (p.dumped_requeues) sched.stamp_dumped_evictions(s);
  sched.resume_dumped_evictions(s);
  // Queues stopped in the manifests: the workload controller has reconciled
  // their workloads by the time anything else happens (as the engine loads them).
  for (int w = 0; w < p.W(); ++w)
    if (sched.stop_acts(s, w)) sched.apply_stop(s, w);
  return s;
}

model::ActionRef Spec::ref(const Params&, const Action& a) {
  if (a.kind == kSchedule || a.kind == kRestart || a.kind == kQueueEdited) return {a.kind, {}};
  if (a.kind == kProvisioned || a.kind == kProvisioningFailed || a.kind == kCapacityRevoked)
    return {a.kind, {a.workload, a.check}};
  if (a.kind == kClusterQueueTerminating || a.kind == kClusterQueueFinalized)
    return {a.kind, {a.cq}};
  return {a.kind, {a.workload}};
}

std::uint64_t Spec::identity(const Params& p) {
  model::Hasher h;
  auto add = [&](const auto& v) { model::hash_append(h, v); };
  add(p.resources), add(p.flavors);
  auto node = [&](const QuotaNode& n) {
    add(n.name), add(n.nominal), add(n.borrowing_limit), add(n.lending_limit);
    add(std::vector<std::int64_t>{n.parent});
  };
  for (const auto& q : p.cqs) {
    node(q.quota);
    add(std::vector<std::int64_t>(q.flavors.begin(), q.flavors.end()));
    if (!q.fixed_flavor.empty())
      add(std::vector<std::int64_t>(q.fixed_flavor.begin(), q.fixed_flavor.end()));
    add(std::vector<std::int64_t>(q.covered.begin(), q.covered.end()));
    add(std::vector<std::int64_t>{
        q.strict_fifo, static_cast<std::int64_t>(q.within), static_cast<std::int64_t>(q.reclaim),
        q.borrow_within_cohort, q.max_priority_threshold, q.try_next_when_borrow,
        q.try_next_when_preempt, q.preemption_over_borrowing, q.fair_weight_milli});
  }
  for (const auto& c : p.cohorts) node(c);
  for (const auto& w : p.workloads) {
    add(w.name), add(w.req);
    add(std::vector<std::int64_t>(w.eligible.begin(), w.eligible.end()));
    add(std::vector<std::int64_t>{w.cq, w.priority, w.created, w.pods, w.initial_flavor,
                                  w.reserved_at});
  }
  add(std::vector<std::int64_t>{p.fast_quota_release, p.sticky_head, p.force_fail_stuck_pods,
                                p.recompute_on_overlap, p.broken_skip_cohort_limit,
                                p.recheck_in_cycle, p.stuck_terminating, p.fair_sharing,
                                p.integer_drs, p.fs_preempt_within_nominal});
  // Added with the variant, so the identity (and replay tokens) of others stays.
  if (!p.multiple_preemptions) add(std::string("pre-2641"));
  if (!p.priority_sorting_within_cohort) add(std::string("PrioritySortingWithinCohort off"));
  if (p.prioritize_preemptors) add(std::string("PrioritizePreemptorWorkloads"));
  if (p.controller_restarts != 0) add(std::vector<std::int64_t>{p.controller_restarts});
  if (p.any_arrivals())
    for (const auto& w : p.workloads) add(std::vector<std::int64_t>{w.arrives, w.arrives_after});
  if (p.any_deletions()) {
    for (const auto& w : p.workloads) add(std::vector<std::int64_t>{w.deletable, w.readopts});
    add(std::vector<std::int64_t>{p.readopt_terminating_groups});
  }
  if (p.any_checks()) {
    for (const auto& c : p.checks)
      add(c.name), add(std::vector<std::int64_t>{c.check_capacity, c.backoff_limit}),
          add(std::vector<std::int64_t>(c.managed.begin(), c.managed.end()));
    // Only where set, so that the ids of traces made before it stay valid.
    for (const auto& c : p.checks)
      if (c.retries_later) add(c.name + " retries later");
    for (const auto& q : p.cqs) add(q.checks_on);
    for (const auto& w : p.workloads)
      add(w.checks), add(w.initial_retries),
          add(std::vector<std::int64_t>{w.initial_ready, w.initial_admitted});
    add(std::vector<std::int64_t>{static_cast<std::int64_t>(p.answer)});
  }
  if (p.block_admission) add(std::string("blockAdmission"));
  if (p.dumped_requeues)
    for (const auto& w : p.workloads)
      add(w.evicted_after ? std::vector<std::int64_t>{w.initial_backoff, w.evicted_at, 0x726571, 1}
                          : std::vector<std::int64_t>{w.initial_backoff, w.evicted_at, 0x726571});
  for (const auto& w : p.workloads) {
    if (w.initial_evicted) add(w.name + " evicted halfway");
    if (w.namespace_mismatch) add(w.name + " NamespaceMismatch");
  }
  if (p.counts_requeues())
    for (const auto& w : p.workloads)
      if (w.initial_requeues != 0) add(w.name + " requeues " + std::to_string(w.initial_requeues));
  if (p.pods_may_be_late()) {
    add(std::string("pods-may-be-late"));
    for (const auto& w : p.workloads) add(std::vector<std::int64_t>{w.initial_pods_ready});
  }
  if (p.pods_ready_timeouts > 0)
    add(std::vector<std::int64_t>{p.pods_ready_timeouts, p.pods_ready_limit});
  if (p.writes_may_fail())
    add(std::vector<std::int64_t>{p.admission_write_failures, std::int64_t{0x77726974}});
  if (p.evictions_may_fail())
    add(std::vector<std::int64_t>{p.eviction_write_failures, std::int64_t{0x65766963}});
  if (p.pods_may_fail())
    add(std::vector<std::int64_t>{p.pod_failures, p.recovery_times_out, std::int64_t{0x706f64}});
  if (p.revocations())
    add(std::vector<std::int64_t>{p.capacity_revocations, std::int64_t{0x7265766f}});
  if (p.late_writes())
    add(std::vector<std::int64_t>{p.late_admission_writes, p.satisfy_expectation_on_admission,
                                  std::int64_t{0x6c617465}});
  if (p.any_quota_edits()) {
    std::vector<std::int64_t> quotas{0x71756f74};
    for (const auto& e : p.queue_edits) {
      quotas.insert(quotas.end(), {e.local, e.cohort, e.queue, static_cast<std::int64_t>(e.policy),
                                   static_cast<std::int64_t>(e.quotas.size())});
      if (e.deletes && e.cohort) quotas.push_back(0x64656c);  // a Cohort's deletion: no requeue
      if (e.creates) quotas.push_back(0x637265);              // a creation: replayed as one
      if (e.cohort && e.creates) quotas.push_back(e.cohort_parent);
      if (!e.spec_updated) quotas.push_back(0x6e6f70);  // unchanged: no requeue
      for (const auto& c : e.quotas)
        quotas.insert(quotas.end(), {c.fr, c.nominal.value_or(-2), c.borrowing_limit.value_or(-2),
                                     c.lending_limit.value_or(-2)});
    }
    add(quotas);
  }
  if (p.any_cq_deletions()) {
    std::vector<std::int64_t> deletions{0x64656c65};
    for (const auto& e : p.queue_edits) deletions.push_back(e.deletes ? e.queue : -1);
    add(deletions);
  }
  if (p.any_stop()) {
    std::vector<std::int64_t> stops{0x73746f70};
    for (const auto& q : p.cqs) stops.push_back(static_cast<std::int64_t>(q.stop));
    for (const auto& q : p.local_queues) stops.push_back(static_cast<std::int64_t>(q.stop));
    for (const auto& e : p.queue_edits) {
      stops.insert(stops.end(), {e.local, e.queue, static_cast<std::int64_t>(e.policy)});
      if (e.deletes_local) stops.push_back(0x6c71);  // a LocalQueue's deletion: replayed as one
      if (e.creates) stops.push_back(0x637265);
    }
    for (const auto& w : p.workloads) stops.push_back(w.lq);
    add(stops);
  }
  // Likewise the equivalence classes, only where some workload has an equal.
  std::vector<std::int64_t> eq;
  for (const auto& w : p.workloads) eq.push_back(w.equivalence);
  if (std::any_of(eq.begin(), eq.end(), [](std::int64_t e) { return e >= 0; })) add(eq);
  add(std::vector<std::int64_t>(p.fs_strategies.begin(), p.fs_strategies.end()));
  return model::mix64(h.h);
}

}  // namespace kmc::protocols::ka
