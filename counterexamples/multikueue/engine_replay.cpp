// Replay: each protocol action becomes what the engine sees or does.
//
// Granularity follows the protocol's: an environment step posts an event to
// one cluster and lets that cluster's controllers react (no scheduling cycle);
// a scheduler step runs that cluster's cycles; a MultiKueue step runs the
// manager's MultiKueue controller for that one workload. When the engine
// waits on a timer (a requeue backoff, an Incremental round), virtual time
// moves to the next due instant, as it would in Kueue. Then the cells of the
// job the step touched are compared with the trace's.
#include "counterexamples/multikueue/engine_replay.hpp"

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <map>
#include <tuple>

#include "counterexamples/itf.hpp"
#include "counterexamples/multikueue/engine_compare.hpp"
#include "counterexamples/multikueue/engine_view.hpp"
#include "counterexamples/multikueue/itf_read.hpp"
#include "counterexamples/token.hpp"
#include "engine/controllers.hpp"
#include "engine/lookup.hpp"
#include "model/diagnostics.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

using protocols::ActionKind;

namespace {

struct Outcome {
  bool ok = true;
  std::string did;
};

class Replayer {
 public:
  Replayer(const model::Scenario& sc, const protocols::MkParams& p)
      : p_(p), fleet_(make_fleet(sc, p)), view_(fleet_, p_) {}

  Outcome apply(const ItfStep& s);
  const engine::Fleet& fleet() const { return fleet_; }
  const FleetView& view() const { return view_; }

 private:
  engine::Engine& cluster(int w) { return w < 0 ? fleet_.manager : fleet_.worker(p_.workers[w]); }
  engine::WorkloadInfo* local(int j) { return fleet_.manager.find(p_.jobs[j]); }
  engine::WorkloadInfo* remote(int j, int w) {
    return const_cast<engine::WorkloadInfo*>(view_.remote(j, w));
  }
  // Controllers only: the cluster's events due now, no scheduling cycle.
  void react(int w);
  // The cluster's scheduler: its events, then cycles until one changes nothing.
  void schedule(int w);
  bool reconcile(int j);
  // Repeats `act` until `done`, moving to the next due instant while the engine waits on a timer.
  bool drive(const std::function<void()>& act, const std::function<bool()>& done);
  // The MultiKueue controller on job j, the manager's reaction, the controller again: driven
  // until `done` (a Retry's eviction, a finish).
  bool manager_settles(int j, const std::function<bool()>& done) {
    return drive(
        [&] {
          reconcile(j);
          react(-1);
          reconcile(j);
          react(-1);  // what the second reconcile posted for now (a Job read inactive)
        },
        done);
  }
  void post_provisioning(int j, int w, const std::string& condition);
  // Before the manager loses w: the status its Jobs last copied from w's.
  Outcome last_status_seen(const ItfStep& s);

  Outcome scheduler_step(const ItfStep& s);
  Outcome dispatch_step(const ItfStep& s);
  Outcome worker_step(const ItfStep& s);
  Outcome environment_step(const ItfStep& s);

