// The workload controller and the job reconciler's quota-relevant steps, and
// Engine::handle, which routes every event to its controller.
#include <fmt/format.h>

#include <algorithm>

#include "engine/controllers.hpp"

namespace kmc::engine {

bool pods_ready_enabled(const Engine& e) {
  return e.manifests.configuration.wait_for_pods_ready.enable && !e.gate("DisableWaitForPodsReady");
}

namespace {

model::Quantity to_quantity(const std::string& res, Amount v) {
  if (res == "cpu") return model::Quantity{v};
  return model::Quantity{v * 1000};
}

// admittedNotReadyWorkload: WaitForStart counts from the admission (the job's
// start), WaitForRecovery from the PodsReady True->False transition.
TimeMs pods_ready_deadline(const Engine& e, const WorkloadInfo& w) {
  const auto& wfpr = e.manifests.configuration.wait_for_pods_ready;
  const model::Condition* c = w.condition("PodsReady");
  if (c != nullptr && c->reason == "WaitForRecovery")
    return w.condition_ms.at("PodsReady") + wfpr.recovery_timeout_s * 1000;
  return w.first_admitted_ms + wfpr.timeout_s * 1000;
}

// admittedNotReadyWorkload times WaitForRecovery only where recoveryTimeout is
// above 0 (core.go passes none otherwise: "0s" disables it).
bool recovery_untimed(const Engine& e, const WorkloadInfo& w) {
  const model::Condition* c = w.condition("PodsReady");
  return c != nullptr && c->reason == "WaitForRecovery" &&
         e.manifests.configuration.wait_for_pods_ready.recovery_timeout_s <= 0;
}

}  // namespace

void post_pods_ready_timeout(Engine& e, WorkloadInfo& w) {
  if (!pods_ready_enabled(e) || w.pods_ready || recovery_untimed(e, w)) return;
  e.post(pods_ready_deadline(e, w), ev::PodsReadyTimeout{w.key, w.first_admitted_ms});
}

namespace {

// The job reconciler's generatePodsReadyCondition once a ready job loses a pod.
void pods_not_ready(Engine& e, WorkloadInfo& w) {
  if (!w.job_active || !w.pods_ready || w.is_evicted()) return;
  w.pods_ready = false;
  w.set_condition("PodsReady", false, "WaitForRecovery",
                  "At least one pod has failed, waiting for recovery", e.now());
  post_pods_ready_timeout(e, w);
}

// reconcileNotReadyTimeout: evict, or deactivate past the backoff limit.
void pods_ready_timeout(Engine& e, WorkloadInfo& w) {
  const auto& wfpr = e.manifests.configuration.wait_for_pods_ready;
  if (wfpr.backoff_limit_count && w.requeue_count + 1 > *wfpr.backoff_limit_count) {
    deactivate_workload(
        e, w, "DeactivatedDueToRequeuingLimitExceeded",
        "The workload is deactivated due to exceeding the maximum number of re-queuing retries");
    return;
  }
  w.requeue_count++;
  w.requeue_at_ms =
      e.now() + backoff_wait_s(wfpr.backoff_base_s, wfpr.backoff_max_s, w.requeue_count) * 1000;
  evict_workload(e, w, "PodsReadyTimeout", fmt::format("Exceeded the PodsReady timeout {}", w.key));
}

// The workload controller once requeueAt has passed: it clears requeueAt and
// puts the workload back in its queue; one still Requeued False (a PodsReady
// timeout's or a check's backoff) becomes Requeued True, BackoffFinished.
void backoff_expired(Engine& e, WorkloadInfo& w) {
  if (w.has_quota_reservation()) {  // a Retry check's backoff, its reservation held
    if (!w.requeue_at_ms || *w.requeue_at_ms <= e.now()) reconcile_checks(e, w);
    return;
  }
  const model::Condition* r = w.condition("Requeued");
  const bool waiting = r != nullptr && r->status == "False";
  if ((!waiting && !w.requeue_at_ms) || !w.obj.active) return;
  if (w.requeue_at_ms && *w.requeue_at_ms > e.now()) return;
  w.requeue_at_ms.reset();
  if (waiting)
    w.set_condition("Requeued", true, "BackoffFinished", "The workload backoff was finished",
                    e.now());
  e.enqueue(w);
}

}  // namespace

bool expire_backoff(Engine& e, WorkloadInfo& w) {
  if (!w.obj.active) return false;
  const model::Condition* r = w.condition("Requeued");
  const bool waiting = r != nullptr && r->status == "False";
  if (w.has_quota_reservation()) {
    // A Retry check's backoff, the reservation held until requeueAt: the
    // check went Retry its requeueAfterSeconds ago, so NeedsRequeueAtUpdate
    // finds nothing later.
    if (!w.requeue_at_ms || *w.requeue_at_ms <= e.now() || w.is_evicted()) return false;
    for (const auto& c : w.obj.admission_checks)
      if (c.state == model::CheckState::Retry)
        w.check_ms[c.name] = e.now() - c.requeue_after_seconds.value_or(0) * 1000;
  } else if (!waiting && !w.requeue_at_ms) {
    return false;
  }
  if (w.requeue_at_ms) w.requeue_at_ms = e.now();
  backoff_expired(e, w);
  return true;
}

bool time_out_pods_ready(Engine& e, WorkloadInfo& w) {
  if (!pods_ready_enabled(e) || !w.is_admitted() || !w.job_active || w.is_evicted()) return false;
  if (e.options.pods_ready_timeouts_left == 0) return false;
  if (e.options.pods_ready_timeouts_left > 0) e.options.pods_ready_timeouts_left--;
  w.pods_ready = false;
  // Not ready already (WaitForStart, or WaitForRecovery after a pod failed):
  // the condition stays what the job reconciler made it.
  if (const model::Condition* c = w.condition("PodsReady"); c == nullptr || c->status != "False")
    w.set_condition("PodsReady", false, "WaitForStart", "Not all pods are ready or succeeded",
                    e.now());
  pods_ready_timeout(e, w);
  return true;
}

void assume_workload(Engine& e, WorkloadInfo& w, const Assignment& a) {
  if (e.options.admission_write_failures > 0 || e.options.late_admission_writes > 0)
    w.admission_in_flight = WorkloadInfo::ApiObject{w.obj, w.condition_ms};
  model::Admission adm;
  adm.cluster_queue = e.cluster_queues[static_cast<size_t>(w.cluster_queue)].name;
  for (const auto& ps : a.pod_sets) {
    model::PodSetAssignment psa;
    psa.name = ps.name;
    psa.count = ps.count;
    for (const auto& [r, f] : ps.flavors) psa.flavors[r] = f.flavor;
    for (const auto& [r, v] : ps.requests) {
      if (ps.flavors.contains(r)) psa.resource_usage[r] = to_quantity(r, v);
    }
    adm.pod_set_assignments.push_back(std::move(psa));
  }
  w.obj.admission = std::move(adm);
  w.usage = a.usage;
  w.reservation_seq = e.next_reservation_seq++;
  w.last_assignment.reset();
  w.set_condition("QuotaReserved", true, "QuotaReserved",
                  fmt::format("Quota reserved in ClusterQueue {}",
                              e.cluster_queues[static_cast<size_t>(w.cluster_queue)].name),
                  e.now());
  for (const char* c : {"Evicted", "Preempted"}) {
    if (w.is_true(c))
      w.set_condition(c, false, "QuotaReserved", "Previously: " + w.condition(c)->message, e.now());
  }
  w.pending_message.clear();
  e.queues.forget(w, w.admission_in_flight.has_value());
  e.cache_add(w);
  sync_admission_checks(e, w);
  provisioning_on_reservation(e, w);
  sync_admitted(e, w);
  e.log_line(fmt::format("{} reserves quota in {}", w.key,
                         e.cluster_queues[static_cast<size_t>(w.cluster_queue)].name));
}

bool land_admission_write(Engine& e, WorkloadInfo& w) {
  if (!w.admission_in_flight) return false;
  w.admission_in_flight.reset();
  e.queues.clear_preemptor(w);
  e.log_line(fmt::format("{}: the admission patch reached the API server", w.key));
  start_job_if_admitted(e, w);
  return true;
}

bool fail_admission_write(Engine& e, WorkloadInfo& w) {
  if (!w.admission_in_flight || e.options.admission_write_failures <= 0) return false;
  e.options.admission_write_failures--;
  e.cache_forget(w);
  w.usage.clear();
  w.obj = std::move(w.admission_in_flight->obj);
  w.condition_ms = std::move(w.admission_in_flight->condition_ms);
  w.admission_in_flight.reset();
  e.queues.requeue(w, RequeueReason::FailedAfterNomination, e.now(), e.workloads);
  e.log_line(fmt::format("{}: the admission patch failed; requeued", w.key));
  return true;
}

void start_job_if_admitted(Engine& e, WorkloadInfo& w) {
  // The job reconciler acts on the API object: not before the patch lands.
  if (!w.is_admitted() || w.job_active || !w.job_exists || w.admission_in_flight) return;
  w.job_active = true;
  w.first_admitted_ms = e.now();
  if (e.options.pods_ready_on_start || e.options.pods_ready_timeouts_left == 0) {
    w.pods_ready = true;
    w.set_condition("PodsReady", true, "Started", "All pods reached readiness", e.now());
  } else {
    w.set_condition("PodsReady", false, "WaitForStart", "Not all pods are ready or succeeded",
                    e.now());
    post_pods_ready_timeout(e, w);
  }
  if (w.runtime_ms > 0) e.post(e.now() + w.runtime_ms, ev::JobFinished{w.key, w.first_admitted_ms});
}

void evict_workload(Engine& e, WorkloadInfo& w, const std::string& reason,
                    const std::string& message) {
  // The eviction's patch follows the admission's, which lands first; the job
  // never started.
  if (w.admission_in_flight) e.queues.clear_preemptor(w);
  w.admission_in_flight.reset();
  w.preemption_expected = false;  // the scheduler observes it evicted
  w.set_condition("Evicted", true, reason, message, e.now());
  w.obj.cluster_name.clear();
  w.obj.nominated_cluster_names.clear();
  // resetChecksOnEviction: every check Pending, its lastTransitionTime now; a Retry's count
  // grows, any other state's goes (RetryCount nil), and a Pending one keeps its own.
  for (auto& s : w.obj.admission_checks) {
    if (s.state == model::CheckState::Pending) continue;
    if (s.state == model::CheckState::Rejected) w.rejected_attempts[s.name] = s.retry_count + 1;
    s.retry_count = s.state == model::CheckState::Retry ? s.retry_count + 1 : 0;
    s.state = model::CheckState::Pending;
    w.check_ms[s.name] = e.now();
  }
  stop_evicted_job(e, w);
}

void deactivate_workload(Engine& e, WorkloadInfo& w, const std::string& reason,
                         const std::string& message) {
  w.obj.active = false;
  e.queues.forget(w);
  e.cache_remove(w);
  evict_workload(e, w, reason, message);
}

void stop_evicted_job(Engine& e, WorkloadInfo& w) {
  // The jobframework releases the reservation only once the Job reads inactive: for a MultiKueue
  // workload on the manager that is the status mirrored from its worker, which the MultiKueue
  // controller clears when it sees that Job stopped (multikueue_controller.cpp).
  if (w.mirrored_job_active) {
    e.log_line(fmt::format("{} evicted; its Job, mirrored from {}, still reads active", w.key,
                           w.mirrored_from));
    return;
  }
  if (w.job_active && holds_quota_until_pods_terminate(e, w)) {
    w.pods_terminating = true;  // until ev::PodsTerminated
    return;
  }
  // A job that never started (waiting on checks) is inactive at once.
  const TimeMs delay = w.job_active ? e.options.job_stop_delay_ms : 0;
  e.post(e.now() + delay, ev::JobStopped{w.key});
}

void release_quota_after_stop(Engine& e, WorkloadInfo& w) {
  w.job_active = false;
  w.pods_ready = false;
  if (!w.has_quota_reservation() || !w.is_evicted()) return;
  const model::Condition* ev = w.condition("Evicted");
  const std::string reason = ev->reason, message = ev->message;
  w.set_condition("QuotaReserved", false, "Pending", message, e.now());
  if (w.is_true("Admitted"))
    w.set_condition("Admitted", false, "NoReservation", "The workload has no reservation", e.now());
  if (w.condition("PodsReady"))
    w.set_condition("PodsReady", false, "WaitForStart", "Not all pods are ready or succeeded",
                    e.now());
  w.obj.admission.reset();
  // Without an admission the workload controller keeps only the checks on every
  // flavor of the queue (syncAdmissionCheckConditions): an onFlavors check is
  // dropped, retryCount and all, and starts over at the next reservation.
  sync_admission_checks(e, w);
  // A deactivated workload left the cache when it was deactivated; the update
  // that unsets its reservation still takes the Update handler's inactive branch,
  // which requeues its tree's parked workloads again.
  if (!w.obj.active) e.requeue_associated_inadmissible(w);
  e.cache_remove(w);
  w.usage.clear();
  const bool requeued = reason == "Preempted" || reason == "NodeFailures";
  // Requeued True only where Kueue requeues at once; a deactivated workload is not (False).
  if (w.obj.active && (requeued || (!w.requeue_at_ms && reason != "PodsReadyTimeout" &&
                                    reason != "AdmissionCheck"))) {
    w.set_condition("Requeued", true, reason, message, e.now());
    e.enqueue(w);
    // A backoff still ahead (a Retry check's, evicted meanwhile) keeps it out
    // of its heap until the workload controller's requeue at requeueAt.
    if (w.requeue_at_ms && *w.requeue_at_ms > e.now())
      e.post(*w.requeue_at_ms, ev::BackoffExpired{w.key});
  } else {
    w.set_condition("Requeued", false, reason, message, e.now());
    e.post(w.requeue_at_ms.value_or(e.now()), ev::BackoffExpired{w.key});
  }
  w.pending_message = message;
}

void reconcile_all_workloads(Engine& e) {
  for (auto& w : e.workloads)
    if (!w.deleted && w.counts_in_cache()) sync_admitted(e, w);
}

void finish_workload(Engine& e, WorkloadInfo& w, const std::string& reason) {
  if (w.is_finished()) return;
  w.job_active = false;
  w.set_condition("Finished", true, reason, "Job finished successfully", e.now());
  e.queues.forget(w);
  e.cache_remove(w);
  e.log_line(fmt::format("{} finished", w.key));
}

// The Delete event requeues the cohort tree's parked workloads
// (QueueAssociatedInadmissibleWorkloadsAfter), whether or not the deleted one
// held quota: a pending one is in the queue manager too.
void delete_workload(Engine& e, WorkloadInfo& w) {
  w.deleted = true;
  w.admission_in_flight.reset();
  const bool queued = !w.has_quota_reservation() && !w.is_finished();
  e.queues.forget(w);
  e.cache_remove(w);
  if (queued && w.cluster_queue >= 0) e.notify_requeue_inadmissible(w.cluster_queue);
}

void delete_by_user(Engine& e, WorkloadInfo& w) {
  const bool pods_left = pod_group(w.obj) && (w.job_active || w.pods_terminating);
  w.job_active = false;
  delete_workload(e, w);
  w.pods_terminating = pods_left;
  e.log_line(fmt::format("{} deleted{}", w.key, pods_left ? ": its pods are terminating" : ""));
}

void Engine::handle(const Event& event) {
  struct V {
    Engine& e;
    WorkloadInfo* get(const std::string& key) { return e.find(key); }
    void operator()(const ev::WorkloadCreated& x) {
      const int id = e.create_workload(x.workload);
      if (x.runtime_ms >= 0) e.workloads[static_cast<size_t>(id)].runtime_ms = x.runtime_ms;
    }
    void operator()(const ev::WorkloadDeleted& x) {
      if (auto* w = get(x.key)) delete_workload(e, *w);
    }
    void operator()(const ev::JobFinished& x) {
      auto* w = get(x.key);
      if (w != nullptr && w->job_active &&
          (x.admission_epoch < 0 || x.admission_epoch == w->first_admitted_ms)) {
        finish_workload(e, *w, "Succeeded");
      }
    }
    void operator()(const ev::JobStopped& x) {
      if (auto* w = get(x.key)) release_quota_after_stop(e, *w);
    }
    void operator()(const ev::PodsTerminated& x) {
      if (auto* w = get(x.key)) pods_terminated(e, *w);
    }
    void operator()(const ev::PodsStuckTerminating& x) {
      if (auto* w = get(x.key)) pods_stuck_terminating(e, *w);
    }
    void operator()(const ev::StuckPodsFailed& x) {
      if (auto* w = get(x.key)) stuck_pods_failed(e, *w);
    }
    void operator()(const ev::PodsReady& x) {
      auto* w = get(x.key);
      if (w == nullptr || !w->job_active) return;
      const model::Condition* c = w->condition("PodsReady");
      const bool recovering = c != nullptr && c->reason == "WaitForRecovery";
      w->pods_ready = true;
      w->set_condition("PodsReady", true, recovering ? "Recovered" : "Started",
                       "All pods reached readiness", e.now());
    }
    void operator()(const ev::PodsNotReady& x) {
      if (auto* w = get(x.key)) pods_not_ready(e, *w);
    }
    void operator()(const ev::PodsReadyTimeout& x) {
      // The deadline is recomputed, as reconcileNotReadyTimeout does: a timer
      // from an earlier WaitForRecovery episode must not fire for a later one.
      auto* w = get(x.key);
      if (w != nullptr && w->is_admitted() && !w->pods_ready && !w->is_evicted() &&
          !recovery_untimed(e, *w) && x.admission_epoch == w->first_admitted_ms &&
          e.now() >= pods_ready_deadline(e, *w)) {
        pods_ready_timeout(e, *w);
      }
    }
    void operator()(const ev::BackoffExpired& x) {
      if (auto* w = get(x.key)) backoff_expired(e, *w);
    }
    void operator()(const ev::RequeueInadmissible& x) {
      e.pending_requeue_roots.erase(x.root_node);
      for (size_t i = 0; i < e.cluster_queues.size(); ++i) {
        if (e.tree.root_of(e.cluster_queues[i].node) == x.root_node) {
          e.queues.queue_inadmissible(
              static_cast<int>(i), e.now(), e.workloads,
              [&](const WorkloadInfo& w) { return e.namespace_selected(static_cast<int>(i), w); });
        }
      }
    }
    void operator()(const ev::AdmissionCheckUpdate& x) {
      if (auto* w = get(x.key))
        set_check_state(e, *w, x.check, x.state, x.requeue_after_seconds, x.message);
    }
    void operator()(const ev::ClusterQueueStopPolicy& x) {
      set_cluster_queue_stop_policy(e, x.name, x.policy);
    }
    void operator()(const ev::LocalQueueStopPolicy& x) {
      set_local_queue_stop_policy(e, x.namespace_, x.name, x.policy);
    }
    void operator()(const ev::ProvisioningRequestCondition& x) {
      if (auto* w = get(x.key)) provisioning_condition(e, *w, x.check, x.condition);
    }
  };
  std::visit(V{*this}, event);
}

}  // namespace kmc::engine
