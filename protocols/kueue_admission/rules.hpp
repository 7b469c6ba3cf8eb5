// Guards and updates of the Kueue admission protocol.
//
// Explicit values only, for now: the scheduling cycle (scheduler.hpp) is
// Kueue's algorithm with sorting and loops over the state's values, which
// the symbolic engine (V = sym::Int) cannot run; writing it over ite() terms
// is the SMT issue's work. Everything else about the protocol (layout,
// traces, replay, shrinking) is derived from the definition as for any other.
#pragma once

#include <algorithm>
#include <cstdint>

#include "model/value.hpp"
#include "protocols/kueue_admission/scheduler.hpp"

namespace kmc::protocols::ka {

enum Kind : std::int16_t {
  kSchedule,        // one scheduling cycle
  kFinish,          // an admitted workload's job completes
  kPodsTerminated,  // an evicted Pod group's pods are gone: its quota is released
  kKubeletLost,     // an evicted workload's pods get stuck terminating (a fault)
  kForceFail,       // the PodTermination controller fails stuck pods (#7312)
  kRestart,         // Kueue's manager restarts: its in-memory queue state is lost (a fault)
  kArrive,          // a workload of environment.arrivals is created
  kDelete,          // a user deletes a workload of environment.deletions
  // Two-phase admission with ProvisioningRequest checks (kueue-semantics.md §5):
  kProvisioned,         // the autoscaler provisions the workload's request: the check is Ready
  kProvisioningFailed,  // the request Failed (or its booking expired before admission)
  kBackoffExpired,      // the workload controller's requeueAt passed: back in its queue
  kPodsReadyTimeout,    // waitForPodsReady: an admitted job's pods not ready in time (a fault)
  // The scheduler's admission patch, sent after it assumed the workload
  // (kmc.yaml environment.admissionWriteFailures):
  kAdmissionWritten,      // it reaches the API server: controllers see the reservation
  kAdmissionWriteFailed,  // it fails (a fault): the cache forgets it, and it is requeued
  // Where blockAdmission and PodsReady timeouts meet, an admitted job's pods start late:
  kPodsReady,  // they are all ready: PodsReady True
  // A scheduling cycle in which the eviction patch of victim `workload` fails
  // (a fault; kmc.yaml environment.evictionWriteFailures): it keeps running.
  kEvictionWriteFailed,
  // A pod of a running job whose pods were all ready fails (a fault; kmc.yaml
  // environment.podFailures, with blockAdmission): PodsReady False until the
  // replacement is ready (PodsReady) or recoveryTimeout evicts it.
  kPodFailed,
  // An operator applies the next edit of kmc.yaml environment.queueEdits (a
  // queue's stopPolicy).
  kQueueEdited,
  // The workload controller acts on `workload` for its stopped queue: it
  // unsets a reservation not yet Admitted, or evicts it under HoldAndDrain.
  kQueueStopped,
  // The autoscaler revokes the Provisioned request of a workload holding quota
  // for `check` (a fault; kmc.yaml environment.capacityRevocations): the check is
  // Rejected and the workload controller deactivates it.
  kCapacityRevoked,
  // The ClusterQueue controller removes the resource-in-use finalizer of
  // terminating ClusterQueue `cq`, which no workload holds quota in: it is gone
  // from the cache and its cohort tree (cluster_queue_deletion.cpp).
  kClusterQueueFinalized,
  // The ClusterQueue controller reconciles the deletion of ClusterQueue `cq`:
  // the cache marks it terminating (again, after a restart rebuilt it active).
  kClusterQueueTerminating,
  // A scheduling cycle in which victim `workload`, whose admission patch is
  // still in flight, is evicted, and the late admission patch lands after the
  // eviction's and overwrites its Evicted condition (a fault; kmc.yaml
  // environment.lateAdmissionWrites; kubernetes-sigs/kueue#11480): it runs on.
  kEvictionOverwritten,
};

struct Action {
  Kind kind = kSchedule;
  std::int16_t workload = -1;
  int id = -1;
  std::int16_t check = -1;  // kProvisioned, kProvisioningFailed: the admission check
  std::int16_t cq = -1;     // kClusterQueueTerminating, kClusterQueueFinalized: the ClusterQueue
};

template <class V>
class Rules {
  static_assert(model::is_explicit<V>, "the admission protocol runs on explicit values only");

 public:
  Rules(const AdmissionParams& p, model::Values<V>) : p_(p), sched_(p) {}
  const Scheduler& scheduler() const { return sched_; }

