// Engine::schedule: Scheduler.schedule, processEntry and requeueAndUpdate.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "engine/controllers.hpp"
#include "engine/lookup.hpp"
#include "engine/scheduler.hpp"

namespace kmc::engine {

namespace {

struct Cycle {
  Engine& e;
  Snapshot snapshot;
  std::set<int> preempted;  // victims chosen so far this cycle
  CycleStats stats;
  bool blocked = false;  // blockAdmission stopped this cycle
  // Before #2641 only: per cohort (its root), what the cycle's entries
  // reserved (cycleCohortsUsage) and whether one preempted or was admitted
  // (cycleCohortsSkipPreemption), judged against the tree as the cycle began.
  std::map<int, FrUsage> cohort_usage{};
  std::set<int> skip_preemption{};
  std::optional<QuotaTree> start{};

  WorkloadInfo& wl(int id) { return e.workloads[static_cast<size_t>(id)]; }
  int node(int cq) const { return e.cluster_queues[static_cast<size_t>(cq)].node; }

  bool any_preempted(const std::vector<Target>& targets) const {
    for (const Target& t : targets) {
      if (preempted.contains(t.workload)) return true;
    }
    return false;
  }

  // scheduler.fits: the projected state without every victim chosen so far.
  bool fits(int cq, const FrUsage& usage, const std::vector<Target>& targets) {
    std::set<int> merged = preempted;
    for (const Target& t : targets) merged.insert(t.workload);
    for (int id : merged) snapshot.tree.remove_usage(node(wl(id).cluster_queue), wl(id).usage);
    bool ok = true;
    for (const auto& [fr, v] : usage) ok = ok && v <= snapshot.tree.available(node(cq), fr);
    for (int id : merged) snapshot.tree.add_usage(node(wl(id).cluster_queue), wl(id).usage);
    return ok;
  }

  // markSkipped: skipped on contention (capacity or victims another entry of
  // the cycle took). The flavor scan's progress is kept for the next cycle,
  // unless FlavorFungibilityPreserveScanProgress is off: then it starts over.
  void mark_skipped(Entry& en, WorkloadInfo& w) {
    en.status = EntryStatus::Skipped;
    if (!e.gate("FlavorFungibilityPreserveScanProgress")) w.last_assignment.reset();
  }

  void record(Entry& en, WorkloadInfo& w) {
    en.message = en.assignment.message();
    w.last_assignment = en.assignment.last;
  }

