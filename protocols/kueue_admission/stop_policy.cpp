// Stopped queues (kueue-semantics.md §1.2, §1.4): spec.stopPolicy of
// ClusterQueues and LocalQueues, as the manifests set it and as an operator
// edits it during the run (kmc.yaml environment.queueEdits).
//
// Kueue's pieces, each read from its source:
// - the queue manager's heads() skips a ClusterQueue that is not active, and a
//   stopped LocalQueue's workloads are taken out of the queues (scheduler.cpp);
// - the snapshot leaves inactive ClusterQueues out (skipInactiveCQReason), so
//   their workloads are no preemption candidates, while the cohort's usage,
//   cloned from the cache, still counts them (preemption.cpp, fair_preemption.cpp);
// - the workload controller, per workload holding quota: a reservation not yet
//   Admitted is unset (back to its queue, keeping its checks on every flavor),
//   also where its ClusterQueue is being deleted; an Admitted one is evicted
//   only under HoldAndDrain (reconcileOn{Local,Cluster}QueueActiveState);
// - a ClusterQueue's spec update requeues the parked workloads of its cohort
//   tree (UpdateClusterQueue with specUpdated); a LocalQueue that resumes puts
//   its workloads back into the queues.
#include <algorithm>

#include "protocols/kueue_admission/scheduler.hpp"