  bool enabled(const State<V>& s, const Action& a) const {
    const int w = a.workload;
    switch (a.kind) {
      case kSchedule:
        // Asleep, the goroutine goes on once every workload in the cache is
        // PodsReady or gone from it: cache.WaitForPodsReady re-checks under the
        // lock, so a pod that failed again meanwhile keeps it asleep.
        if (sched_.blocked_entry(s).w >= 0) return !Scheduler::any_not_ready(s);
        return sched_.any_head(s);
      case kFinish:
        return s.phase[w] == kAdmitted && !Scheduler::writing(s, w) && s.unready[w] == 0;
      case kPodsTerminated:
        return s.phase[w] == kEvicted || s.phase[w] == kOrphanedPods;
      case kKubeletLost:
        return (s.phase[w] == kEvicted || s.phase[w] == kOrphanedPods) &&
               s.budget[kBudgetStuck] > 0;
      case kForceFail:
        return s.phase[w] == kStuck;
      case kRestart:
        // Only a restart that loses something (a parked workload, a sticky
        // head, the entry the sleeping goroutine holds) or re-adopts a pod group.
        if (p_.controller_restarts >= 0 && s.budget[kBudgetRestart] <= 0) return false;
        if (sched_.blocked_entry(s).w >= 0) return true;
        for (const auto& v : s.sticky)
          if (v >= 0) return true;
        for (int v = 0; v < p_.W(); ++v)
          if (s.phase[v] == kInadmissible || readopted_on_restart(s, v) ||
              (s.phase[v] == kBackoff && sched_.lq_stop(s, v) == model::StopPolicy::None))
            return true;
        for (int q : p_.deleted_cqs)
          if (s.deletion[q] == kCqTerminating) return true;
        return false;
      case kArrive: {
        const int before = p_.workloads[w].arrives_after;
        return s.phase[w] == kAbsent && (before < 0 || s.phase[before] != kAbsent);
      }
      case kDelete:
        return Scheduler::in_heap(s, w) || s.phase[w] == kInadmissible || s.phase[w] == kBackoff ||
               Scheduler::holds(s, w);
      case kProvisioned:
        return waits_for(s, w, a.check) && (s.ready[w] >> a.check & 1) == 0 &&
               p_.may_provision(a.check) && !Scheduler::writing(s, w);
      case kProvisioningFailed:
        // Failed while Accepted; BookingExpired once Provisioned, whatever the
        // autoscaler's answers, as long as another check keeps it from admission.
        return waits_for(s, w, a.check) && ((s.ready[w] >> a.check & 1) || p_.may_fail(a.check)) &&
               !Scheduler::writing(s, w);
      case kBackoffExpired:
        return s.phase[w] == kBackoff || s.phase[w] == kQueuedInBackoff ||
               (s.phase[w] == kReserved && retry_held(s, w));
      case kPodsReadyTimeout:
        // Where pods may be late or fail, only a job whose pods are not ready:
        // not yet started, or waiting for recovery where recoveryTimeout is on.
        return s.phase[w] == kAdmitted && s.budget[p_.budget_timeouts()] > 0 &&
               !Scheduler::writing(s, w) &&
               (!p_.tracks_unready() || s.unready[w] == kNotStarted ||
                (s.unready[w] == kRecovering && p_.recovery_times_out));
      case kPodFailed:
        return s.phase[w] == kAdmitted && s.unready[w] == 0 && !Scheduler::writing(s, w) &&
               s.budget[p_.budget_pod_failures()] > 0;
      case kPodsReady:
        return s.phase[w] == kAdmitted && s.unready[w] != 0;
      case kQueueEdited:
        return s.budget[p_.budget_queue_edits()] > 0 && !sched_.edit_waits(s);
      case kQueueStopped:
        return sched_.stop_acts(s, w);
      case kClusterQueueFinalized:
        return sched_.may_finalize(s, a.cq);
      case kClusterQueueTerminating:
        return sched_.may_terminate(s, a.cq);
      case kCapacityRevoked:
        // Its nodes go. Kueue's syncCheckStates acts on an active workload that
        // is not finished, holds quota and is not evicted: Admitted, or still
        // QuotaReserved on another check once this one's request is Provisioned.
        return (s.phase[w] == kAdmitted ||
                (s.phase[w] == kReserved && !retry_held(s, w) && (s.ready[w] >> a.check & 1))) &&
               !Scheduler::writing(s, w) && (waiting_for(s, w) >> a.check & 1) &&
               s.budget[p_.budget_revocations()] > 0;
      case kAdmissionWritten:
        return Scheduler::writing(s, w);
      case kAdmissionWriteFailed:
        return Scheduler::writing(s, w) && s.budget[p_.budget_write_failures()] > 0;
      case kEvictionWriteFailed:
        return s.budget[p_.budget_eviction_failures()] > 0 && Scheduler::reserved(s, w) &&
               cycle_evicts(s, w);
      case kEvictionOverwritten:
        // ... while w's own admission patch is in flight.
        return s.budget[p_.budget_late_writes()] > 0 && Scheduler::writing(s, w) &&
               cycle_evicts(s, w);
    }
    return false;
  }