  FrUsage update_assignment_if_needed(Entry& en, bool& fits_out);
  bool one_preemption_per_cohort(Entry& en);
  void acted(int cq) {
    if (start) {
      const int n = node(cq);
      if (e.tree.has_parent(n)) skip_preemption.insert(e.tree.root_of(n));
    }
  }
  void process(Entry& en);
  bool block_for_pods_ready(Entry& en, WorkloadInfo& w);
  void issue_preemptions(Entry& en);
  FrUsage resources_to_reserve(const Entry& en);
};

FrUsage Cycle::update_assignment_if_needed(Entry& en, bool& fits_out) {
  FrUsage usage = en.assignment.usage;
  fits_out = fits(en.cq, usage, en.targets);
  if (!(any_preempted(en.targets) && e.gate("RecomputeAssignmentUponPreemptionTargetsOverlap")))
    return usage;
  WorkloadInfo& w = wl(en.workload);
  for (int id : preempted)
    snapshot.remove_workload(node(wl(id).cluster_queue), wl(id).cluster_queue, wl(id));
  w.last_assignment.reset();
  w.nomination_mapping.clear();
  for (const auto& ps : en.assignment.pod_sets) {
    std::map<std::string, std::string> m;
    for (const auto& [r, f] : ps.flavors) m[r] = f.flavor;
    w.nomination_mapping.push_back(std::move(m));
  }
  get_assignments(e, snapshot, w, en.assignment, en.targets);
  record(en, w);
  for (int id : preempted)
    snapshot.add_workload(node(wl(id).cluster_queue), wl(id).cluster_queue, wl(id));
  if (en.assignment.mode() == FlavorMode::Fit) en.assignment.forced_mode = FlavorMode::DeferredFit;
  usage = en.assignment.usage;
  fits_out = fits(en.cq, usage, en.targets);
  w.nomination_mapping.clear();
  return usage;
}

// processEntry before #2641: an entry of a cohort asking for a flavor and
// resource an earlier entry of the cycle asked for is skipped if it is a
// preemptor after an entry that preempted or was admitted, or if it fits no
// longer in the cohort's quota (FitInCohort, which ignored borrowing limits).
bool Cycle::one_preemption_per_cohort(Entry& en) {
  const int n = node(en.cq);
  if (!e.tree.has_parent(n)) return true;
  const int root = e.tree.root_of(n);
  FrUsage& cycle = cohort_usage[root];
  const FrUsage& usage = en.assignment.usage;
  const FlavorMode mode = en.assignment.mode();
  const bool common = std::any_of(usage.begin(), usage.end(),
                                  [&](const auto& fv) { return cycle.contains(fv.first); });
  if (common && mode == FlavorMode::Preempt && skip_preemption.contains(root)) {
    en.message =
        "Workload skipped because its preemption calculations were invalidated by another "
        "workload";
    return false;
  }
  if (common && mode == FlavorMode::Fit) {
    for (const auto& [fr, v] : usage) {
      const Amount free = amount_sub(start->subtree_quota(root, fr), start->usage(root, fr));
      if (free < amount_add(cycle[fr], v)) {
        en.message = "Workload no longer fits after processing another workload";
        return false;
      }
    }
  }
  const FrUsage reserve = mode == FlavorMode::Preempt ? resources_to_reserve(en) : usage;
  for (const auto& [fr, v] : usage) cycle[fr] = amount_add(cycle[fr], reserve.at(fr));
  return true;
}

// quotaResourcesToReserve for a Preempt entry without candidates.
FrUsage Cycle::resources_to_reserve(const Entry& en) {
  FrUsage out;
  const QuotaTree& t = snapshot.tree;
  const int n = node(en.cq);
  for (const auto& [fr, v] : en.assignment.usage) {
    if (en.assignment.borrowing > 0) {
      const auto& bl = t.node(n).borrowing_limit[static_cast<size_t>(fr)];
      out[fr] = bl ? std::min(v, amount_sub(amount_add(t.nominal(n, fr), *bl), t.usage(n, fr))) : v;
    } else {
      out[fr] = std::max<Amount>(0, std::min(v, amount_sub(t.nominal(n, fr), t.usage(n, fr))));
    }
  }
  return out;
}

std::string cq_path(const Engine& e, int cq) {
  std::string path;
  for (int n = e.cluster_queues[static_cast<size_t>(cq)].node; n >= 0; n = e.tree.node(n).parent) {
    path = "/" + e.tree.node(n).name + path;
  }
  return path;
}

std::string human_reason(const std::string& r) {
  if (r == "InClusterQueue") return "prioritization in the ClusterQueue";
  if (r == "InCohortReclamation") return "reclamation within the cohort";
  if (r == "InCohortFairSharing") return "Fair Sharing within the cohort";
  if (r == "InCohortReclaimWhileBorrowing") return "reclamation within the cohort while borrowing";
  return r;
}

void Cycle::issue_preemptions(Entry& en) {
  WorkloadInfo& p = wl(en.workload);
  int count = 0, errors = 0;
  for (const Target& t : en.targets) {
    WorkloadInfo& v = wl(t.workload);
    ++count;
    if (v.is_evicted()) continue;  // preemption already in flight: re-chosen, not re-issued
    // "Preemption already issued, waiting for observation": an expectation
    // whose eviction a late admission patch overwrote (before #11502).
    if (v.preemption_expected) continue;
    if (e.fail_next_eviction == v.id) {
      // The patch failed: the API object, and so the victim, is unchanged.
      e.fail_next_eviction = -1;
      --count, ++errors;
      e.log_line(fmt::format("{} fails to preempt {}: the eviction patch failed", p.key, v.key));
      continue;
    }
    if (e.overwrite_next_eviction == v.id && v.admission_in_flight &&
        e.options.late_admission_writes > 0) {
      // The eviction's patch lands; the admission goroutine's patch, built
      // from the object before it, lands after and drops the Evicted
      // condition: the victim is Admitted and its job starts.
      e.overwrite_next_eviction = -1;
      e.options.late_admission_writes--;
      e.log_line(fmt::format("{} preempts {}, whose late admission patch overwrites the eviction",
                             p.key, v.key));
      land_admission_write(e, v);
      v.preemption_expected = !e.options.satisfy_expectation_on_admission;
      continue;
    }
    const std::string msg = fmt::format(
        "Preempted to accommodate a workload (UID: {}, JobUID: UNKNOWN) due to {}; preemptor path: "
        "{}; preemptee path: {}",
        p.uid, human_reason(t.reason), cq_path(e, p.cluster_queue), cq_path(e, v.cluster_queue));
    v.set_condition("Preempted", true, t.reason, msg, e.now());
    v.preempted_ever = true;
    evict_workload(e, v, "Preempted", msg);
    e.log_line(fmt::format("{} preempts {} ({})", p.key, v.key, t.reason));
    stats.preempted++;
  }
  p.last_assignment.reset();
  if (count > 0) {
    en.message += fmt::format(". Pending the preemption of {} workload(s)", count);
    en.reason = RequeueReason::PendingPreemption;
  } else if (errors > 0) {
    en.message += fmt::format(". Preempting {} workload(s) failed, will retry.", errors);
    en.reason = RequeueReason::PreemptionFailed;
  }
}

// waitForPodsReadyIfBlocked (Fit entries only, right before admitting).
bool Cycle::block_for_pods_ready(Entry& en, WorkloadInfo& w) {
  if (!e.waiting_for_pods_ready()) return false;
  // Kueue patches the entry and then sleeps; the patch's Update event puts it
  // back in its heap (Pending to Pending: AddOrUpdateWorkload). The engine
  // requeues it so, keeps the entry, and stops scheduling until the event that
  // makes every reserved workload PodsReady (or releases it).
  en.status = EntryStatus::Skipped;
  // Kueue's words (scheduler.go): reason "Waiting"; the semantics reference
  // calls it WaitingForPodsReady.
  en.quota_reason = "Waiting";
  en.message = "waiting for all admitted workloads to be in PodsReady condition";
  en.reason = RequeueReason::WaitingForPodsReady;
  blocked = true;
  e.pods_ready_held = std::make_shared<const Entry>(en);
  e.log_line(fmt::format("{} waits for PodsReady of the reserved workloads", w.key));
  return true;
}

void Cycle::process(Entry& en) {
  if (blocked) {
    en.deferred = true;
    en.reason = RequeueReason::WaitingForPodsReady;
    return;
  }
  WorkloadInfo& w = wl(en.workload);
  // Before #805 nothing of the cycle so far was looked at again: the nomination stands.
  // Before #2641 the cohort rule below stood in for that re-check.
  const bool recheck = e.options.recheck_in_cycle && !start;
  bool fit = true;
  const FrUsage usage = recheck ? update_assignment_if_needed(en, fit) : en.assignment.usage;
  const FlavorMode mode = en.assignment.mode();
  if (mode == FlavorMode::NoFit) {
    en.reason = RequeueReason::NoFit;
    en.quota_reason = en.assignment.no_fit_reason();  // resolveNoFitReason
    return;
  }
  if (start && !one_preemption_per_cohort(en)) {
    mark_skipped(en, w);
    en.quota_reason = "WaitingForQuota";
    return;
  }
  if (mode == FlavorMode::Preempt && en.targets.empty()) {
    en.reason = RequeueReason::PreemptionNoCandidates;
    en.quota_reason = "WaitingForQuota";
    const auto& cq = e.cluster_queues[static_cast<size_t>(en.cq)];
    if (cq.spec.preemption.reclaim_within_cohort != model::ReclaimWithinCohortPolicy::Any ||
        en.preemptor) {
      snapshot.tree.add_usage(node(en.cq), resources_to_reserve(en));
    }
    return;
  }
  if (mode == FlavorMode::DeferredFit) {
    en.message =
        "Workload has overlapping preemption targets with another workload, but will fit after "
        "these preemptions complete";
    en.quota_reason = "WaitingForPreemptedWorkloads";
    en.reason = RequeueReason::PendingPreemption;
    w.last_assignment.reset();
    snapshot.tree.add_usage(node(en.cq), usage);
    return;
  }
  if (recheck && any_preempted(en.targets)) {
    mark_skipped(en, w);
    en.message = "Workload has overlapping preemption targets with another workload";
    en.quota_reason = "WaitingForQuota";
    return;
  }
  if (!fit) {
    mark_skipped(en, w);
    en.message = "Workload no longer fits after processing another workload";
    en.quota_reason = "WaitingForQuota";
    return;
  }
  for (const Target& t : en.targets) preempted.insert(t.workload);
  snapshot.tree.add_usage(node(en.cq), usage);
  if (mode == FlavorMode::Preempt) {
    en.quota_reason = "WaitingForPreemptedWorkloads";
    issue_preemptions(en);
    acted(en.cq);
    return;
  }
  if (block_for_pods_ready(en, w)) return;
  en.status = EntryStatus::Assumed;
  assume_workload(e, w, en.assignment);
  acted(en.cq);
  stats.admitted++;
}

}  // namespace

bool Engine::waiting_for_pods_ready() const {
  const auto& wfpr = manifests.configuration.wait_for_pods_ready;
  if (!wfpr.enable || !wfpr.block_admission || gate("DisableWaitForPodsReady")) return false;
  for (const auto& ids : cq_workloads) {
    for (int id : ids) {
      if (!workloads[static_cast<size_t>(id)].pods_ready) return true;
    }
  }
  return false;
}

// The goroutine wakes in the held entry's processEntry and goes on to
// Scheduler.admit, which plans nothing again: the cycle's assignment stands,
// though an edit may have cut the quota it counted on since
// (cache.AddOrUpdateWorkload checks no quota). Kueue then processes the cycle's
// later entries on its old snapshot; the engine requeued them, and its next
// cycle plans them afresh (a Fit one blocks again behind this admission, whose
// pods are not ready yet).
CycleStats Engine::admit_held_entry() {
  const std::shared_ptr<const Entry> held = std::move(pods_ready_held);
  pods_ready_held.reset();
  CycleStats stats;
  stats.heads = 1;
  stats.woke = true;
  WorkloadInfo& w = workloads[static_cast<size_t>(held->workload)];
  const ClusterQueueInfo& cq = cluster_queues[static_cast<size_t>(held->cq)];
  // Deleted meanwhile: the admission patch fails (NotFound), the workload is
  // dropped. A ClusterQueue gone from the cache fails the assume. (Kueue would
  // admit a workload deactivated meanwhile, then evict it; the engine drops it.)
  if (!w.admissible() || cq.removed) {
    log_line(fmt::format("the scheduler wakes; {} is no longer pending", w.key));
    return stats;
  }
  log_line(fmt::format("the scheduler wakes and admits {}, as its cycle planned", w.key));
  assume_workload(*this, w, held->assignment);
  stats.admitted++;
  return stats;
}

CycleStats Engine::schedule() {
  // The goroutine is asleep in cache.WaitForPodsReady: no heads are popped.
  if (pods_ready_held && waiting_for_pods_ready()) return {};
  if (pods_ready_held) return admit_held_entry();
  scheduling_cycle++;
  std::vector<Entry> entries;
  for (size_t i = 0; i < cluster_queues.size(); ++i) {
    if (!cluster_queues[i].active) continue;  // heads() skips inactive ClusterQueues
    const int id = queues.pop(static_cast<int>(i));
    if (id < 0) continue;
    Entry en;
    en.workload = id;
    en.cq = static_cast<int>(i);
    en.preemptor = gate("PrioritizePreemptorWorkloads") && queues.preemptor(en.cq) == id;
    entries.push_back(std::move(en));
  }
  Cycle c{*this, make_snapshot(), {}, {}};
  if (!options.multiple_preemptions) c.start = c.snapshot.tree;
  c.stats.heads = static_cast<int>(entries.size());
  if (entries.empty()) return c.stats;
  std::vector<Entry*> nominated;
  for (Entry& en : entries) {
    WorkloadInfo& w = workloads[static_cast<size_t>(en.workload)];
    bool failed_checks = false;
    for (const auto& s : w.obj.admission_checks) {
      failed_checks = failed_checks || s.state == model::CheckState::Retry ||
                      s.state == model::CheckState::Rejected;
    }
    // A Namespace missing from the input exists all the same (a Workload cannot
    // be without one): the protocol reads it so too.
    if (failed_checks) {
      en.message = "The workload has failed admission checks";
      en.quota_reason = "PendingEvaluation";
    } else if (!namespace_selected(en.cq, w)) {
      en.message = "workload namespace doesn't match ClusterQueue selector";
      en.quota_reason = "Misconfigured";
      en.reason = RequeueReason::NamespaceMismatch;
    } else {
      get_assignments(*this, c.snapshot, w, en.assignment, en.targets);
      c.record(en, w);
      nominated.push_back(&en);
      continue;
    }
  }
  if (manifests.configuration.fair_sharing.enable) {
    std::vector<Entry*> remaining = nominated;
    while (!remaining.empty()) c.process(*pop_fair_sharing(*this, c.snapshot, remaining));
  } else {
    order_classical(*this, nominated);
    for (Entry* en : nominated) c.process(*en);
  }
  auto requeue = [&](Entry& en) {
    WorkloadInfo& w = workloads[static_cast<size_t>(en.workload)];
    if (en.status != EntryStatus::NotNominated && en.reason == RequeueReason::Generic) {
      en.reason = RequeueReason::FailedAfterNomination;
    }
    const bool was_parked = queues.in_inadmissible(w);
    if (!en.deferred &&
        (en.status == EntryStatus::NotNominated || en.status == EntryStatus::Skipped)) {
      // UnadmittedWorkloadReasonWithFallback: the granular reason under the gate, else Pending.
      const bool granular = gate("UnadmittedWorkloadsObservability") && !en.quota_reason.empty();
      w.set_condition("QuotaReserved", false, granular ? en.quota_reason : "Pending", en.message,
                      now_ms);
      w.pending_message = en.message;
    }
    queues.requeue(w, en.reason, now_ms, workloads);
    if (queues.in_inadmissible(w) && !was_parked) c.stats.parked++;
    if (!queues.in_inadmissible(w) && w.last_assignment && w.last_assignment->pending_flavors())
      c.stats.rescans++;
  };
  // Nominated entries and the inadmissible ones alike go back through the queue's rules.
  for (Entry& en : entries) {
    if (en.status == EntryStatus::Skipped && en.reason != RequeueReason::WaitingForPodsReady)
      c.stats.skipped.push_back(en.workload);
    if (en.status != EntryStatus::Assumed) requeue(en);
  }
  return c.stats;
}

}  // namespace kmc::engine
