#include "protocols/multikueue_spec.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

#include "model/assert.hpp"
#include "model/fingerprint.hpp"

namespace kmc::protocols {

namespace {

using model::FieldKind;

enum Family : int {
  kManagerScheduler,
  kMultiKueueController,
  kWorkerScheduler,
  kJobController,
  kAutoscaler,
  kProvisioningTimeout,
  kJobCompletion,
  kEnvironment,
  kSnapshotRefresh,
  kReconnect
};

std::vector<model::Family> families() {
  // The controllers and the snapshot refresh are weakly fair by default; the
  // autoscaler and the environment are not (an adversary may never answer). A
  // dropped connection comes back (weakly fair): workerDisconnects budgets
  // partitions, not workers gone for good, which `fairness:` can ask for.
  return {{"manager-scheduler", 1}, {"multikueue-controller", 1},
          {"worker-scheduler", 1},  {"job-controller", 1},
          {"autoscaler", 0},        {"provisioning-timeout", 1},
          {"job-completion", 1},    {"environment", 0},
          {"snapshot-refresh", 1},  {"worker-reconnect", 1}};
}

// The action table, in ActionKind's order: name, arguments, family, controller.
std::vector<model::ActionKind> action_table() {
  const model::ActionKind::Arg job{"job", kAxisJob}, cluster{"cluster", kAxisWorker},
      flavor{"flavor", kAxisSlot};
  auto kind = [](ActionKind k, std::vector<model::ActionKind::Arg> args, int family,
                 const char* controller) {
    return model::ActionKind{action_kind_name(k), std::move(args), family, controller};
  };
  using K = ActionKind;
  return {
      kind(K::ReserveQuota, {job}, kManagerScheduler, "manager"),
      kind(K::Nominate, {job}, kMultiKueueController, "manager"),
      kind(K::NominateNextRound, {job}, kMultiKueueController, "manager"),
      kind(K::NominateWorker, {job, cluster}, kMultiKueueController, "manager"),
      kind(K::Renominate, {job}, kMultiKueueController, "manager"),
      kind(K::CreateRemoteWorkload, {job, cluster}, kMultiKueueController, "manager"),
      kind(K::ReserveQuotaOnWorker, {job, cluster}, kWorkerScheduler, "worker"),
      kind(K::ProvisioningAccepted, {job, cluster}, kAutoscaler, "autoscaler"),
      kind(K::ProvisioningProvisioned, {job, cluster}, kAutoscaler, "autoscaler"),
      kind(K::ProvisioningFailed, {job, cluster}, kAutoscaler, "autoscaler"),
      kind(K::ProvisioningTimeout, {job, cluster}, kProvisioningTimeout, "worker"),
      kind(K::SelectWorker, {job, cluster}, kMultiKueueController, "manager"),
      kind(K::JobStarted, {job, cluster}, kJobController, "worker"),
      kind(K::JobFinished, {job, cluster}, kJobCompletion, "environment"),
      kind(K::SpotReclaim, {job, cluster}, kEnvironment, "environment"),
      kind(K::CapacityLost, {cluster, flavor}, kEnvironment, "environment"),
      kind(K::RefreshSnapshot, {cluster}, kSnapshotRefresh, "manager"),
      kind(K::RetryDispatch, {job, cluster}, kMultiKueueController, "manager"),
      kind(K::WorkerDisconnected, {cluster}, kEnvironment, "environment"),
      kind(K::WorkerReconnected, {cluster}, kReconnect, "environment"),
      kind(K::WorkerLostTimeout, {job, cluster}, kMultiKueueController, "manager"),
      kind(K::DeleteStaleRemote, {job, cluster}, kMultiKueueController, "manager"),
      kind(K::FinishFromRemote, {job, cluster}, kMultiKueueController, "manager"),
      kind(K::CapacityReturned, {cluster, flavor}, kEnvironment, "environment"),
      kind(K::CapacityRevoked, {job, cluster}, kEnvironment, "autoscaler"),
      kind(K::LostJobStopped, {job, cluster}, kMultiKueueController, "manager"),
      kind(K::EvictedCopyDeactivated, {job, cluster}, kMultiKueueController, "manager"),
      kind(K::RecreateRemoteWorkload, {job, cluster}, kMultiKueueController, "manager"),
  };
}

std::vector<model::Axis> axes(const MkParams& p) {
  model::Axis cq{"clusterQueue", {}, -1, {}, 0},
      flavor{"flavor", {}, kAxisClusterQueue, {}, p.flavors_max};
  for (const auto& q : p.cqs) {
    cq.labels.push_back((q.cluster < 0 ? std::string("manager") : p.workers[q.cluster]) + "/" +
                        q.name);
    flavor.labels_of.push_back(q.flavors);
  }
  // A worker's capacity slots are its flavors, and are named so in traces.
  model::Axis slot{"flavor", {}, kAxisWorker, p.worker_flavors, p.slots_max};
  model::Axis budget{"budget",
                     {"spotReclaims", "capacityLosses", "snapshotRefreshes", "workerDisconnects",
                      "capacityReturns", "capacityRevocations"},
                     -1,
                     {},
                     0};
  return {{"job", p.jobs, -1, {}, 0},
          {"worker", p.workers, -1, {}, 0},
          cq,
          flavor,
          {"resource", p.resources, -1, {}, 0},
          slot,
          budget};
}

std::int64_t most(const std::vector<std::int64_t>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

// The most quota any ClusterQueue can hold of one resource: every job's request.
std::int64_t usage_max(const MkParams& p) {
  std::int64_t out = 0;
  for (int r = 0; r < p.R(); ++r) {
    std::int64_t sum = 0;
    for (int j = 0; j < p.J(); ++j) sum += p.req(j, r);
    out = std::max(out, sum);
  }
  return out;
}

// Every request of r is a multiple of this, and so is every usage of r.
std::int64_t request_step(const MkParams& p, int r) {
  std::int64_t g = 0;
  for (int j = 0; j < p.J(); ++j) g = std::gcd(g, p.req(j, r));
  return g > 0 ? g : 1;
}

// What cq can hold of r at most: each job once in each place it may reserve
// there (its manager ClusterQueue, its copy on each worker).
std::int64_t cq_usage_max(const MkParams& p, int cq, int r) {
  std::int64_t most = 0;
  for (int j = 0; j < p.J(); ++j) {
    int places = p.manager_cq[j] == cq ? 1 : 0;
    for (int w = 0; w < p.W(); ++w) places += p.worker_cq[w][j] == cq ? 1 : 0;
    most += places * p.req(j, r);
  }
  return most;
}

// Per-cell ranges of the quantity fields, which pack them in a few bits
// each instead of 40 (model::CellRange): usage is a sum of requests; free
// capacity is what a slot started with less requests, or 0 after a loss; a
// snapshot is its first value or a copy of the capacity, and never changes
// where no dispatcher reads it.
void narrow_quantities(const MkParams& p, bool viewed, model::Field& usage, model::Field& capacity,
                       model::Field& snapshot) {
  std::vector<std::int64_t> step(p.R());
  for (int r = 0; r < p.R(); ++r) step[r] = request_step(p, r);
  usage.range_of = [p, step](const std::vector<int>& at) {
    const int cq = at[0], f = at[1], r = at[2];
    if (f >= static_cast<int>(p.cqs[cq].flavors.size())) return model::CellRange{0, 0, 1};
    return model::CellRange{0, cq_usage_max(p, cq, r), step[r]};
  };
  auto cell = [S = p.slots_max, R = p.R()](const std::vector<int>& at) {
    return (static_cast<std::size_t>(at[0]) * S + at[1]) * R + at[2];
  };
  capacity.range_of = [c0 = p.capacity0, step, cell](const std::vector<int>& at) {
    const std::int64_t start = c0[cell(at)];
    return model::CellRange{0, start, std::gcd(start, step[at[2]])};
  };
  snapshot.range_of = [c0 = p.capacity0, s0 = p.snapshot0, step, cell,
                       viewed](const std::vector<int>& at) {
    const std::int64_t view = s0[cell(at)], start = c0[cell(at)];
    if (!viewed) return model::CellRange{view, view, 1};
    return model::CellRange{0, std::max(view, start), std::gcd(std::gcd(view, start), step[at[2]])};
  };
}

std::vector<model::Field> fields(const MkParams& p) {
  const int W = p.W(), F = p.flavors_max;
  int backoff = 0;
  for (const auto& q : p.cqs) backoff = std::max(backoff, q.backoff_limit);
  const std::int64_t stale = p.max_staleness >= 0 ? p.max_staleness + 1 : 1;
  const std::vector<std::int64_t> budget0{p.spot_reclaims,      p.capacity_losses,
                                          p.snapshot_refreshes, p.worker_disconnects,
                                          p.capacity_returns,   p.capacity_revocations};
  const std::int64_t budget = std::max(std::int64_t{-1}, most(budget0));
  auto field = [](const char* name, std::vector<int> axes, FieldKind kind, std::int64_t lo,
                  std::int64_t hi) {
    model::Field f;
    f.name = name, f.axes = std::move(axes), f.kind = kind, f.lo = lo, f.hi = hi;
    return f;
  };
  // Phases as traces name them: "None" where describe() prints "-" (a trace value is a name, not a
  // picture).
  const bool faults = p.connection_faults();
  // Evicted (quota kept while a lost worker's Job reads active) only where connections may drop.
  auto phase = field("phase", {kAxisJob}, FieldKind::Enum, 0, faults ? kMgrEvicted : kMgrFinished);
  phase.names = {"Pending", "QuotaReserved", "Admitted", "Finished"};
  if (faults) phase.names.push_back("Evicted");
  auto cluster = field("cluster", {kAxisJob}, FieldKind::Index, -1, W - 1);
  cluster.index_axis = kAxisWorker;
  // A flavor index names a flavor of the ClusterQueue the job's copy is queued in.
  auto mgr_flavor = field("mgr_flavor", {kAxisJob}, FieldKind::Index, -1, F - 1);
  mgr_flavor.index_axis = kAxisFlavor;
  mgr_flavor.index_parent = [cq = p.manager_cq](const std::vector<int>& at) { return cq[at[0]]; };
  auto remote = field("remote", {kAxisJob, kAxisWorker}, FieldKind::Enum, 0, kRemoteRejected);
  remote.names = {"None",    "Pending",  "QuotaReserved", "Admitted",
                  "Running", "Finished", "Rejected"};
  auto remote_flavor = field("remote_flavor", {kAxisJob, kAxisWorker}, FieldKind::Index, -1, F - 1);
  remote_flavor.index_axis = kAxisFlavor;
  remote_flavor.index_parent = [cq = p.worker_cq](const std::vector<int>& at) {
    return cq[at[1]][at[0]];
  };
  auto prov = field("prov", {kAxisJob, kAxisWorker}, FieldKind::Enum, 0, kProvProvisioned);
  prov.names = {"None", "Requested", "Accepted", "Provisioned"};
  // Usage exists where the ClusterQueue's flavor covers the resource.
  auto usage = field("usage", {kAxisClusterQueue, kAxisFlavor, kAxisResource}, FieldKind::Int, 0,
                     usage_max(p));
  // (By value: a layout outlives no parameters, but an instance's copies share none.)
  usage.present = [cqs = p.cqs, R = p.R()](const std::vector<int>& at) {
    const auto& q = cqs[at[0]];
    return at[1] < static_cast<int>(q.flavors.size()) && q.nominal[at[1] * R + at[2]] >= 0;
  };
  const std::int64_t capacity_max = std::max(most(p.capacity0), most(p.snapshot0));
  // The manager keeps a capacity view, and a refresh budget, only with the capacity-snapshot
  // dispatcher.
  const bool viewed = p.dispatcher == Dispatcher::CapacitySnapshot;
  auto snapshot =
      field("snapshot", {kAxisWorker, kAxisSlot, kAxisResource}, FieldKind::Int, 0, capacity_max);
  auto staleness = field("staleness", {kAxisWorker}, FieldKind::Int, 0, stale);
  for (auto* f : {&snapshot, &staleness}) {
    f->optional = true;
    f->present = [viewed](const std::vector<int>&) { return viewed; };
  }
  auto budgets = field("budget", {kAxisBudget}, FieldKind::Int, -1, budget);
  // The budgets added since the first three are in traces only where a scenario grants them.
  budgets.present = [viewed, budget0](const std::vector<int>& at) {
    if (at[0] == kSnapshotRefreshes) return viewed;
    return at[0] < kWorkerDisconnects || budget0[at[0]] != 0;
  };
  // A budget counts down from where it starts to 0; unlimited (-1) stays -1.
  budgets.range_of = [budget0](const std::vector<int>& at) {
    const std::int64_t start = budget0[at[0]];
    return start < 0 ? model::CellRange{-1, -1, 1} : model::CellRange{0, start, 1};
  };
  // Only where connections may drop: otherwise absent from traces and packed in no bits.
  auto connected = field("connected", {kAxisWorker}, FieldKind::Flag, faults ? 0 : 1, 1);
  connected.optional = true;
  connected.present = [faults](const std::vector<int>&) { return faults; };
  auto job_created = field("job_created", {kAxisJob, kAxisWorker}, FieldKind::Flag, 0, faults);
  job_created.optional = true;
  job_created.present = connected.present;
  auto mirrored = field("mirrored_active", {kAxisJob}, FieldKind::Index, -1, faults ? W - 1 : -1);
  mirrored.index_axis = kAxisWorker;
  mirrored.optional = true;
  mirrored.present = connected.present;
  auto capacity =
      field("capacity", {kAxisWorker, kAxisSlot, kAxisResource}, FieldKind::Int, 0, capacity_max);
  narrow_quantities(p, viewed, usage, capacity, snapshot);
  // Queue order: a rank among the jobs of a ClusterQueue that two or more share, present only
  // there (a scenario whose queues share nothing keeps its states, traces and tokens).
  std::vector<int> sharing(p.cqs.size());
  for (std::size_t cq = 0; cq < p.cqs.size(); ++cq)
    sharing[cq] = static_cast<int>(p.queue_members(static_cast<int>(cq)).size());
  auto ranked = [sharing](int cq) { return cq >= 0 && sharing[cq] >= 2; };
  auto rank_range = [sharing, ranked](int cq) {
    return model::CellRange{0, ranked(cq) ? sharing[cq] : 0, 1};
  };
  auto queue_rank = field("queue_rank", {kAxisJob}, FieldKind::Int, 0, p.J());
  queue_rank.optional = true;
  queue_rank.present = [cq = p.manager_cq, ranked](const std::vector<int>& at) {
    return ranked(cq[at[0]]);
  };
  queue_rank.range_of = [cq = p.manager_cq, rank_range](const std::vector<int>& at) {
    return rank_range(cq[at[0]]);
  };
  auto remote_rank = field("remote_rank", {kAxisJob, kAxisWorker}, FieldKind::Int, 0, p.J());
  remote_rank.optional = true;
  remote_rank.present = [cq = p.worker_cq, ranked](const std::vector<int>& at) {
    return ranked(cq[at[1]][at[0]]);
  };
  remote_rank.range_of = [cq = p.worker_cq, rank_range](const std::vector<int>& at) {
    return rank_range(cq[at[1]][at[0]]);
  };
  return {phase,      cluster,
          mgr_flavor, field("nominated", {kAxisJob, kAxisWorker}, FieldKind::Flag, 0, 1),
          remote,     remote_flavor,
          prov,       field("attempts", {kAxisJob, kAxisWorker}, FieldKind::Int, 0, backoff + 1),
          usage,      capacity,
          snapshot,   staleness,
          connected,  job_created,
          mirrored,   budgets,
          queue_rank, remote_rank};
}

}  // namespace

model::Layout MkSpec::layout(const Params& p) {
  model::Layout l{axes(p), fields(p), action_table(), families()};
  for (std::size_t k = 0; k < l.actions.size(); ++k)  // ref() indexes the table by ActionKind
    KMC_ASSERT(l.actions[k].name == action_kind_name(static_cast<ActionKind>(k)));
  return l;
}

std::vector<MkAction> MkSpec::candidates(const Params& p) {
  std::vector<MkAction> out;
  const auto J = static_cast<std::int16_t>(p.J()), W = static_cast<std::int16_t>(p.W());
  auto add = [&](ActionKind k, std::int16_t j, std::int16_t w, std::int16_t slot = -1) {
    out.push_back(MkAction{k, j, w, slot, static_cast<std::int16_t>(out.size())});
  };
  const bool snapshot = p.dispatcher == Dispatcher::CapacitySnapshot;
  for (std::int16_t j = 0; j < J; ++j) {
    add(ActionKind::ReserveQuota, j, -1);
    if (!snapshot) add(ActionKind::Nominate, j, -1);
    if (p.dispatcher == Dispatcher::Incremental) add(ActionKind::NominateNextRound, j, -1);
    if (snapshot) {
      for (std::int16_t w = 0; w < W; ++w) add(ActionKind::NominateWorker, j, w);
      add(ActionKind::Renominate, j, -1);
    }
    for (std::int16_t w = 0; w < W; ++w) {
      add(ActionKind::CreateRemoteWorkload, j, w);
      add(ActionKind::ReserveQuotaOnWorker, j, w);
      const int cq = p.worker_cq[w][j];
      if (cq >= 0 && p.cqs[cq].provisioning) {
        add(ActionKind::ProvisioningAccepted, j, w);
        add(ActionKind::ProvisioningProvisioned, j, w);
        add(ActionKind::ProvisioningFailed, j, w);
        if (p.provisioning_timeout) add(ActionKind::ProvisioningTimeout, j, w);
      }
      add(ActionKind::SelectWorker, j, w);
      add(ActionKind::JobStarted, j, w);
      add(ActionKind::JobFinished, j, w);
      if (p.spot_reclaims != 0) add(ActionKind::SpotReclaim, j, w);
      add(ActionKind::RetryDispatch, j, w);
    }
  }
  for (std::int16_t w = 0; w < W; ++w) {
    if (p.capacity_losses != 0)
      for (std::int16_t slot = 0; slot < static_cast<std::int16_t>(p.worker_flavors[w].size());
           ++slot)
        add(ActionKind::CapacityLost, -1, w, slot);
    if (snapshot && p.snapshot_refreshes != 0) add(ActionKind::RefreshSnapshot, -1, w);
  }
  // Appended, so that a fleet without connection faults keeps its candidates' ids (and tokens).
  if (p.connection_faults()) {
    for (std::int16_t w = 0; w < W; ++w) {
      add(ActionKind::WorkerDisconnected, -1, w);
      add(ActionKind::WorkerReconnected, -1, w);
    }
    for (std::int16_t j = 0; j < J; ++j)
      for (std::int16_t w = 0; w < W; ++w) {
        add(ActionKind::WorkerLostTimeout, j, w);
        add(ActionKind::DeleteStaleRemote, j, w);
        add(ActionKind::FinishFromRemote, j, w);
        if (p.mirror_job_status) add(ActionKind::LostJobStopped, j, w);
      }
  }
  if (p.capacity_returns != 0)
    for (std::int16_t w = 0; w < W; ++w)
      for (std::int16_t slot = 0; slot < static_cast<std::int16_t>(p.worker_flavors[w].size());
           ++slot)
        add(ActionKind::CapacityReturned, -1, w, slot);
  if (p.capacity_revocations != 0)
    for (std::int16_t j = 0; j < J; ++j)
      for (std::int16_t w = 0; w < W; ++w)
        if (const int cq = p.worker_cq[w][j]; cq >= 0 && p.cqs[cq].provisioning)
          add(ActionKind::CapacityRevoked, j, w);
  // Appended last, so that the candidates before it keep their ids (and tokens).
  if (p.connection_faults() && p.mirror_job_status)
    for (std::int16_t j = 0; j < J; ++j)
      for (std::int16_t w = 0; w < W; ++w) add(ActionKind::EvictedCopyDeactivated, j, w);
  // A copy is Rejected only by its worker's ProvisioningRequest check. kmc's capacity-snapshot
  // dispatcher drops the rejected worker from nominatedClusterNames itself (Renominate), and is
  // assumed to do so before Kueue's controller recreates the copy: with it, the copy would come
  // back on the worker its snapshot picked, whatever the snapshot says now.
  for (std::int16_t j = 0; j < J && !snapshot; ++j)
    for (std::int16_t w = 0; w < W; ++w)
      if (const int cq = p.worker_cq[w][j]; cq >= 0 && p.cqs[cq].provisioning)
        add(ActionKind::RecreateRemoteWorkload, j, w);
  return out;
}

MkState<std::int64_t> MkSpec::initial(const Params& p) {
  const int J = p.J(), W = p.W();
  MkState<std::int64_t> s;
  s.phase.assign(J, kMgrPending);
  s.cluster.assign(J, -1);
  s.mgr_flavor.assign(J, -1);
  s.nominated.assign(J * W, 0);
  s.remote.assign(J * W, kRemoteNone);
  s.remote_flavor.assign(J * W, -1);
  s.prov.assign(J * W, kProvNone);
  s.attempts.assign(J * W, 0);
  s.usage.assign(p.cqs.size() * p.flavors_max * p.R(), 0);
  s.capacity = p.capacity0;
  s.snapshot = p.snapshot0;
  s.staleness.assign(W, 0);
  if (p.dispatcher == Dispatcher::CapacitySnapshot)
    for (int w = 0; w < W; ++w)
      for (int k = 0; k < p.slots_max * p.R(); ++k)
        if (p.snapshot0[w * p.slots_max * p.R() + k] != p.capacity0[w * p.slots_max * p.R() + k])
          s.staleness[w] = 1;
  s.connected.assign(W, 1);
  s.job_created.assign(J * W, 0);
  s.mirrored_active.assign(J, -1);
  s.budget = {p.spot_reclaims,      p.capacity_losses,  p.snapshot_refreshes,
              p.worker_disconnects, p.capacity_returns, p.capacity_revocations};
  // Every job starts Pending on the manager, in creation order within its ClusterQueue.
  s.queue_rank.assign(J, 0);
  for (std::size_t cq = 0; cq < p.cqs.size(); ++cq) {
    if (p.cqs[cq].cluster >= 0) continue;
    const auto members = p.queue_members(static_cast<int>(cq));
    if (members.size() < 2) continue;
    for (std::size_t k = 0; k < members.size(); ++k)
      s.queue_rank[members[k]] = static_cast<std::int64_t>(k) + 1;
  }
  s.remote_rank.assign(J * W, 0);
  return s;
}

model::ActionRef MkSpec::ref(const Params&, const Action& a) {
  const int kind = static_cast<int>(a.kind);
  switch (a.kind) {
    case ActionKind::ReserveQuota:
    case ActionKind::Nominate:
    case ActionKind::NominateNextRound:
    case ActionKind::Renominate:
      return {kind, {a.job}};
    case ActionKind::CapacityLost:
    case ActionKind::CapacityReturned:
      return {kind, {a.worker, a.slot}};
    case ActionKind::RefreshSnapshot:
    case ActionKind::WorkerDisconnected:
    case ActionKind::WorkerReconnected:
      return {kind, {a.worker}};
    default:
      return {kind, {a.job, a.worker}};
  }
}

std::uint64_t MkSpec::identity(const Params& p) {
  model::Hasher h;
  auto add = [&](const auto& v) { model::hash_append(h, v); };
  add(p.resources), add(p.jobs), add(p.request), add(p.manager_cq), add(p.workers);
  for (const auto& row : p.worker_cq) add(std::vector<std::int64_t>(row.begin(), row.end()));
  for (const auto& q : p.cqs) {
    add(q.name), add(q.flavors), add(q.nominal);
    add(std::vector<std::int64_t>{q.cluster, q.strict_fifo, q.provisioning,
                                  static_cast<std::int64_t>(q.provisioning_class),
                                  q.backoff_limit});
    if (q.retries_later) add(std::string("retries-later"));  // ids made before it stay valid
  }
  add(p.capacity0), add(p.snapshot0);
  for (auto a : p.answer) add(static_cast<std::int64_t>(a));
  add(std::vector<std::int64_t>(p.dispatch_order.begin(), p.dispatch_order.end()));
  add(std::vector<std::int64_t>{
      static_cast<std::int64_t>(p.dispatcher), p.step_size, p.pin, p.max_staleness,
      p.wait_for_admitted, p.redispatch_on_worker_eviction, p.provisioning_timeout,
      static_cast<std::int64_t>(p.timeout_vs_boot), p.broken_worker_ignores_quota,
      p.broken_keep_losers, p.spot_reclaims, p.capacity_losses, p.snapshot_refreshes});
  // Hashed only when some worker turns waitForPodsReady off, so the identities
  // (and replay tokens) of scenarios that keep the default did not change.
  if (std::find(p.pods_ready_eviction.begin(), p.pods_ready_eviction.end(), false) !=
      p.pods_ready_eviction.end())
    add(std::vector<std::int64_t>(p.pods_ready_eviction.begin(), p.pods_ready_eviction.end()));
  if (p.connection_faults()) add(std::int64_t{p.worker_disconnects});
  // Hashed only when off (Kueue before v0.15), so that identities and tokens kept theirs.
  if (!p.mirror_job_status) add(std::string("MultiKueueBatchJobWithManagedBy=false"));
  if (p.capacity_returns != 0 || p.capacity_revocations != 0)
    add(std::vector<std::int64_t>{p.capacity_returns, p.capacity_revocations});
  // Hashed only when some ClusterQueue leaves a job's namespace out, so other identities stay.
  if (!p.namespace_mismatch.empty()) {
    add(std::string("namespace-mismatch"));  // tagged: no other optional vector reads the same
    add(std::vector<std::int64_t>(p.namespace_mismatch.begin(), p.namespace_mismatch.end()));
  }
  // Hashed only when jobs differ in priority: the queue order reads it beside the ranks.
  if (std::adjacent_find(p.priority.begin(), p.priority.end(), std::not_equal_to<>()) !=
      p.priority.end())
    add(p.priority);
  return model::mix64(h.h);
}

}  // namespace kmc::protocols
