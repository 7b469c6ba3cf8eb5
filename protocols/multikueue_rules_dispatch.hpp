// The MultiKueue protocol's dispatch actions, guard and update: the manager's
// MultiKueue controller and its dispatchers (AllAtOnce, Incremental), as
// multikueue/workload.go and workloaddispatcher/ do them. Included by
// multikueue_rules.hpp only.
#pragma once

namespace kmc::protocols {

// The manager's MultiKueue controller and dispatchers
// (multikueue/workload.go: reconcileGroup, nominateAndSynchronizeWorkers;
// workloaddispatcher/incrementaldispatcher.go).
template <class V>
auto MkRules<V>::enabled_dispatch(const S& s, const MkAction& a) const -> B {
  const int j = a.job, w = a.worker;
  // Eviction resets the MultiKueue check to Pending and clears clusterName (evict.go:
  // prepareForEviction), so ShouldSkipClusterNomination lets step 8 and the dispatchers nominate
  // workers again for an evicted workload that still holds its quota (kMgrEvicted): its copies
  // are created and admitted as any others, but one that wins is deactivated, not selected
  // (EvictedCopyDeactivated).
  const B selectable = s.phase[j] == kMgrQuotaReserved && s.cluster[j] == -1;
  const B dispatching = selectable || s.phase[j] == kMgrEvicted;
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
    case ActionKind::RecreateRemoteWorkload:
      // Steps 5 and 8 of one reconcile: a copy its worker deactivated (check Rejected) differs
      // from the manager's spec (spec.active), so it is deleted, and with no copy Admitted in
      // view (else 6b converges on that one) nominateAndSynchronizeWorkers creates it again on
      // the still nominated worker. An evicted workload stops at step 4 (its copies are
      // evicted), and a selected one goes Retry instead (RetryDispatch).
      return selectable && s.nominated[jw(j, w)] == 1 && s.remote[jw(j, w)] == kRemoteRejected &&
             connected(s, w) && !visible_winner_elsewhere(s, j, w);
    case ActionKind::SelectWorker: {
      if (!p_.connection_faults()) return selectable && winning(s.remote[jw(j, w)]);
      // A copy seen again after a partition may already run (it was selected before the manager
      // gave up on its worker), and may turn up while another worker's copy is selected: step 6b
      // converges on the earliest Admitted, which kmc cannot order, so either copy may win.
      const V& r = s.remote[jw(j, w)];
      const B elsewhere = s.phase[j] == kMgrAdmitted && s.cluster[j] != w;
      return (selectable || elsewhere) && (winning(r) || r == kRemoteRunning) && connected(s, w);
    }
    case ActionKind::RetryDispatch: {
      // reconcileGroup, steps 4 and 6a: with the check Ready, a selected copy that no longer has
      // the winning condition (evicted on its worker, requeued, and perhaps already holding
      // quota again there, or rejected) sets the check to Retry. Before #8477 only a copy that
      // is gone did, once workerLostTimeout had passed since the check went Ready (kmc does not
      // order it); the cluster that held it tried to readmit it on its own. A copy its worker
      // deactivated (Rejected) is gone in either: step 5 deletes it, out of sync.
      const V& r = s.remote[jw(j, w)];
      const B running = r == kRemoteRunning;  // its pods run: still Admitted in Kueue
      const B deleted = r == kRemoteNone || r == kRemoteRejected;
      B lost = deleted;
      if (p_.redispatch_on_worker_eviction) lost = !winning(r) && !running;
      if (p_.connection_faults()) {
        // Step 4 (the selected copy evicted on its worker) comes before step 6a (the copy gone),
        // which waits while some other reachable copy is Admitted (6b converges on it instead).
        const B gone = deleted && !visible_winner_elsewhere(s, j, w);
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
    case ActionKind::EvictedCopyDeactivated:
      // Step 6b for a workload evicted on the manager that still holds its quota: a reachable
      // copy it was dispatched to again is Admitted there, so the controller sets
      // DeactivationTarget (EvictedOnManagerCluster) on it; the worker evicts it, and step 4's
      // SyncJob creates its Job there, suspended, then mirrors that Job's status, which reads
      // inactive, so the jobframework releases the manager's reservation. kmc takes those
      // reconciles as one step: nothing else reads the copy once it is deactivated. (Kueue may
      // loop first: a reconcile between spec.active=false and the worker's eviction finds the
      // copy out of sync, deletes it in step 5 and creates it again in step 8; it costs another
      // admission on the worker, not the outcome.)
      return s.phase[j] == kMgrEvicted && s.mirrored_active[j] != w && connected(s, w) &&
             winning(s.remote[jw(j, w)]);
    default:
      return val_.truth(false);
  }
}

// What each dispatch action does to the state (the guard above says when).
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
      // Created now, so it queues behind the copies already waiting there.
      if (p_.worker_cq[w][j] >= 0) enqueue(s, p_.worker_cq[w][j], j);
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
      enqueue(s, p_.manager_cq[j], j);  // evicted by the check: behind the jobs that waited
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
      // Queued from the eviction's time, even while its quota is held (kMgrEvicted): released
      // later, it waits behind the jobs evicted before it, not behind those evicted since.
      enqueue(s, p_.manager_cq[j], j);
      delete_reachable_remotes(s, j);
      break;
    }
    case ActionKind::LostJobStopped:
    case ActionKind::EvictedCopyDeactivated: {
      add_usage(s, p_.manager_cq[j], j, s.mgr_flavor[j], -1);
      s.phase[j] = kMgrPending;
      s.mgr_flavor[j] = -1;
      s.mirrored_active[j] = -1;
      // Step 2: no reservation, so no copy stays. The nominations made since the eviction stay.
      delete_reachable_remotes(s, j, /*keep_nominations=*/true);
      break;
    }
    case ActionKind::DeleteStaleRemote:
      delete_remote(s, j, w);
      break;
    case ActionKind::RecreateRemoteWorkload:
      // A new Workload: a new ProvisioningRequest, attempts from 0, queued as created now.
      delete_remote(s, j, w);
      s.nominated[jw(j, w)] = 1;
      apply_dispatch(s, MkAction{ActionKind::CreateRemoteWorkload, a.job, a.worker, -1, a.id});
      break;
    case ActionKind::FinishFromRemote:
      dequeue(s, p_.manager_cq[j], j);  // from kMgrEvicted, queued; else a no-op
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

}  // namespace kmc::protocols