namespace kmc::protocols::ka {

bool AdmissionParams::any_drain() const {
  auto drains = [](model::StopPolicy x) { return x == model::StopPolicy::HoldAndDrain; };
  return std::any_of(cqs.begin(), cqs.end(), [&](const CqParams& q) { return drains(q.stop); }) ||
         std::any_of(local_queues.begin(), local_queues.end(),
                     [&](const LqParams& q) { return drains(q.stop); }) ||
         std::any_of(queue_edits.begin(), queue_edits.end(),
                     [&](const QueueEdit& e) { return drains(e.policy); });
}

bool AdmissionParams::any_stop() const {
  auto stopped = [](model::StopPolicy x) { return x != model::StopPolicy::None; };
  return std::any_of(cqs.begin(), cqs.end(), [&](const CqParams& q) { return stopped(q.stop); }) ||
         std::any_of(local_queues.begin(), local_queues.end(),
                     [&](const LqParams& q) { return stopped(q.stop); }) ||
         std::any_of(queue_edits.begin(), queue_edits.end(),
                     [&](const QueueEdit& e) { return stopped(e.policy); });
}

void AdmissionParams::finish_stops() {
  std::vector<model::StopPolicy> cq, lq;
  for (const auto& q : cqs) cq.push_back(q.stop);
  for (const auto& q : local_queues) lq.push_back(q.stop);
  cq_stop_after = {cq}, lq_stop_after = {lq};
  for (const auto& e : queue_edits) {
    // A deletion leaves the policy as it was (the workload controller still reads it).
    if (!e.cohort && !e.deletes) (e.local ? lq : cq)[static_cast<std::size_t>(e.queue)] = e.policy;
    cq_stop_after.push_back(cq), lq_stop_after.push_back(lq);
  }
}

model::StopPolicy Scheduler::cq_stop(const XState& s, int cq) const {
  return p_.cq_stop_after[edits_done(s)][cq];
}

model::StopPolicy Scheduler::lq_stop(const XState& s, int w) const {
  const int lq = p_.workloads[w].lq;
  return lq < 0 ? model::StopPolicy::None : p_.lq_stop_after[edits_done(s)][lq];
}

bool Scheduler::stop_acts(const XState& s, int w) const {
  if (!stops_ || writing(s, w)) return false;  // the API server has no reservation yet
  const auto lq = lq_stop(s, w), cq = cq_stop(s, p_.workloads[w].cq);
  // A ClusterQueue with a deletionTimestamp is "terminating or missing" to the
  // workload controller, which reads the object, not the cache.
  // Reconcile returns before the queues' states while a Retry check's backoff
  // holds the reservation (rules.hpp kProvisioningFailed).
  if (s.phase[w] == kReserved)
    return (s.ready[w] & retry_hold_bit(p_.K())) == 0 &&
           (lq != model::StopPolicy::None || cq != model::StopPolicy::None ||
            deleted(s, p_.workloads[w].cq));
  // A stopped LocalQueue is gone from the queue manager, so the workload
  // controller finds no ClusterQueue for w (ClusterQueueForWorkload) and reads
  // no stopPolicy there: only the LocalQueue's HoldAndDrain drains it.
  return s.phase[w] == kAdmitted &&
         (lq == model::StopPolicy::HoldAndDrain ||
          (lq == model::StopPolicy::None && cq == model::StopPolicy::HoldAndDrain));
}

void Scheduler::apply_stop(XState& s, int w) const {
  if (s.phase[w] == kReserved) {
    // UnsetQuotaReservationWithCondition (Suspended): its job never started.
    // It clears the admission and leaves the check states; without an
    // admission, syncAdmissionCheckConditions keeps only the checks on every
    // flavor of the queue (AdmissionChecksForWorkload): a Ready one is Ready
    // at the next reservation, the others start over, retryCount and all.
    if (!s.ready.empty()) {
      const auto& wl = p_.workloads[w];
      const std::int64_t kept = p_.checks_on_every_flavor(wl.cq);
      s.ready[w] &= kept;
      const std::int64_t dropped = wl.checks[static_cast<std::size_t>(s.flavor[w])] & ~kept;
      for (int k = 0; k < p_.K(); ++k)
        if (dropped >> k & 1) s.retries[static_cast<std::size_t>(w) * p_.K() + k] = 0;
    }
    release(s, w);
    s.phase[w] = kPending;
    return;
  }
  // Evicted (ClusterQueueStopped / LocalQueueStopped): its quota goes once the
  // job is stopped, a pod group's once its pods are gone; then back to its
  // queue, ordered by creation.
  reset_checks_on_eviction(s, w);
  if (p_.holds_until_pods_gone(w)) {
    s.phase[w] = kEvicted;
    return;
  }
  release(s, w);
  s.phase[w] = kPending;
}

void Scheduler::edit_queue(XState& s) const {
  const int k = edits_done(s);
  const QueueEdit& e = p_.queue_edits[static_cast<std::size_t>(k)];
  --s.budget[p_.budget_queue_edits()];
  // An edit that sets what the spec says already: Kueue hears nothing.
  if (!e.spec_updated) return;
  // A ClusterQueue's deletion only sets the deletionTimestamp: the ClusterQueue controller
  // marks it terminating in the cache (TerminateClusterQueue), and the queue
  // manager is not told (Update ignores a deleting ClusterQueue): nothing is requeued.
  // A Cohort's deletion drops its quota from the cache (DeleteCohort) and
  // requeues nothing either.
  // A creation only adds quota: nothing admitted so far is above a limit it sets.
  if (!e.quotas.empty() && !e.creates) mark_before_edit(s);
  if (e.deletes) return;
  if (e.cohort) {
    // A Cohort's update requeues its whole tree (AddOrUpdateCohort: notifyCohort of the root).
    return requeue_tree(s, p_.Q() + e.queue);
  }
  if (!e.local) {
    // Created again once the old object is gone: a new ClusterQueue in the
    // cache (its quota back in its cohort) and in the queue manager, whose
    // heap has no preemptor kept at its head.
    if (e.creates && p_.any_cq_deletions() &&
        p_.recreated_at[static_cast<std::size_t>(e.queue)] == k) {
      s.deletion[static_cast<std::size_t>(e.queue)] = kCqInCache;
      s.sticky[static_cast<std::size_t>(e.queue)] = -1;
    }
    // AddClusterQueue pushes the workloads of its LocalQueues (AddFromLocalQueue).
    if (e.creates)
      for (int w = 0; w < p_.W(); ++w)
        if (p_.workloads[w].cq == e.queue && lq_stop(s, w) == model::StopPolicy::None)
          push_from_local_queue(s, w);
    // Any change of the spec requeues the cohort tree's parked workloads
    // (UpdateClusterQueue with specUpdated).
    return requeue_tree(s, e.queue);
  }
  // A stopped LocalQueue's workloads leave the queues (DeleteLocalQueue), the
  // inadmissible set too, and a preemptor kept at its ClusterQueue's head is
  // forgotten; resumed or created, they are all pushed into the active heaps
  // (AddLocalQueue: AddFromLocalQueue), whatever their backoff or equivalence class.
  if (p_.lq_stop_after[k][e.queue] == e.policy) return;
  for (int w = 0; w < p_.W(); ++w) {
    if (p_.workloads[w].lq != e.queue) continue;
    if (e.policy == model::StopPolicy::None) {
      push_from_local_queue(s, w);
      continue;
    }
    if (s.phase[w] == kInadmissible) s.phase[w] = kPending;
    if (s.phase[w] == kQueuedInBackoff) s.phase[w] = kBackoff;
    auto& sticky = s.sticky[p_.workloads[w].cq];
    if (sticky == w) sticky = -1;
  }
}

}  // namespace kmc::protocols::ka
