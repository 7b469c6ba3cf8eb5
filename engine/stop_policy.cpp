// stopPolicy on ClusterQueues and LocalQueues (kueue-semantics.md §1.2, §1.4):
// the workload controller's reconcileOnLocalQueueActiveState and
// reconcileOnClusterQueueActiveState, and what stopping does to the queues.
#include <fmt/format.h>

#include "engine/controllers.hpp"
#include "engine/lookup.hpp"

namespace kmc::engine {

namespace {

model::StopPolicy local_queue_policy(const Engine& e, const WorkloadInfo& w) {
  if (e.local_queue_deleted(w)) return model::StopPolicy::None;  // what a missing queue reads
  const model::LocalQueue* lq =
      find_local_queue(e.manifests, w.obj.meta.namespace_, w.obj.queue_name);
  return lq != nullptr ? lq->stop_policy : model::StopPolicy::None;
}

// UnsetQuotaReservationWithCondition on a reserved, not admitted workload. Its
// job never started, so nothing has to stop before the cache lets the quota go.
// The reason is granular where UnadmittedWorkloadsObservability is on
// (UnadmittedWorkloadReasonWithFallback), Inadmissible otherwise.
void unset_reservation(Engine& e, WorkloadInfo& w, const char* granular_reason,
                       const std::string& message) {
  const std::string reason =
      e.gate("UnadmittedWorkloadsObservability") ? granular_reason : "Inadmissible";
  w.set_condition("QuotaReserved", false, reason, message, e.now());
  w.obj.admission.reset();
  // UnsetQuotaReservationWithCondition leaves the check states alone; without
  // an admission the workload controller keeps only the checks on every flavor
  // of the queue (syncAdmissionCheckConditions), a Ready one still Ready.
  sync_admission_checks(e, w);
  e.cache_remove(w);
  w.usage.clear();
  w.pending_message = message;
  e.enqueue(w);
  e.log_line(fmt::format("{} loses its reservation: {}", w.key, message));
}

}  // namespace

void reconcile_stop_policy(Engine& e, WorkloadInfo& w) {
  if (!w.has_quota_reservation() || w.is_finished() || w.deleted || w.cluster_queue < 0) return;
  // Reconcile returns before the queues' states while a Retry check's backoff
  // holds the reservation; once it passes, the check's eviction comes first.
  if (w.obj.active && w.requeue_at_ms && *w.requeue_at_ms > e.now()) return;
  const ClusterQueueInfo& cq = e.cluster_queues[static_cast<size_t>(w.cluster_queue)];
  const model::StopPolicy lq = local_queue_policy(e, w);
  // The LocalQueue is reconciled first; an admitted workload only drains. A
  // stopped or deleted LocalQueue is gone from the queue manager, so the
  // controller finds no ClusterQueue for the workload (ClusterQueueForWorkload)
  // and reads no stopPolicy there.
  if (w.is_admitted()) {
    if (w.is_evicted()) return;  // already on its way out
    if (lq == model::StopPolicy::HoldAndDrain) {
      evict_workload(e, w, "LocalQueueStopped", "The LocalQueue is stopped");
    } else if (!e.local_queue_stopped(w) &&
               cq.spec.stop_policy == model::StopPolicy::HoldAndDrain) {
      evict_workload(e, w, "ClusterQueueStopped", "The ClusterQueue is stopped");
    }
    return;
  }
  if (e.local_queue_deleted(w)) {
    unset_reservation(e, w, "Misconfigured",
                      fmt::format("LocalQueue {} is terminating or missing", w.obj.queue_name));
  } else if (lq != model::StopPolicy::None) {
    unset_reservation(e, w, "Suspended", fmt::format("LocalQueue {} is stopped", w.obj.queue_name));
  } else if (cq.deleting) {
    // The object's deletionTimestamp, whether or not the cache has it terminating yet.
    unset_reservation(e, w, "Misconfigured",
                      fmt::format("ClusterQueue {} is terminating or missing", cq.name));
  } else if (cq.spec.stop_policy != model::StopPolicy::None) {
    unset_reservation(e, w, "Suspended", fmt::format("ClusterQueue {} is stopped", cq.name));
  }
}

// A stopped ClusterQueue is inactive (heads skip it, the snapshot leaves it
// out). The spec update requeues the parked workloads of its whole cohort tree
// (UpdateClusterQueue with specUpdated: notifyRetryInadmissible), either way:
// a queue that stops lends what it no longer uses, one that resumes has heads again.
void set_cluster_queue_stop_policy(Engine& e, const std::string& name, model::StopPolicy policy,
                                   bool reconcile) {
  const int idx = e.cq_index(name);
  if (idx < 0) return;
  ClusterQueueInfo& cq = e.cluster_queues[static_cast<size_t>(idx)];
  if (cq.deleting) return;  // the controller's Update ignores a deleting ClusterQueue
  const bool changed = cq.spec.stop_policy != policy;
  cq.spec.stop_policy = policy;
  if (policy != model::StopPolicy::None && cq.active) {
    cq.active = false;
    cq.inactive_reason = "stopped";
  } else if (policy == model::StopPolicy::None && !cq.active && cq.inactive_reason == "stopped") {
    cq.active = true;
    cq.inactive_reason.clear();
  }
  if (changed) e.notify_requeue_inadmissible(idx);
  e.log_line(fmt::format("ClusterQueue {} stopPolicy {}", name, static_cast<int>(policy)));
  if (!reconcile) return;
  for (WorkloadInfo& w : e.workloads) {
    if (w.cluster_queue == idx) reconcile_stop_policy(e, w);
  }
}

// A stopped LocalQueue leaves the queue manager with its pending workloads;
// resuming adds them back (LocalQueue controller Update: AddLocalQueue), into
// the active heap whatever their backoff.
void set_local_queue_stop_policy(Engine& e, const std::string& ns, const std::string& name,
                                 model::StopPolicy policy, bool reconcile) {
  model::LocalQueue* lq = nullptr;
  for (auto& q : e.manifests.local_queues) {
    if (q.meta.namespace_ == ns && q.meta.name == name) lq = &q;
  }
  if (lq == nullptr) return;
  lq->stop_policy = policy;
  e.log_line(fmt::format("LocalQueue {}/{} stopPolicy {}", ns, name, static_cast<int>(policy)));
  for (WorkloadInfo& w : e.workloads) {
    if (w.obj.meta.namespace_ != ns || w.obj.queue_name != name) continue;
    if (policy != model::StopPolicy::None)
      e.queues.forget(w);
    else
      e.push_from_local_queue(w);
    if (reconcile) reconcile_stop_policy(e, w);
  }
}

// LocalQueueReconciler.Delete: the queue manager drops the LocalQueue and its
// pending workloads (DeleteLocalQueue); nothing requeues them until it exists
// again. The workload controller's reconcileOnLocalQueueActiveState finds it
// missing: a reservation not yet Admitted is unset, an Admitted workload runs on.
bool delete_local_queue(Engine& e, const std::string& ns, const std::string& name, bool reconcile) {
  const std::string key = ns + "/" + name;
  if (find_local_queue(e.manifests, ns, name) == nullptr || e.deleted_local_queues.contains(key))
    return false;
  e.deleted_local_queues.insert(key);
  e.log_line(fmt::format("LocalQueue {} deleted", key));
  for (WorkloadInfo& w : e.workloads) {
    if (w.obj.meta.namespace_ != ns || w.obj.queue_name != name) continue;
    e.queues.forget(w);
    if (reconcile) reconcile_stop_policy(e, w);
  }
  return true;
}

}  // namespace kmc::engine