  void apply_in_place(State<V>& s, const Action& a) const {
    const int w = a.workload;
    switch (a.kind) {
      case kSchedule:
        sched_.cycle(s);
        break;
      case kEvictionWriteFailed:
        sched_.cycle(s, nullptr, w);
        --s.budget[p_.budget_eviction_failures()];
        break;
      case kEvictionOverwritten:
        sched_.cycle(s, nullptr, -1, w);
        --s.budget[p_.budget_late_writes()];
        break;
      case kPodFailed:
        // generatePodsReadyCondition: True before, so WaitForRecovery.
        s.unready[w] = kRecovering;
        --s.budget[p_.budget_pod_failures()];
        break;
      case kFinish:
        sched_.release(s, w);
        s.phase[w] = kFinished;
        sched_.unstamp(s, w, true);
        break;
      case kPodsTerminated:
        if (s.phase[w] == kOrphanedPods) {
          s.phase[w] = kDeleted;
          // The group has no pods left: Kueue finalizes a Workload re-adopted
          // from them (Load finds nothing). It never holds quota: no flavor fits it.
          const int slot = p_.readoption_of(w);
          if (slot >= 0 && s.phase[slot] != kAbsent) s.phase[slot] = kDeleted;
          break;
        }
        [[fallthrough]];
      case kForceFail:
        // The job reconciler unsets the reservation. A preempted workload goes
        // back to its queue (one reclaimed while its preemptor borrowed keeps
        // that preemption's stamp); one a PodsReady timeout evicted (stamped by
        // the eviction) waits out its backoff (past the limit it was deactivated
        // at the timeout instead: kPodsReadyTimeout).
        sched_.release(s, w);
        s.phase[w] = kPending;
        if (s.reclaimed[w] != 0) {
          s.reclaimed[w] = 0;
        } else if (s.requeued[w] != kNotRequeued) {
          s.phase[w] = kBackoff;
          if (s.requeued[w] == kRequeuedInCreationOrder) s.requeued[w] = kNotRequeued;
        }
        break;
      case kKubeletLost:
        // The node lifecycle controller marks the lost node's pods NotReady:
        // a victim whose pods were ready is WaitForRecovery, where that is kept.
        if (s.phase[w] == kEvicted && p_.tracks_unready() && s.unready[w] == 0)
          s.unready[w] = kRecovering;
        s.phase[w] = s.phase[w] == kOrphanedPods ? kOrphanedStuck : kStuck;
        --s.budget[kBudgetStuck];
        break;
      case kRestart:
        // The queues rebuilt from the Workloads: every waiting one back in its
        // heap, no preemptor kept at a head. Reservations are in status, kept.
        for (auto& v : s.sticky) v = -1;
        s.blocked[0] = 0;  // the goroutine starts over
        // The cache adds a deleted ClusterQueue as its spec says (AddClusterQueue
        // reads no deletionTimestamp): active until the controller reconciles it.
        for (int q : p_.deleted_cqs)
          if (s.deletion[q] == kCqTerminating) s.deletion[q] = kCqInCache;
        for (int v = 0; v < p_.W(); ++v) {
          if (readopted_on_restart(s, v)) s.phase[p_.readoption_of(v)] = kPending;
          // Each LocalQueue's Create event pushes its workloads (AddLocalQueue), backoff or
          // not; a stopped one is not added.
          if (s.phase[v] == kInadmissible) s.phase[v] = kPending;
          if (sched_.lq_stop(s, v) == model::StopPolicy::None)
            Scheduler::push_from_local_queue(s, v);
          // A patch in flight landed: the new manager reads the reservation.
          if (Scheduler::writing(s, v)) sched_.land(s, v);
        }
        if (p_.controller_restarts > 0) --s.budget[kBudgetRestart];
        break;
      case kArrive:
        // Into its ClusterQueue's heap; a new workload frees no quota, so
        // nothing parked is requeued, unless under a Cohort object
        // (pendingWorkloads changed: status_changed).
        s.phase[w] = sched_.pushed_phase(s, w);
        sched_.stamp_born(s, w);
        sched_.status_changed(s, p_.workloads[w].cq);
        break;
      case kDelete: {
        // The cache drops a deleted Workload: its quota is free at once, even
        // while its pods are still terminating. Either way the Delete event
        // requeues its cohort tree's parked workloads
        // (QueueAssociatedInadmissibleWorkloadsAfter, for a pending one too).
        const auto was = s.phase[w];
        const int cq = p_.workloads[w].cq;
        if (Scheduler::holds(s, w))
          sched_.release(s, w);
        else
          sched_.requeue_tree(s, cq);
        if (s.sticky[cq] == w) s.sticky[cq] = -1;
        // One whose admission patch is in flight never ran: its pods are gated.
        const bool running = (was == kAdmitted && !Scheduler::writing(s, w)) || was == kEvicted;
        s.writing[w] = 0;
        s.phase[w] = was == kStuck                     ? kOrphanedStuck
                     : running && p_.workloads[w].pods ? kOrphanedPods
                                                       : kDeleted;
        if (!s.ready.empty()) s.ready[w] = 0;
        sched_.unstamp(s, w, true);
        break;
      }
      case kProvisioned: {
        s.ready[w] |= std::int64_t{1} << a.check;
        // SyncAdmittedCondition: Admitted once every check is Ready; the job starts.
        if (s.ready[w] == waiting_for(s, w)) {
          s.phase[w] = kAdmitted, s.ready[w] = 0;
          sched_.start_job(s, w);
          sched_.status_changed(s, p_.workloads[w].cq);  // admittedWorkloads
        }
        break;
      }
      case kProvisioningFailed: {
        // syncCheckStates: attempt retryCount+1 within backoffLimitCount is Retry
        // with requeueAfterSeconds (the backoff), past it Rejected. On Retry the
        // workload controller sets requeueAt and, while that is ahead, returns
        // before reconcileCheckBasedEviction: the workload keeps its reservation
        // and its quota (a preemption candidate) until BackoffExpired. The count
        // goes up now, as any eviction before then resets a Retry check to
        // retryCount+1. Rejected deactivates it.
        auto& retries = s.retries[static_cast<std::size_t>(w) * p_.K() + a.check];
        if (retries + 1 <= p_.checks[a.check].backoff_limit) {
          ++retries;  // Retry, even where it was Ready (BookingExpired)
          s.ready[w] = (s.ready[w] & ~(std::int64_t{1} << a.check)) | retry_hold_bit(p_.K());
          break;
        }
        // Rejected: the deactivation's eviction resets it, count and all.
        sched_.reset_checks_on_eviction(s, w);
        sched_.release(s, w);
        retries = 0;
        s.phase[w] = kDeactivated;
        sched_.unstamp(s, w, true);
        break;
      }
      case kBackoffExpired:
        if (s.phase[w] == kReserved) {
          // The Retry check's backoff is over: reconcileCheckBasedEviction evicts
          // it (its job never started: the quota goes at once), and requeueAt has
          // passed, so it is back in its heap at once, ordered by this eviction.
          sched_.reset_checks_on_eviction(s, w);
          sched_.release(s, w);
          sched_.stamp_requeued(s, w);
        }
        // Into its heap, in order of its eviction; one there already stays
        // (PushOrUpdate updates an active workload in place).
        s.phase[w] = s.phase[w] == kQueuedInBackoff ? kPending : sched_.pushed_phase(s, w);
        break;
      case kPodsReadyTimeout: {
        // reconcileNotReadyTimeout: past backoffLimitCount deactivate, else evict
        // (its quota goes at once: the job is suspended) and requeue after a
        // backoff, ordered by the eviction's time or its creation (requeuingStrategy.timestamp).
        --s.budget[p_.budget_timeouts()];
        sched_.reset_checks_on_eviction(s, w);
        // Past the limit it is not evicted but deactivated (triggerDeactivation):
        // the cache drops an inactive workload at once, a pod group's too, whose
        // pods terminate holding nothing.
        if (p_.counts_requeues() && s.requeues[w] + 1 > p_.pods_ready_limit) {
          sched_.release(s, w);
          s.phase[w] = kDeactivated;
          sched_.unstamp(s, w, true);
          break;
        }
        // Evicted, a pod group's pods terminate first, holding its quota
        // (PodsTerminated then ends in Backoff): marked by the eviction's stamp.
        if (p_.holds_until_pods_gone(w)) {
          s.phase[w] = kEvicted;  // still unready, where that is tracked: not PodsReady
          if (p_.counts_requeues()) ++s.requeues[w];
          sched_.stamp_timed_out(s, w, true);
          break;
        }
        sched_.release(s, w);
        if (p_.counts_requeues()) ++s.requeues[w];
        s.phase[w] = kBackoff;
        sched_.stamp_timed_out(s, w, false);
        break;
      }
      case kAdmissionWritten:
        sched_.land(s, w);
        break;
      case kPodsReady:
        s.unready[w] = 0;
        break;
      case kQueueEdited:
        sched_.edit_queue(s);
        break;
      case kQueueStopped:
        sched_.apply_stop(s, w);
        break;
      case kClusterQueueFinalized:
        sched_.finalize(s, a.cq);
        break;
      case kClusterQueueTerminating:
        s.deletion[a.cq] = kCqTerminating;
        break;
      case kCapacityRevoked:
        // Rejected: SetDeactivationTarget, spec.active false, evicted; its job
        // is stopped and its quota goes (a Job's at once); never requeued. The
        // eviction resets its checks, the Rejected one's count too.
        sched_.reset_checks_on_eviction(s, w);
        sched_.release(s, w);
        s.phase[w] = kDeactivated;
        sched_.unstamp(s, w, true);
        --s.budget[p_.budget_revocations()];
        break;
      case kAdmissionWriteFailed:
        // scheduler.go admit: cache.DeleteWorkload, then requeueAndUpdate with
        // FailedAfterNomination, which puts it straight back in its heap, in the
        // order its API object gives. Nothing else is requeued: the quota it
        // freed was never released in the API, so no event reaches the queues
        // and what was parked meanwhile stays parked.
        sched_.release(s, w, false);
        s.phase[w] = kPending;
        s.writing[w] = 0;
        if (!s.ready.empty()) s.ready[w] = 0;
        --s.budget[p_.budget_write_failures()];
        break;
    }
    // preemptionExpectations live in memory: a restart loses them. Otherwise
    // Kueue observes the expected workload once it is deleted, evicted or back
    // in a queue; only a workload still holding quota unevicted is a target
    // whose expectation a preemptor reads, so the cell is kept for those alone.
    if (p_.tracks_expectations())
      for (int v = 0; v < p_.W(); ++v)
        if (s.expecting[v] != 0 && (a.kind == kRestart || !Scheduler::reserved(s, v)))
          s.expecting[v] = 0;
  }

