// MultiKueue replay's step driver (replayer.hpp).
#include "counterexamples/multikueue/replayer.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/controllers.hpp"
#include "engine/lookup.hpp"

namespace kmc::cx::mk {

using protocols::ActionKind;

void Replayer::react(int w) {
  engine::Engine& e = cluster(w);
  e.now_ms = std::max(e.now_ms, fleet_.now());
  while (!e.events.empty() && e.events.next_time() <= e.now_ms) {
    auto [at, ev] = e.events.pop();
    e.handle(ev);
  }
}

void Replayer::schedule(int w) {
  engine::Engine& e = cluster(w);
  e.now_ms = std::max(e.now_ms, fleet_.now());
  e.run(-1, e.now_ms);
}

bool Replayer::reconcile(int j) {
  engine::WorkloadInfo* l = local(j);
  const std::string check = l == nullptr ? "" : engine::multikueue_check(fleet_.manager, *l);
  if (check.empty()) return false;
  fleet_.manager.now_ms = std::max(fleet_.manager.now_ms, fleet_.now());
  return engine::reconcile_multikueue(fleet_, *l, check);
}

bool Replayer::drive(const std::function<void()>& act, const std::function<bool()>& done) {
  for (int turn = 0; turn < 256; ++turn) {
    act();
    if (done()) return true;
    const engine::TimeMs next = fleet_.next_due();
    if (next < 0) return false;
    fleet_.set_now(next);
  }
  return false;
}

void Replayer::post_provisioning(int j, int w, const std::string& condition) {
  engine::Engine& e = cluster(w);
  e.now_ms = std::max(e.now_ms, fleet_.now());
  e.post(e.now_ms, engine::ev::ProvisioningRequestCondition{
                       p_.jobs[j], view_.provisioning_check(j, w), condition});
  react(w);
}

// Whether the manager's status copy had caught up with pods that started on w before the
// connection dropped is network timing, the environment's: taken from the trace, as free capacity
// is. The engine starts a selected copy's pods in the same reconcile that selects it, so it may be
// ahead of the trace (pods running, not yet seen), never behind: a trace whose manager saw pods
// the engine does not run diverges here.
Outcome Replayer::last_status_seen(const ItfStep& s) {
  if (!fleet_.manager.gate("MultiKueueBatchJobWithManagedBy")) return {};
  const int w = s.worker;
  for (int j = 0; j < p_.J(); ++j) {
    engine::WorkloadInfo* l = local(j);
    if (l == nullptr || l->obj.cluster_name != p_.workers[w] || l->is_evicted()) continue;
    const model::CellValue* seen = s.cells.find("mirrored_active", {p_.jobs[j]});
    const bool active = seen != nullptr && *seen == model::CellValue{p_.workers[w]};
    const engine::WorkloadInfo* r = view_.remote(j, w);
    if (active && (r == nullptr || !r->job_active))
      return {false, fmt::format("the trace's manager saw {}'s pods active on {}, which do not run "
                                 "in the engine",
                                 p_.jobs[j], p_.workers[w])};
    l->mirrored_job_active = active;
    l->mirrored_from = p_.workers[w];
  }
  return {};
}

Outcome Replayer::scheduler_step(const ItfStep& s) {
  const int j = s.job, w = s.worker;
  const bool on_worker = s.kind == ActionKind::ReserveQuotaOnWorker;
  auto reserved = [&] {
    const engine::WorkloadInfo* wl = on_worker ? view_.remote(j, w) : view_.local(j);
    return wl != nullptr && wl->has_quota_reservation();
  };
  const bool ok = drive([&] { schedule(on_worker ? w : -1); }, reserved);
  const engine::WorkloadInfo* wl = on_worker ? view_.remote(j, w) : view_.local(j);
  const std::string where = on_worker ? p_.workers[w] : "the manager";
  if (ok) return {true, fmt::format("{}'s scheduler reserved quota for {}", where, p_.jobs[j])};
  return {false, fmt::format("{}'s scheduler never reserved quota for {}{}", where, p_.jobs[j],
                             wl == nullptr                 ? " (no such workload there)"
                             : wl->pending_message.empty() ? ""
                                                           : ": " + wl->pending_message)};
}

Outcome Replayer::dispatch_step(const ItfStep& s) {
  const int j = s.job, w = s.worker;
  engine::WorkloadInfo* l = local(j);
  if (l == nullptr) return {false, "the manager has no workload " + p_.jobs[j]};
  auto& nominated = l->obj.nominated_cluster_names;
  switch (s.kind) {
    case ActionKind::Nominate:
    case ActionKind::NominateNextRound: {
      const std::size_t before = nominated.size();
      const model::AdmissionCheck* ac = engine::find_admission_check(
          fleet_.manager.manifests, engine::multikueue_check(fleet_.manager, *l));
      const model::MultiKueueConfig* cfg = nullptr;
      for (const auto& c : fleet_.manager.manifests.multikueue_configs)
        if (ac != nullptr && c.meta.name == ac->parameters.name) cfg = &c;
      if (cfg == nullptr) return {false, "the manager's workload has no MultiKueue check"};
      const bool ok = drive([&] { engine::nominate_clusters(fleet_, *l, *cfg); },
                            [&] { return nominated.size() > before; });
      return {ok, fmt::format("the dispatcher nominated [{}]", fmt::join(nominated, ", "))};
    }
    case ActionKind::NominateWorker:
      // kmc's capacity-snapshot dispatcher is an External dispatcher: outside
      // Kueue, it writes nominatedClusterNames from what its (stale) read returned.
      if (p_.pin) nominated.clear();
      nominated.push_back(p_.workers[w]);
      return {true, fmt::format("the external dispatcher wrote nominatedClusterNames [{}]",
                                fmt::join(nominated, ", "))};
    case ActionKind::Renominate: {
      view_.drop_rejected(nominated, j);
      reconcile(j);
      return {
          true,
          fmt::format(
              "the external dispatcher dropped the rejected workers: nominatedClusterNames [{}]",
              fmt::join(nominated, ", "))};
    }
    case ActionKind::CreateRemoteWorkload: {
      const bool ok = drive([&] { reconcile(j); }, [&] { return view_.remote(j, w) != nullptr; });
      return {ok, ok ? "the MultiKueue controller created the remote Workload on " + p_.workers[w]
                     : "the MultiKueue controller did not create a copy on " + p_.workers[w]};
    }
    case ActionKind::RecreateRemoteWorkload: {
      // A new object: another UID, active, where the deactivated copy was.
      const engine::WorkloadInfo* old = view_.remote(j, w);
      const std::int64_t old_uid = old != nullptr ? old->uid : -1;
      const bool ok = drive([&] { reconcile(j); },
                            [&] {
                              const engine::WorkloadInfo* r = view_.remote(j, w);
                              return r != nullptr && r->obj.active && r->uid != old_uid;
                            });
      return {ok, ok ? "the copy on " + p_.workers[w] +
                           " was deactivated (check Rejected), so out of sync: the MultiKueue "
                           "controller deleted it and created it again"
                     : "the MultiKueue controller kept the deactivated copy on " + p_.workers[w]};
    }
    case ActionKind::SelectWorker: {
      // Already Admitted elsewhere (a copy seen again after a partition): the controller keeps
      // the copy on w and deletes the others, and clusterName, immutable, stays.
      const std::string before = l->obj.cluster_name;
      const bool again = !before.empty() && before != p_.workers[w] && l->is_admitted();
      auto others_gone = [&] {
        for (int o = 0; o < p_.W(); ++o)
          if (o != w && fleet_.connected(p_.workers[o]) && view_.remote(j, o) != nullptr)
            return false;
        return view_.remote(j, w) != nullptr;
      };
      const bool ok = drive(
          [&] {
            reconcile(j);
            react(-1);
          },
          [&] { return again ? others_gone() : !l->obj.cluster_name.empty() && l->is_admitted(); });
      if (again)
        return {ok,
                ok ? fmt::format("the MultiKueue controller kept the copy on {} and deleted "
                                 "the others; clusterName stays {} (immutable)",
                                 p_.workers[w], before)
                   : "the MultiKueue controller did not converge on the copy on " + p_.workers[w]};
      if (l->obj.cluster_name.empty())
        return {false, "the MultiKueue controller selected no worker"};
      return {ok && l->obj.cluster_name == p_.workers[w],
              fmt::format("the MultiKueue controller selected {} (check Ready, clusterName set)",
                          l->obj.cluster_name)};
    }
    case ActionKind::RetryDispatch: {
      const bool ok = manager_settles(j, [&] { return !l->has_quota_reservation(); });
      return {ok, ok ? "the MultiKueue check went Retry: the manager evicted its workload and "
                       "deleted the copies"
                     : "the MultiKueue controller never set its check to Retry"};
    }
    case ActionKind::WorkerLostTimeout: {
      // The controller waits workerLostTimeout from the loss it first saw; drive moves the
      // clock to its requeue.
      // Where the manager's Job still mirrors the lost Job as active, the eviction keeps the
      // reservation (jobframework: released only once the Job reads inactive).
      // One reconcile a turn: a second would already dispatch an evicted workload that keeps its
      // reservation again (the trace's next steps, Nominate and on).
      const bool ok = drive(
          [&] {
            reconcile(j);
            react(-1);
          },
          [&] {
            return !l->has_quota_reservation() || (l->is_evicted() && l->mirrored_job_active);
          });
      if (ok && l->has_quota_reservation())
        return {true, fmt::format("{} stayed unreachable past workerLostTimeout: the check went "
                                  "Retry (\"Admitting remote lost\") and the manager evicted its "
                                  "workload, but its Job still mirrors {}'s as active, so the "
                                  "quota reservation stays",
                                  p_.workers[w], p_.workers[w])};
      return {ok, ok ? fmt::format("{} stayed unreachable past workerLostTimeout: the check went "
                                   "Retry (\"Admitting remote lost\"), the manager evicted its "
                                   "workload and deleted the copies it reaches",
                                   p_.workers[w])
                     : "the MultiKueue controller never gave up on " + p_.workers[w]};
    }
    case ActionKind::LostJobStopped: {
      const bool ok = manager_settles(j, [&] { return !l->has_quota_reservation(); });
      return {ok, ok ? fmt::format("{} is reachable again: the MultiKueue controller deactivated "
                                   "its copy, the manager's Job reads inactive, and the quota "
                                   "reservation is released",
                                   p_.workers[w])
                     : "the manager kept the quota reservation of its evicted workload"};
    }
    case ActionKind::EvictedCopyDeactivated: {
      const bool ok = manager_settles(j, [&] { return !l->has_quota_reservation(); });
      return {ok, ok ? fmt::format("the copy on {} is Admitted: the MultiKueue controller "
                                   "deactivated it (EvictedOnManagerCluster), created its Job "
                                   "there suspended and mirrored it, so the manager's Job reads "
                                   "inactive and the quota reservation is released",
                                   p_.workers[w])
                     : "the manager kept the quota reservation of its evicted workload"};
    }
    case ActionKind::DeleteStaleRemote: {
      const bool ok = drive([&] { reconcile(j); }, [&] { return view_.remote(j, w) == nullptr; });
      return {ok, ok ? "the MultiKueue controller deleted the copy on " + p_.workers[w] +
                           ", which it no longer wants"
                     : "the MultiKueue controller kept the copy on " + p_.workers[w]};
    }
    case ActionKind::FinishFromRemote: {
      const bool ok = manager_settles(j, [&] { return l->is_finished(); });
      return {ok, ok ? "the MultiKueue controller saw the copy on " + p_.workers[w] +
                           " Finished and finished the manager's workload"
                     : "the MultiKueue controller did not finish the manager's workload"};
    }
    default:
      return {false, "not a dispatch action"};
  }
}

Outcome Replayer::worker_step(const ItfStep& s) {
  const int j = s.job, w = s.worker;
  switch (s.kind) {
    case ActionKind::ReserveQuotaOnWorker:
      return scheduler_step(s);
    case ActionKind::ProvisioningAccepted:
      post_provisioning(j, w, "Accepted");
      return {true, "the ProvisioningRequest is Accepted: the check stays Pending"};
    case ActionKind::ProvisioningProvisioned:
      post_provisioning(j, w, "Provisioned");
      return {true, "the ProvisioningRequest is Provisioned: the check is Ready"};
    case ActionKind::ProvisioningFailed:
    case ActionKind::ProvisioningTimeout:
      // kmc's provisioningTimeout stands for an autoscaler that gives up: Kueue
      // itself applies no timeout to an Accepted request, so it sees Failed.
      post_provisioning(j, w, "Failed");
      react(w);
      return {true,
              "the ProvisioningRequest Failed: the check goes Retry (or Rejected past "
              "backoffLimitCount)"};
    case ActionKind::JobStarted: {
      const bool ok = drive([&] { schedule(w); }, [&] { return view_.running(j, w); });
      return {ok, ok ? "the job runs on " + p_.workers[w]
                     : "the job never started on " + p_.workers[w]};
    }
    default:
      return {false, "not a worker action"};
  }
}

Outcome Replayer::environment_step(const ItfStep& s) {
  const int j = s.job, w = s.worker;
  switch (s.kind) {
    case ActionKind::JobFinished: {
      cluster(w).post(std::max(cluster(w).now_ms, fleet_.now()),
                      engine::ev::JobFinished{p_.jobs[j]});
      react(w);
      // The manager learns of it in the same step only from the worker it selected and reaches;
      // a copy behind a partition, or one it gave up on, finishes on its worker alone.
      const engine::WorkloadInfo* l = local(j);
      if (l == nullptr || !fleet_.connected(p_.workers[w]) || l->obj.cluster_name != p_.workers[w])
        return {true, "the job finished on " + p_.workers[w] + "; the manager does not see it yet"};
      reconcile(j);
      react(-1);
      return {true, "the job finished; the MultiKueue controller finished the manager's workload"};
    }
    case ActionKind::SpotReclaim: {
      // The nodes are gone: the pods lose readiness. Kueue evicts only through
      // waitForPodsReady's recoveryTimeout; the engine decides whether it does.
      cluster(w).post(std::max(cluster(w).now_ms, fleet_.now()),
                      engine::ev::PodsNotReady{p_.jobs[j]});
      if (!cluster(w).manifests.configuration.wait_for_pods_ready.enable) {
        react(w);
        return {true,
                "the pods lost readiness; waitForPodsReady is off, so nothing evicts the copy"};
      }
      const bool ok = drive([&] { react(w); },
                            [&] {
                              const auto* r = view_.remote(j, w);
                              return r == nullptr || !r->has_quota_reservation();
                            });
      return {ok, ok ? "the pods lost readiness; waitForPodsReady evicted and requeued the copy"
                     : "the pods lost readiness, but the worker never evicted the copy "
                       "(waitForPodsReady off?)"};
    }
    case ActionKind::WorkerDisconnected:
      if (Outcome o = last_status_seen(s); !o.ok) return o;
      [[fallthrough]];
    case ActionKind::WorkerReconnected: {
      const bool up = s.kind == ActionKind::WorkerReconnected;
      fleet_.apply_connection({p_.workers[w], up});
      return {true, up ? "the manager reaches " + p_.workers[w] + " again"
                       : "the manager lost its connection to " + p_.workers[w] +
                             "; the worker goes on running what it has"};
    }
    case ActionKind::CapacityRevoked:
      post_provisioning(j, w, "CapacityRevoked");
      return {true,
              "the ProvisioningRequest's capacity is revoked: the check is Rejected and the "
              "copy deactivated"};
    case ActionKind::CapacityLost:
    case ActionKind::CapacityReturned:
    case ActionKind::RefreshSnapshot:
      return {true,
              "no engine event: free capacity and the manager's snapshot are the environment's "
              "(from the trace)"};
    default:
      return {false, "not an environment action"};
  }
}

Outcome Replayer::apply(const ItfStep& s) {
  switch (s.kind) {
    case ActionKind::ReserveQuota:
      return scheduler_step(s);
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
      return dispatch_step(s);
    case ActionKind::ReserveQuotaOnWorker:
    case ActionKind::ProvisioningAccepted:
    case ActionKind::ProvisioningProvisioned:
    case ActionKind::ProvisioningFailed:
    case ActionKind::ProvisioningTimeout:
    case ActionKind::JobStarted:
      return worker_step(s);
    default:
      return environment_step(s);
  }
}

}  // namespace kmc::cx::mk