  const protocols::MkParams& p_;
  engine::Fleet fleet_;
  FleetView view_;
};

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
      const bool ok = manager_settles(j, [&] {
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

std::string step_name(const ItfStep& s, const protocols::MkParams& p) {
  std::vector<std::string> args;
  if (s.job >= 0) args.push_back(p.jobs[s.job]);
  if (s.worker >= 0) args.push_back(p.workers[s.worker]);
  if (!s.flavor.empty()) args.push_back(s.flavor);
  return fmt::format("{}({})", protocols::action_kind_name(s.kind), fmt::join(args, ", "));
}

void diverge(EngineReplay& r, const ItfStep& s, const protocols::MkParams& p, const Outcome& o,
             std::vector<std::string> diff) {
  r.verdict = EngineReplay::Verdict::Diverged;
  r.step = s.index;
  r.action = step_name(s, p);
  r.engine_did = o.did;
  r.difference = std::move(diff);
}

// Replays steps [from, to); false (and a Diverged result) at the first disagreement.
bool follow(Replayer& rp, const ItfTrace& t, std::size_t from, std::size_t to,
            const protocols::MkParams& p, EngineReplay& r) {
  for (std::size_t i = from; i < to; ++i) {
    const ItfStep& s = t.steps[i];
    const Outcome o = rp.apply(s);
    auto diff = cell_differences(s, rp.view(), touched_cells(s, p.W()));
    if (!o.ok || !diff.empty()) {
      diverge(r, s, p, o, std::move(diff));
      return false;
    }
    r.steps.push_back({s.index, step_name(s, p), o.did});
  }
  return true;
}

Environment environment_of(const ItfStep& last) {
  Environment env;
  for (const model::Cell& c : last.cells.all())
    if (c.field == "capacity") env.free[c.entity] = std::get<std::int64_t>(c.value);
  return env;
}

// A property of kmc.yaml's own reads the state's cells only. Those the engine keeps (every job's
// manager and copy cells, the flavors its reservations took, every ClusterQueue's usage) must all
// equal the trace's final ones; the others are the environment's (free capacity, the manager's
// snapshot, budgets), which replay takes from the trace. Then the state the expression reads is
// the engine's, and it fails there as in the trace. `moved` gets each cell that differs.
std::optional<std::string> user_property_in_engine(const model::UserPropertySpec& u,
                                                   const Replayer& rp, const ItfTrace& t,
                                                   std::vector<std::string>& moved) {
  const model::Cells& last = t.steps.back().cells;
  for (const auto& [key, value] : rp.view().projection()) {
    const model::CellValue* trace = last.find(key.field, key.entity);
    if (trace == nullptr) continue;  // a usage the model has no cell for: a flavor not covering it
    if (*trace != value)
      moved.push_back(fmt::format("{}: trace {}, engine {}", model::key_text(key.field, key.entity),
                                  model::to_string(*trace), model::to_string(value)));
  }
  if (!moved.empty()) return std::nullopt;
  return fmt::format(
      "every cell the engine keeps equals the trace's last state, where \"{}\" is false",
      u.holds.text);
}

// The property decided in the engine's state at the trace's end: a sentence when it is violated
// there. A stuck job (no-stuck-job, and a liveness behaviour that stops: a lasso with no loop
// steps) is stuck in the engine only where the engine, run to the end, leaves it where the trace
// does: `moved` gets each cell of the job that differs, and a job Kueue evicted and re-reserved
// meanwhile is no confirmation, however still it then sits (issue 12e).
std::optional<std::string> property_in_engine(const std::string& property, const Replayer& rp,
                                              const protocols::MkParams& p, const ItfTrace& t,
                                              std::vector<std::string>& moved) {
  for (const auto& u : p.user_properties)
    if (u.name == property && u.kind == model::UserPropertySpec::Kind::Always)
      return user_property_in_engine(u, rp, t, moved);
  if (property == "cluster-queue-within-quota") return engine_quota_exceeded(rp.fleet());
  if (property == "quota-counted-once") return engine_quota_counted_twice(rp.fleet());
  if (property == "no-job-on-two-workers") return engine_job_on_two_workers(rp.fleet(), p);
  engine::Fleet settled = rp.fleet();
  run_a_virtual_day(settled);
  auto stuck = engine_job_stuck(settled, p, environment_of(t.steps.back()), t.subject);
  if (stuck) moved = job_differences(t.steps.back(), FleetView(settled, p), t.subject, p.W());
  return stuck;
}

// The end of a trace that was followed step by step: Reproduced when the property is violated
// in the engine's own state, Diverged otherwise, with the first difference when the engine's job
// is not where the trace leaves it.
void decide_at_end(const Replayer& rp, const ItfTrace& t, const protocols::MkParams& p,
                   EngineReplay& r) {
  std::vector<std::string> moved;
  const auto why = property_in_engine(t.property, rp, p, t, moved);
  const bool own = std::any_of(p.user_properties.begin(), p.user_properties.end(),
                               [&](const auto& u) { return u.name == t.property; });
  if (why && moved.empty()) {
    r.verdict = EngineReplay::Verdict::Reproduced;
    r.property_check = *why;
    return;
  }
  r.verdict = EngineReplay::Verdict::Diverged;
  r.step = t.steps.back().index;
  r.action = "(end of trace)";
  r.engine_did =
      moved.empty() ? "the engine followed every step, but in its own state the property holds"
      : own         ? fmt::format(
                          "the engine followed every step, but its state differs from the "
                                  "trace's last one, which {} reads: {}",
                          t.property, moved.front())
            : fmt::format(
                  "after a virtual day of every controller and timer, the engine moved job {} from "
                  "where the trace leaves it stuck: {}",
                  p.jobs[t.subject], moved.front());
  r.difference = std::move(moved);
}

// What the engine holds for a job, to see it retry: each copy's identity,
// its check's retry count and whether it is active, and the manager's reservation.
struct RetryMarks {
  std::vector<std::tuple<std::int64_t, int, bool>> copies;  // uid (0: none), retries, active
  bool reserved = false;
};

RetryMarks retry_marks(const FleetView& v, const protocols::MkParams& p, int j) {
  RetryMarks m;
  for (int w = 0; w < p.W(); ++w) {
    const engine::WorkloadInfo* r = v.remote(j, w);
    int retries = 0;
    if (r != nullptr)
      for (const auto& s : r->obj.admission_checks) retries += s.retry_count;
    m.copies.emplace_back(r == nullptr ? 0 : r->uid, retries, r != nullptr && r->obj.active);
  }
  m.reserved = v.local(j) != nullptr && v.local(j)->has_quota_reservation();
  return m;
}

// The engine retried the job between two marks: a copy's check went round
// again, a copy was rejected or dropped while the job still waits, or the
// manager gave its reservation back to dispatch again (the model's retry step).
bool engine_retried(const RetryMarks& a, const RetryMarks& b) {
  if (a.reserved && !b.reserved) return true;
  for (std::size_t w = 0; w < a.copies.size(); ++w) {
    const auto [uid_a, n_a, active_a] = a.copies[w];
    const auto [uid_b, n_b, active_b] = b.copies[w];
    if (uid_a != 0 && uid_a == uid_b && (n_b > n_a || (active_a && !active_b))) return true;
    if (uid_a != 0 && uid_b == 0 && b.reserved) return true;
  }
  return false;
}

void replay_lasso(Replayer& rp, const ItfTrace& t, const protocols::MkParams& p, EngineReplay& r) {
  const std::size_t loop = *t.loop, n = t.steps.size();
  if (!follow(rp, t, 1, loop + 1, p, r)) return;
  const auto at_start = rp.view().projection();
  for (int turn = 1; turn <= 2; ++turn) {
    int retries = 0;
    for (std::size_t i = loop + 1; i < n; ++i) {
      const RetryMarks before = retry_marks(rp.view(), p, t.subject);
      if (!follow(rp, t, i, i + 1, p, r)) return;
      retries += engine_retried(before, retry_marks(rp.view(), p, t.subject)) ? 1 : 0;
    }
    const auto again = rp.view().projection();
    std::vector<std::string> diff;
    for (int w = 0; w < p.W(); ++w)
      if (rp.view().running(t.subject, w))
        diff.push_back(
            fmt::format("job {} runs on {} in the engine", p.jobs[t.subject], p.workers[w]));
    for (const auto& [k, v] : at_start)
      if (again.at(k) != v)
        diff.push_back(fmt::format("{}: at the loop's start {}, after turn {} {}",
                                   model::key_text(k.field, k.entity), model::to_string(v), turn,
                                   model::to_string(again.at(k))));
    if (t.property == "no-endless-retry" && retries == 0)
      diff.push_back("the engine did not retry the job in this turn");
    if (!diff.empty()) {
      diverge(r, t.steps[n - 1], p,
              {false,
               fmt::format("the engine's state at the loop's start does not repeat after turn {}",
                           turn)},
              std::move(diff));
      return;
    }
    r.lasso_retries = retries;
  }
  r.verdict = EngineReplay::Verdict::Reproduced;
  r.property_check = fmt::format(
      "the engine's state at the loop's start (state {}) repeats after two turns of the loop, "
      "and job {} never runs",
      loop, p.jobs[t.subject]);
  if (t.property == "no-endless-retry")
    r.property_check +=
        fmt::format("; the engine retried it {} times in each turn", r.lasso_retries);
}

}  // namespace

EngineReplay replay_in_engine(const model::Scenario& sc, const protocols::MkParams& p,
                              const ItfDocument& itf) {
  const auto t0 = std::chrono::steady_clock::now();
  const ItfTrace t = read_itf(itf, p);
  EngineReplay r;
  r.property = t.property;
  Replayer rp(sc, p);
  const bool cycles = t.loop && *t.loop + 1 < t.steps.size();
  if (cycles) {
    r.lasso = true;
    replay_lasso(rp, t, p, r);
  } else if (follow(rp, t, 1, t.steps.size(), p, r)) {
    decide_at_end(rp, t, p, r);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

EngineReplay replay_in_engine(const model::Scenario& sc, const protocols::MkParams& p,
                              const Trace& trace, const std::string& replay_token) {
  return replay_in_engine(sc, p, itf_in_memory("<kmc check>", to_itf(trace, "", replay_token)));
}

}  // namespace kmc::cx