  // This state's cycle would issue a new eviction of w: where a fault may
  // befall that eviction (EvictionWriteFailed, EvictionOverwritten).
  bool cycle_evicts(const State<V>& s, int w) const {
    if (sched_.blocked_entry(s).w >= 0) return false;
    State<V> t = s;
    CycleOutcome out;
    sched_.cycle(t, &out);
    return std::find(out.evicted.begin(), out.evicted.end(), w) != out.evicted.end();
  }

  // w holds quota waiting for its checks, and check k is one of them.
  // Not while a Retry check holds it (retry_held): the workload controller acts on
  // nothing until its requeueAt.
  bool waits_for(const State<V>& s, int w, int k) const {
    return s.phase[w] == kReserved && !retry_held(s, w) && (waiting_for(s, w) >> k & 1);
  }
  bool retry_held(const State<V>& s, int w) const {
    return (s.ready[w] & retry_hold_bit(p_.K())) != 0;
  }
  std::int64_t waiting_for(const State<V>& s, int w) const {
    return p_.workloads[w].checks[static_cast<std::size_t>(s.flavor[w])];
  }

  // Before #15154, a restarted Kueue's pod reconciler finds w's pod group
  // (every pod terminating, the Workload gone) and builds a Workload for it.
  bool readopted_on_restart(const State<V>& s, int w) const {
    if (!p_.readopt_terminating_groups) return false;
    if (s.phase[w] != kOrphanedPods && s.phase[w] != kOrphanedStuck) return false;
    const int slot = p_.readoption_of(w);
    return slot >= 0 && s.phase[slot] == kAbsent;
  }

 private:
  const AdmissionParams& p_;
  Scheduler sched_;
};

}  // namespace kmc::protocols::ka
