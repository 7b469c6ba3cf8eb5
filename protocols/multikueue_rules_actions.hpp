// The actions of the MultiKueue protocol: one guard and one update each
// (the dispatch actions' are in multikueue_rules_dispatch.hpp). Included by
// multikueue_rules.hpp only.
#pragma once

namespace kmc::protocols {

template <class V>
auto MkRules<V>::enabled(const S& s, const MkAction& a) const -> B {
  check_action(a);
  const int j = a.job;
  switch (a.kind) {
    case ActionKind::ReserveQuota:
      // The manager's scheduler: one head per ClusterQueue, Kueue's queue order. It never
      // admits from a namespace the ClusterQueue does not select.
      if (p_.mismatched(-1, j)) return val_.truth(false);
      return s.phase[j] == kMgrPending && fits(s, p_.manager_cq[j], j) && !ahead_blocks(s, j, -1);
    case ActionKind::Nominate:
    case ActionKind::NominateNextRound:
    case ActionKind::NominateWorker:
    case ActionKind::Renominate:
    case ActionKind::CreateRemoteWorkload:
    case ActionKind::SelectWorker:
    case ActionKind::RetryDispatch:
    case ActionKind::WorkerLostTimeout:
    case ActionKind::DeleteStaleRemote:
    case ActionKind::FinishFromRemote:
    case ActionKind::LostJobStopped:
    case ActionKind::EvictedCopyDeactivated:
    case ActionKind::RecreateRemoteWorkload:
      return enabled_dispatch(s, a);
    case ActionKind::ReserveQuotaOnWorker:
    case ActionKind::ProvisioningAccepted:
    case ActionKind::ProvisioningProvisioned:
    case ActionKind::ProvisioningFailed:
    case ActionKind::ProvisioningTimeout:
    case ActionKind::JobStarted:
      return enabled_worker(s, a);
    case ActionKind::JobFinished:
    case ActionKind::SpotReclaim:
    case ActionKind::CapacityLost:
    case ActionKind::RefreshSnapshot:
    case ActionKind::WorkerDisconnected:
    case ActionKind::WorkerReconnected:
    case ActionKind::CapacityReturned:
    case ActionKind::CapacityRevoked:
      return enabled_environment(s, a);
  }
  return val_.truth(false);
}

// Each worker's Kueue, its ProvisioningRequest admission check and its
// Cluster Autoscaler (provisioning/controller.go; the autoscaler is the
// adversary, limited by the class and the scenario's answer).
template <class V>
auto MkRules<V>::enabled_worker(const S& s, const MkAction& a) const -> B {
  const int j = a.job, w = a.worker, i = jw(j, w);
  const int cq = p_.worker_cq[w][j];
  if (cq < 0) return val_.truth(false);  // no LocalQueue for the job there: never admitted
  const CqParams& q = p_.cqs[cq];
  const bool check_capacity = q.provisioning_class == ProvisioningClass::CheckCapacity;
  const auto answer = p_.answer[w];
  switch (a.kind) {
    case ActionKind::ReserveQuotaOnWorker: {
      if (p_.mismatched(w, j)) return val_.truth(false);
      B room = p_.broken_worker_ignores_quota ? val_.truth(true) : fits(s, cq, j);
      return s.remote[i] == kRemotePending && room && !ahead_blocks(s, j, w);
    }
    case ActionKind::ProvisioningAccepted:
      return check_capacity ? val_.truth(false) : s.prov[i] == kProvRequested;
    case ActionKind::ProvisioningProvisioned: {
      // check-capacity-autoscaling answers at once; the others accept first.
      B asked = s.prov[i] == (check_capacity ? kProvRequested : kProvAccepted);
      if (!check_capacity && answer == model::AutoscalerAnswer::AcceptsThenHangs)
        return val_.truth(false);
      // A timeout shorter than the boot always fires first: no node ever finishes booting.
      if (!check_capacity && p_.provisioning_timeout &&
          p_.timeout_vs_boot == MkParams::TimeoutVsBoot::TimeoutFirst)
        return val_.truth(false);
      return asked && capacity_fits(s, w, j, s.remote_flavor[i]);
    }
    case ActionKind::ProvisioningFailed: {
      B asked = s.prov[i] == (check_capacity ? kProvRequested : kProvAccepted);
      const B short_of = !capacity_fits(s, w, j, s.remote_flavor[i]);
      // Without noRetry "true" it stays Provisioned=False and is tried again later.
      if (check_capacity) return q.retries_later ? val_.truth(false) : asked && short_of;
      if (answer == model::AutoscalerAnswer::Any) return asked;
      if (answer == model::AutoscalerAnswer::Fails) return asked && short_of;
      return val_.truth(false);
    }
    case ActionKind::ProvisioningTimeout: {
      // Unanswered or Accepted for too long: either way the check is still Pending.
      B pending = s.prov[i] == kProvRequested || s.prov[i] == kProvAccepted;
      // A timeout longer than the boot fires only when no node is coming.
      if (p_.timeout_vs_boot == MkParams::TimeoutVsBoot::BootFirst)
        return pending && !capacity_fits(s, w, j, s.remote_flavor[i]);
      return pending;
    }
    case ActionKind::JobStarted: {
      B nodes = q.provisioning ? s.prov[i] == kProvProvisioned
                               : capacity_fits(s, w, j, s.remote_flavor[i]);
      // The Job object exists on w once the manager selected the copy there. Behind a partition,
      // or after another copy won with clusterName unchanged, that is no longer the manager's
      // selection, so the fleet with connection faults keeps it per copy.
      if (p_.connection_faults())
        return s.job_created[i] == 1 && s.remote[i] == kRemoteAdmitted && nodes;
      return s.phase[j] == kMgrAdmitted && s.cluster[j] == w && s.remote[i] == kRemoteAdmitted &&
             nodes;
    }
    default:
      return val_.truth(false);
  }
}

template <class V>
auto MkRules<V>::enabled_environment(const S& s, const MkAction& a) const -> B {
  const int j = a.job, w = a.worker;
  switch (a.kind) {
    case ActionKind::JobFinished:
      // Behind a partition a copy the manager gave up on may still run, and finish.
      if (p_.connection_faults()) return s.remote[jw(j, w)] == kRemoteRunning;
      return s.remote[jw(j, w)] == kRemoteRunning && s.cluster[j] == w;
    case ActionKind::SpotReclaim:
      return s.budget[kSpotReclaims] != 0 && s.remote[jw(j, w)] == kRemoteRunning;
    case ActionKind::CapacityLost: {
      B some = val_.truth(false);
      for (int r = 0; r < R_; ++r) some = some || s.capacity[c(w, a.slot, r)] > 0;
      return s.budget[kCapacityLosses] != 0 && some;
    }
    case ActionKind::RefreshSnapshot: {
      B differs = s.staleness[w] > 0;
      for (int k = 0; k < S_ * R_; ++k)
        differs = differs || s.snapshot[w * S_ * R_ + k] != s.capacity[w * S_ * R_ + k];
      return s.budget[kSnapshotRefreshes] != 0 && differs;
    }
    case ActionKind::WorkerDisconnected:
      return s.budget[kWorkerDisconnects] != 0 && s.connected[w] == 1;
    case ActionKind::WorkerReconnected:
      return s.connected[w] == 0;
    case ActionKind::CapacityReturned: {
      B short_of = val_.truth(false);
      for (int r = 0; r < R_; ++r)
        short_of =
            short_of || s.capacity[c(w, a.slot, r)] <
                            val_.lit(p_.capacity0[c(w, a.slot, r)]) - held_nodes(s, w, a.slot, r);
      return s.budget[kCapacityReturns] != 0 && short_of;
    }
    case ActionKind::CapacityRevoked: {
      // provisioning/controller.go: CapacityRevoked maps the check to Rejected while the
      // Workload is active and not finished, which deactivates it.
      const int i = jw(j, w);
      const V& r = s.remote[i];
      return s.budget[kCapacityRevocations] != 0 && s.prov[i] == kProvProvisioned &&
             (r == kRemoteAdmitted || r == kRemoteRunning);
    }
    default:
      return val_.truth(false);
  }
}

template <class V>
void MkRules<V>::apply_in_place(S& s, const MkAction& a) const {
  check_action(a);
  const int j = a.job, w = a.worker;
  const int i = j >= 0 && w >= 0 ? jw(j, w) : -1;
  const int wcq = i >= 0 ? p_.worker_cq[w][j] : -1;
  switch (a.kind) {
    case ActionKind::ReserveQuota: {
      const V f = first_fit(s, p_.manager_cq[j], j);
      if constexpr (model::is_explicit<V>)
        KMC_ASSERT_MSG(f >= 0, "enabled: the job fits some flavor");
      s.phase[j] = kMgrQuotaReserved;
      s.mgr_flavor[j] = f;
      add_usage(s, p_.manager_cq[j], j, f, +1);
      dequeue(s, p_.manager_cq[j], j);
      break;
    }
    case ActionKind::ReserveQuotaOnWorker: {
      V f = first_fit(s, wcq, j);
      if (p_.broken_worker_ignores_quota) f = ite(f == -1, val_.lit(0), f);
      if constexpr (model::is_explicit<V>)
        KMC_ASSERT_MSG(f >= 0, "enabled: the copy fits, or quota is ignored");
      s.remote_flavor[i] = f;
      add_usage(s, wcq, j, f, +1);
      dequeue(s, wcq, j);
      if (p_.cqs[wcq].provisioning) {
        s.remote[i] = kRemoteQuotaReserved;
        s.prov[i] = kProvRequested;  // the check controller creates the request at once
      } else {
        s.remote[i] = kRemoteAdmitted;  // no checks: QuotaReserved and Admitted in one patch
      }
      break;
    }
    case ActionKind::ProvisioningAccepted:
      s.prov[i] = kProvAccepted;
      break;
    case ActionKind::ProvisioningProvisioned:
      // Provisioned maps the check to Ready; with every check Ready the
      // worker's Workload is Admitted. The nodes are booked for this job.
      s.prov[i] = kProvProvisioned;
      s.remote[i] = kRemoteAdmitted;
      take_capacity(s, w, j, s.remote_flavor[i], +1);
      break;
    case ActionKind::ProvisioningFailed:
    case ActionKind::ProvisioningTimeout:
      fail_provisioning(s, j, w);
      break;
    case ActionKind::JobStarted:
      s.remote[i] = kRemoteRunning;
      if (!p_.cqs[wcq].provisioning) take_capacity(s, w, j, s.remote_flavor[i], +1);
      break;
    case ActionKind::JobFinished:
      take_capacity(s, w, j, s.remote_flavor[i], -1);
      add_usage(s, wcq, j, s.remote_flavor[i], -1);
      if (p_.connection_faults()) {
        finish_on_worker(s, j, w);
        break;
      }
      // The MultiKueue controller finishes the manager's workload and, as it is
      // finished, deletes the remote copies (reconcileGroup). Found by
      // `kmc validate`: the model used to keep a Finished copy forever.
      s.remote[i] = kRemoteNone;
      s.remote_flavor[i] = -1;
      s.prov[i] = kProvNone;
      s.attempts[i] = 0;
      add_usage(s, p_.manager_cq[j], j, s.mgr_flavor[j], -1);
      s.phase[j] = kMgrFinished;
      s.mgr_flavor[j] = -1;
      break;
    case ActionKind::SpotReclaim:
      // The nodes are gone for good. Only waitForPodsReady makes Kueue react:
      // without it the copy stays Admitted, holding its quota, with pods that
      // never start again where the nodes came from a ProvisioningRequest.
      if (!p_.evicts_on_pods_not_ready(w)) {
        s.remote[i] = kRemoteAdmitted;
        s.prov[i] = kProvNone;
        spend(s, kSpotReclaims);
        capacity_changed(s, w, val_.truth(true));
        break;
      }
      // With it, recoveryTimeout evicts the copy and the worker requeues it, by the eviction's
      // time (requeuingStrategy.timestamp Eviction, the default).
      add_usage(s, wcq, j, s.remote_flavor[i], -1);
      s.remote[i] = kRemotePending;
      enqueue(s, wcq, j);
      s.remote_flavor[i] = -1;
      s.prov[i] = kProvNone;
      s.attempts[i] = 0;
      spend(s, kSpotReclaims);
      capacity_changed(s, w, val_.truth(true));
      break;
    case ActionKind::CapacityLost:
      for (int r = 0; r < R_; ++r) s.capacity[c(w, a.slot, r)] = 0;
      spend(s, kCapacityLosses);
      capacity_changed(s, w, val_.truth(true));
      break;
    case ActionKind::RefreshSnapshot:
      for (int k = 0; k < S_ * R_; ++k) s.snapshot[w * S_ * R_ + k] = s.capacity[w * S_ * R_ + k];
      s.staleness[w] = 0;
      spend(s, kSnapshotRefreshes);
      break;
    case ActionKind::WorkerDisconnected:
      s.connected[w] = 0;
      spend(s, kWorkerDisconnects);
      // The manager's Job keeps the last status SyncJob copied from w: active where the job it
      // selected there runs (the copy is synced on every change while w is reachable).
      if (p_.mirror_job_status)
        for (int k = 0; k < J_; ++k) {
          const B active = s.phase[k] == kMgrAdmitted && s.cluster[k] == w &&
                           s.remote[jw(k, w)] == kRemoteRunning;
          s.mirrored_active[k] = ite(active, val_.lit(w), s.mirrored_active[k]);
        }
      break;
    case ActionKind::WorkerReconnected:
      s.connected[w] = 1;
      // In view again: the live status replaces the remembered one, except for an evicted
      // workload, whose release LostJobStopped makes.
      if (p_.mirror_job_status)
        for (int k = 0; k < J_; ++k) {
          const B seen = s.mirrored_active[k] == w && s.phase[k] != kMgrEvicted;
          s.mirrored_active[k] = ite(seen, val_.lit(-1), s.mirrored_active[k]);
        }
      break;
    case ActionKind::CapacityReturned:
      for (int r = 0; r < R_; ++r) {
        V& cap = s.capacity[c(w, a.slot, r)];
        const V back = val_.lit(p_.capacity0[c(w, a.slot, r)]) - held_nodes(s, w, a.slot, r);
        cap = ite(cap < back, back, cap);
      }
      spend(s, kCapacityReturns);
      capacity_changed(s, w, val_.truth(true));
      break;
    case ActionKind::CapacityRevoked:
      // The check Rejected deactivates the copy: its quota goes, and the nodes with the
      // request (the autoscaler took them back, not to the free pool). One failed attempt more,
      // as the check's count says.
      add_usage(s, wcq, j, s.remote_flavor[i], -1);
      s.remote[i] = kRemoteRejected;
      s.remote_flavor[i] = -1;
      s.prov[i] = kProvNone;
      s.attempts[i] = s.attempts[i] + 1;
      spend(s, kCapacityRevocations);
      break;
    default:
      apply_dispatch(s, a);
      break;
  }
  check_after(s, a);
}

// An action's arguments index the parameters' axes; -1 means "none".
template <class V>
void MkRules<V>::check_action(const MkAction& a) const {
  KMC_ASSERT(-1 <= a.job && a.job < J_ && -1 <= a.worker && a.worker < W_);
  KMC_ASSERT_MSG(-1 <= a.slot && a.slot < S_ && (a.slot < 0 || a.worker >= 0),
                 "a slot is a worker's");
}

// What the action wrote stays in its field's range. Explicit engine only: a
// Z3 term has no value to check. Only the action's own job and copy, so that
// the check costs a few comparisons and not a pass over the state.
template <class V>
void MkRules<V>::check_after(const S& s, const MkAction& a) const {
  if constexpr (model::is_explicit<V>) {
    if (a.job < 0) return;
    const int j = a.job;
    check_queue_order(s, j);
    KMC_ASSERT_MSG(kMgrPending <= s.phase[j] && s.phase[j] <= kMgrEvicted &&
                       (p_.connection_faults() || s.phase[j] != kMgrEvicted),
                   "phase is a ManagerPhase");
    KMC_ASSERT(-1 <= s.cluster[j] && s.cluster[j] < W_ && -1 <= s.mgr_flavor[j] &&
               s.mgr_flavor[j] < F_);
    if (a.worker < 0) return;
    const int i = jw(j, a.worker);
    KMC_ASSERT_MSG(kRemoteNone <= s.remote[i] && s.remote[i] <= kRemoteRejected,
                   "remote is a RemotePhase");
    KMC_ASSERT_MSG(kProvNone <= s.prov[i] && s.prov[i] <= kProvProvisioned, "prov is a ProvPhase");
    KMC_ASSERT(-1 <= s.remote_flavor[i] && s.remote_flavor[i] < F_ &&
               (s.nominated[i] == 0 || s.nominated[i] == 1));
  }
}

}  // namespace kmc::protocols
