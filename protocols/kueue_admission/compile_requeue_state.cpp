// A dumped Workload's requeue status: evicted by a PodsReady timeout or an
// admission check, it waits out a backoff (the workload controller's
// reconcile: Requeued False with reason PodsReadyTimeout or AdmissionCheck
// until status.requeueState.requeueAt has passed), then waits in its queue in
// order of that eviction (GetQueueOrderTimestamp; a timeout's only with
// requeuingStrategy.timestamp Eviction); requeueState.count counts its
// PodsReady timeouts against backoffLimitCount. With PrioritySortingWithinCohort
// off, one preempted with reason InCohortReclaimWhileBorrowing waits from then.
// One Evicted while it still holds quota was caught halfway through its
// eviction: the job reconciler stops its job, then unsets the reservation
// (reconciler.go, "handle eviction"), and the workload controller requeues it
// at once unless a requeueAt is ahead, whatever the reason.
// Also the queue order's ties the model cannot order as Kueue does.
#include <fmt/format.h>

#include <algorithm>

#include "protocols/kueue_admission/compile_parts.hpp"

namespace kmc::protocols::ka {

namespace {

const model::Condition* find(const model::Workload& wl, const char* type) {
  for (const auto& c : wl.conditions)
    if (c.type == type) return &c;
  return nullptr;
}

bool by_eviction(const model::Condition* c) {
  return c != nullptr && (c->reason == "PodsReadyTimeout" || c->reason == "AdmissionCheck");
}

}  // namespace

void compile_requeue_state(AdmissionParams& p, const model::Workload& wl, WorkloadParams& w,
                           const model::KueueConfiguration& config, std::int64_t dump_time) {
  w.initial_requeues = wl.requeue_count;
  const model::Condition* evicted = find(wl, "Evicted");
  const bool evicting = evicted != nullptr && evicted->status == "True";
  if (w.initial_flavor >= 0) {
    if (!evicting) return;
    w.initial_evicted = true;
    // Pods hold a Pod group's quota only once its job has started (Admitted).
    const model::Condition* admitted = find(wl, "Admitted");
    const bool running = admitted != nullptr && admitted->status == "True";
    if (!running || !w.pods || config.feature_gates.enabled("FastQuotaReleaseInPodIntegration")) {
      w.initial_flavor = -1;
      w.reserved_at = 0;
    }
  }
  const auto timestamp = config.wait_for_pods_ready.requeuing_timestamp;
  if (evicting && by_eviction(evicted) &&
      !(evicted->reason == "PodsReadyTimeout" && timestamp == model::RequeuingTimestamp::Creation))
    w.evicted_at = evicted->last_transition_s;
  // GetQueueOrderTimestamp's last case: the Preempted condition's time plus 1 ms.
  const model::Condition* preempted = find(wl, "Preempted");
  if (w.evicted_at < 0 && preempted != nullptr && preempted->status == "True" &&
      preempted->reason == "InCohortReclaimWhileBorrowing" &&
      !config.feature_gates.enabled("PrioritySortingWithinCohort")) {
    w.evicted_at = preempted->last_transition_s;
    w.evicted_after = true;
  }
  // A requeueAt ahead holds any workload back (the workload controller's
  // RequeueAfter; the queue's backoffWaitingTimeExpired). Caught halfway, its
  // Requeued condition is not set yet: the eviction's reason says whether a
  // backoff follows.
  const model::Condition* requeued = find(wl, "Requeued");
  const bool by_reason = w.initial_evicted ? by_eviction(evicted)
                                           : requeued != nullptr && requeued->status == "False" &&
                                                 by_eviction(requeued);
  w.initial_backoff =
      (by_reason || wl.requeue_at_s.has_value()) && wl.requeue_at_s.value_or(dump_time) > dump_time;
  if (w.initial_backoff || w.evicted_at >= 0) p.dumped_requeues = true;
  // A Pod group whose pods' end returns it to its queue at once, ordered by its eviction,
  // or puts it into a backoff, ordered by its creation.
  if (w.initial_evicted && w.initial_flavor >= 0 && w.evicted_at >= 0 && !w.initial_backoff)
    p.dumped_requeues_at_once = true;
  if (w.initial_evicted && w.initial_flavor >= 0 && w.evicted_at < 0 && w.initial_backoff)
    p.dumped_backoff_by_creation = true;
}

bool AdmissionParams::victims_queue_from_preemption() const {
  // Cohort membership is not checked: a queue edit may put a ClusterQueue into a cohort.
  return !priority_sorting_within_cohort && !fair_sharing &&
         std::any_of(cqs.begin(), cqs.end(), [](const CqParams& c) {
           return c.reclaim != Reclaim::Never && c.borrow_within_cohort;
         });
}

std::int64_t AdmissionParams::earliest_dumped_eviction() const {
  std::int64_t earliest = -1;
  for (const auto& w : workloads)
    if (w.evicted_at >= 0 && (earliest < 0 || w.evicted_at < earliest)) earliest = w.evicted_at;
  return earliest;
}

bool AdmissionParams::born_on_timeline(int w) const {
  const auto& wl = workloads[static_cast<std::size_t>(w)];
  if (wl.arrives) return true;
  const std::int64_t earliest = earliest_dumped_eviction();
  return earliest >= 0 && wl.evicted_at < 0 && wl.created >= earliest;
}

// Kueue's heap orders one priority by GetQueueOrderTimestamp, whole seconds
// in the API, then by metadata.uid (cluster_queue.go queueOrderingFunc); the
// model reads no uid and takes the name. Two workloads created in one second
// (a controller creating several Jobs) may go either way in Kueue; the model
// checks one order only.
void warn_queue_order_ties(const model::ClusterManifests& m, AdmissionParams& p) {
  for (int w = 1; w < p.W(); ++w) {
    const auto& a = p.workloads[static_cast<std::size_t>(w) - 1];
    const auto& b = p.workloads[static_cast<std::size_t>(w)];
    if (a.cq != b.cq || a.priority != b.priority || a.created != b.created || a.arrives ||
        b.arrives || a.evicted_at >= 0 || b.evicted_at >= 0)
      continue;
    for (const auto& wl : m.workloads)
      if (wl.meta.namespace_ + "/" + wl.meta.name == b.name)
        p.warnings.push_back(model::Diagnostic{
            wl.meta.pos, "metadata.creationTimestamp",
            fmt::format("{} and {} have one priority and one creationTimestamp: Kueue orders "
                        "them by metadata.uid, kmc by name, and checks that order only",
                        a.name, b.name)});
  }
}

}  // namespace kmc::protocols::ka
