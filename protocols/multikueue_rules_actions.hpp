// The actions of the MultiKueue protocol: one guard and one update each.
// Included by multikueue_rules.hpp only.
#pragma once

namespace kmc::protocols {

template <class V>
auto MkRules<V>::enabled(const S& s, const MkAction& a) const -> B {
  check_action(a);
  const int j = a.job;
  switch (a.kind) {
    case ActionKind::ReserveQuota: {
      // The manager's scheduler: one head per ClusterQueue, Kueue's queue order.
      const int cq = p_.manager_cq[j];
      B blocked = val_.truth(false);
      for (int k = 0; k < j; ++k) {
        if (p_.manager_cq[k] != cq) continue;
        B pending = s.phase[k] == kMgrPending;
        blocked = blocked || (p_.cqs[cq].strict_fifo ? pending : pending && fits(s, cq, k));
      }
      return s.phase[j] == kMgrPending && fits(s, cq, j) && !blocked;
    }
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

// The manager's MultiKueue controller and dispatchers
// (multikueue/workload.go: reconcileGroup, nominateAndSynchronizeWorkers;
// workloaddispatcher/incrementaldispatcher.go).
template <class V>
auto MkRules<V>::enabled_dispatch(const S& s, const MkAction& a) const -> B {
  const int j = a.job, w = a.worker;
  const B dispatching = s.phase[j] == kMgrQuotaReserved && s.cluster[j] == -1;
  switch (a.kind) {
    case ActionKind::Nominate:
      if (p_.connection_faults() && p_.dispatcher == Dispatcher::AllAtOnce) {
        // AllAtOnce nominates exactly the workers it reaches, every reconcile: it moves with them.
        B differs = val_.truth(false);
        for (int o : p_.dispatch_order)
          differs = differs || s.nominated[jw(j, o)] != s.connected[o];
        return dispatching && differs;
      }
      return dispatching && count_nominated(s, j) == 0;
    case ActionKind::NominateNextRound: {
      const V n = count_nominated(s, j);
      return dispatching && n > 0 && n < W_;
    }
    case ActionKind::NominateWorker: {
      B fresh = p_.max_staleness < 0 ? val_.truth(true) : s.staleness[w] <= p_.max_staleness;
      B ok = dispatching && s.nominated[jw(j, w)] == 0 && snapshot_fits(s, w, j) && fresh;
      if (!p_.pin) return ok;
      // Pinning: one worker, the first in dispatch order that the view shows room on.
      B earlier = val_.truth(false);
      for (int o : p_.dispatch_order) {
        if (o == w) break;
        earlier = earlier || snapshot_fits(s, o, j);
      }
      return ok && count_nominated(s, j) == 0 && !earlier;
    }
    case ActionKind::Renominate: {
      B rejected = val_.truth(false);
      for (int o = 0; o < W_; ++o)
        rejected = rejected || (s.nominated[jw(j, o)] == 1 &&
                                s.remote[jw(j, o)] == kRemoteRejected && connected(s, o));
      return dispatching && rejected;
    }
    case ActionKind::CreateRemoteWorkload:
      return dispatching && s.nominated[jw(j, w)] == 1 && s.remote[jw(j, w)] == kRemoteNone &&
             connected(s, w);
    case ActionKind::SelectWorker: {
      if (!p_.connection_faults()) return dispatching && winning(s.remote[jw(j, w)]);
      // A copy seen again after a partition may already run (it was selected before the manager
      // gave up on its worker), and may turn up while another worker's copy is selected: step 6b
      // converges on the earliest Admitted, which kmc cannot order, so either copy may win.
      const V& r = s.remote[jw(j, w)];
      const B elsewhere = s.phase[j] == kMgrAdmitted && s.cluster[j] != w;
      return (dispatching || elsewhere) && (winning(r) || r == kRemoteRunning) && connected(s, w);
    }
    case ActionKind::RetryDispatch: {
      // reconcileGroup, steps 4 and 6a: with the check Ready, a selected copy that no longer has
      // the winning condition (evicted on its worker, requeued, and perhaps already holding
      // quota again there, or rejected) sets the check to Retry. Before #8477 only a copy that
      // is gone did; the cluster that held it tried to readmit it on its own.
      const V& r = s.remote[jw(j, w)];
      const B running = r == kRemoteRunning;  // its pods run: still Admitted in Kueue
      B lost = r == kRemoteNone;
      if (p_.redispatch_on_worker_eviction) lost = !winning(r) && !running;
      if (p_.connection_faults()) {
        // Step 4 (the selected copy evicted on its worker) comes before step 6a (the copy gone),
        // which waits while some other reachable copy is Admitted (6b converges on it instead).
        const B gone = r == kRemoteNone && !visible_winner_elsewhere(s, j, w);
        const B evicted = p_.redispatch_on_worker_eviction
                              ? r != kRemoteNone && !winning(r) && !running
                              : val_.truth(false);
        lost = (gone || evicted) && connected(s, w);
      }
      return s.phase[j] == kMgrAdmitted && s.cluster[j] == w && lost;
    }
    case ActionKind::WorkerLostTimeout:
      // Step 6a with the selected worker unreachable: after workerLostTimeout (kmc does not
      // order it against the other steps) the check goes Retry, "Reserving remote lost".
      return s.phase[j] == kMgrAdmitted && s.cluster[j] == w && !connected(s, w) &&
             !visible_winner_elsewhere(s, j, w);
    case ActionKind::DeleteStaleRemote: {
      // A copy on a reachable worker that the manager did not select and does not nominate,
      // as after a partition: step 2 deletes it when the manager's workload holds no quota (or
      // finished); step 5/6b when another worker's copy is selected; nominateAndSynchronize
      // when dispatching (AllAtOnce nominates it again instead: Nominate).
      const V& r = s.remote[jw(j, w)];
      const V& phase = s.phase[j];
      const B present = r != kRemoteNone && connected(s, w);
      // Step 2: with no quota reservation, or finished, every reachable copy goes, the one on
      // the clusterName worker too (a job finished from another worker's copy).
      const B idle = phase == kMgrPending || phase == kMgrFinished;
      // (An evicted workload that keeps its quota keeps its copies too: step 2 deletes them when
      // the reservation goes, LostJobStopped.)
      const B unselected = s.cluster[j] != w && s.nominated[jw(j, w)] == 0;
      // Step 6b deletes the copies besides an Admitted one in view; with none in view, 6a waits.
      const B other =
          phase == kMgrAdmitted && r != kRemoteFinished && visible_winner_elsewhere(s, j, w);
      B unwanted = val_.truth(false);
      if (p_.dispatcher != Dispatcher::AllAtOnce)
        unwanted = dispatching && !winning(r) && r != kRemoteRunning && r != kRemoteFinished;
      return present && (idle || (unselected && (other || unwanted)));
    }
    case ActionKind::FinishFromRemote: {
      // Step 3: a reachable copy finished (on a worker that ran it through a partition):
      // the manager's workload finishes, whichever worker it was dispatched to since.
      const V& phase = s.phase[j];
      return s.remote[jw(j, w)] == kRemoteFinished && connected(s, w) &&
             (phase == kMgrQuotaReserved || phase == kMgrAdmitted || phase == kMgrEvicted);
    }
    case ActionKind::LostJobStopped:
      // The worker whose Job kept the evicted workload's quota is reachable again: reconcileGroup
      // deactivates its copy there (6b, EvictedOnManagerCluster) or finds it no longer running,
      // SyncJob mirrors the Job inactive, and the jobframework releases the reservation. A copy
      // that finished there is FinishFromRemote's.
      return s.phase[j] == kMgrEvicted && s.mirrored_active[j] == w && connected(s, w) &&
             s.remote[jw(j, w)] != kRemoteFinished;
    default:
      return val_.truth(false);
  }
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
      if (check_capacity) return asked && short_of;
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
void MkRules<V>::apply_dispatch(S& s, const MkAction& a) const {
  const int j = a.job, w = a.worker;
  switch (a.kind) {
    case ActionKind::Nominate:
      // AllAtOnce: every connected worker; Incremental: the first round.
      for (std::size_t pos = 0; pos < p_.dispatch_order.size(); ++pos) {
        const int o = p_.dispatch_order[pos];
        if (p_.dispatcher == Dispatcher::AllAtOnce && p_.connection_faults())
          s.nominated[jw(j, o)] = s.connected[o];
        else if (p_.dispatcher == Dispatcher::AllAtOnce || static_cast<int>(pos) < p_.step_size)
          s.nominated[jw(j, o)] = 1;
      }
      break;
    case ActionKind::NominateNextRound: {
      const V n = count_nominated(s, j);  // nominations form a prefix of the dispatch order
      for (std::size_t pos = 0; pos < p_.dispatch_order.size(); ++pos) {
        V& nom = s.nominated[jw(j, p_.dispatch_order[pos])];
        nom = ite(n + p_.step_size > static_cast<std::int64_t>(pos), val_.lit(1), nom);
      }
      break;
    }
    case ActionKind::NominateWorker:
      s.nominated[jw(j, w)] = 1;
      break;
    case ActionKind::Renominate:
      for (int o = 0; o < W_; ++o) {
        const int i = jw(j, o);
        const B drop = s.remote[i] == kRemoteRejected && connected(s, o);
        s.remote[i] = ite(drop, val_.lit(kRemoteNone), s.remote[i]);
        s.attempts[i] = ite(drop, val_.lit(0), s.attempts[i]);
        s.nominated[i] = ite(drop, val_.lit(0), s.nominated[i]);
      }
      break;
    case ActionKind::CreateRemoteWorkload:
      s.remote[jw(j, w)] = kRemotePending;
      break;
    case ActionKind::SelectWorker:
      // First copy to reach the condition wins: MultiKueue check Ready,
      // clusterName set, nominations cleared, the other copies deleted.
      // clusterName is immutable once set: a copy seen again after a partition
      // that wins over the selected one gets the others deleted, and the patch
      // that would name its worker fails (syncReservingRemoteState).
      if (p_.connection_faults()) {
        s.cluster[j] = ite(s.phase[j] == kMgrAdmitted, s.cluster[j], val_.lit(w));
        s.job_created[jw(j, w)] = 1;  // SyncJob creates the Job before the status patch
      } else {
        s.cluster[j] = w;
      }
      s.phase[j] = kMgrAdmitted;
      for (int o = 0; o < W_; ++o) {
        if (o == w || p_.broken_keep_losers) {
          s.nominated[jw(j, o)] = 0;
          continue;
        }
        if (!p_.connection_faults()) {
          delete_remote(s, j, o);
        } else {
          const B reach = connected(s, o);
          delete_remote(s, j, o, &reach);
          s.nominated[jw(j, o)] = 0;
        }
      }
      break;
    case ActionKind::RetryDispatch:
      // Check Retry: the manager evicts its Workload, releases manager quota once its Job
      // (mirroring a copy that no longer runs) reads inactive, and deletes every copy it reaches.
      add_usage(s, p_.manager_cq[j], j, s.mgr_flavor[j], -1);
      s.phase[j] = kMgrPending;
      s.cluster[j] = -1;
      s.mgr_flavor[j] = -1;
      delete_reachable_remotes(s, j);
      break;
    case ActionKind::WorkerLostTimeout: {
      // Check Retry, then evicted as above, except where the manager's Job still mirrors the lost
      // worker's Job as active (its last status before the partition): then the reservation stays
      // until that Job reads inactive, which needs the worker back (LostJobStopped). Copies it
      // reaches go; the one behind the partition keeps running.
      const B held = s.mirrored_active[j] == w;
      add_usage(s, p_.manager_cq[j], j, ite(held, val_.lit(-1), s.mgr_flavor[j]), -1);
      s.phase[j] = ite(held, val_.lit(kMgrEvicted), val_.lit(kMgrPending));
      s.cluster[j] = -1;
      s.mgr_flavor[j] = ite(held, s.mgr_flavor[j], val_.lit(-1));
      delete_reachable_remotes(s, j);
      break;
    }
    case ActionKind::LostJobStopped:
      add_usage(s, p_.manager_cq[j], j, s.mgr_flavor[j], -1);
      s.phase[j] = kMgrPending;
      s.mgr_flavor[j] = -1;
      s.mirrored_active[j] = -1;
      delete_reachable_remotes(s, j);  // step 2: no reservation, so no copy stays
      break;
    case ActionKind::DeleteStaleRemote:
      delete_remote(s, j, w);
      break;
    case ActionKind::FinishFromRemote:
      add_usage(s, p_.manager_cq[j], j, s.mgr_flavor[j], -1);
      s.phase[j] = kMgrFinished;
      s.mgr_flavor[j] = -1;
      s.mirrored_active[j] = -1;
      delete_reachable_remotes(s, j);
      break;
    default:
      break;
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
      break;
    }
    case ActionKind::ReserveQuotaOnWorker: {
      V f = first_fit(s, wcq, j);
      if (p_.broken_worker_ignores_quota) f = ite(f == -1, val_.lit(0), f);
      if constexpr (model::is_explicit<V>)
        KMC_ASSERT_MSG(f >= 0, "enabled: the copy fits, or quota is ignored");
      s.remote_flavor[i] = f;
      add_usage(s, wcq, j, f, +1);
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
      // With it, recoveryTimeout evicts the copy and the worker requeues it.
      add_usage(s, wcq, j, s.remote_flavor[i], -1);
      s.remote[i] = kRemotePending;
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
