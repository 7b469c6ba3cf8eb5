#include "protocols/multikueue_params.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "model/cluster_queue_namespaces.hpp"
#include "model/provisioning_class.hpp"

namespace kmc::protocols {

namespace {

using model::InputError;
using model::SourcePos;

[[noreturn]] void fail(const SourcePos& pos, const std::string& field, const std::string& message) {
  throw InputError(pos, field, message);
}

ProvisioningClass class_of(const std::string& name) {
  if (name.find("check-capacity") != std::string::npos) return ProvisioningClass::CheckCapacity;
  if (name.find("best-effort-atomic") != std::string::npos)
    return ProvisioningClass::BestEffortAtomicScaleUp;
  if (name.find("queued-provisioning") != std::string::npos)
    return ProvisioningClass::QueuedProvisioning;
  return ProvisioningClass::Other;
}

std::int64_t request_of(const model::Workload& wl, const std::string& resource) {
  std::int64_t total = 0;
  for (const auto& ps : wl.pod_sets) {
    auto it = ps.requests.find(resource);
    if (it != ps.requests.end()) total += it->second.kueue_value(resource) * ps.count;
  }
  return total;
}

struct Compiler {
  const model::Scenario& sc;
  MkParams p;

  const model::ClusterManifests& cluster(int w) const { return w < 0 ? sc.manager : sc.workers[w]; }

  void collect_resources() {
    std::set<std::string> names;
    auto add_cqs = [&](const model::ClusterManifests& m) {
      for (const auto& cq : m.cluster_queues)
        for (const auto& rg : cq.resource_groups)
          names.insert(rg.covered_resources.begin(), rg.covered_resources.end());
    };
    add_cqs(sc.manager);
    for (const auto& w : sc.workers) add_cqs(w);
    for (const auto& wl : sc.manager.workloads)
      for (const auto& ps : wl.pod_sets)
        for (const auto& [r, q] : ps.requests) names.insert(r);
    p.resources.assign(names.begin(), names.end());
  }

  int resource_index(const std::string& name) const {
    return static_cast<int>(std::find(p.resources.begin(), p.resources.end(), name) -
                            p.resources.begin());
  }

  // The ClusterQueue a job's LocalQueue points to on cluster w (-1 manager);
  // -1 when the cluster has no such LocalQueue.
  int cq_for(int w, const model::Workload& wl) {
    const auto& m = cluster(w);
    const auto* lq = m.find_local_queue(wl.meta.namespace_, wl.queue_name);
    if (!lq) {
      mismatch_.push_back(false);
      if (w < 0)
        fail(wl.meta.pos, "spec.queueName",
             fmt::format("no LocalQueue {}/{} on the manager", wl.meta.namespace_, wl.queue_name));
      return -1;
    }
    if (lq->stop_policy != model::StopPolicy::None) fail(lq->meta.pos, "spec.stopPolicy", kNoStops);
    const auto* cq = m.find_cluster_queue(lq->cluster_queue);
    if (!cq)
      fail(lq->meta.pos, "spec.clusterQueue", fmt::format("no ClusterQueue {}", lq->cluster_queue));
    mismatch_.push_back(!model::cluster_queue_selects(m, *cq, wl.meta.namespace_, p.warnings));
    for (std::size_t i = 0; i < p.cqs.size(); ++i)
      if (p.cqs[i].cluster == w && p.cqs[i].name == lq->cluster_queue) return static_cast<int>(i);
    p.cqs.push_back(compile_cq(w, *cq));
    return static_cast<int>(p.cqs.size() - 1);
  }

  // Per place and job, in the order cq_for was asked: MkParams::namespace_mismatch.
  std::vector<bool> mismatch_;

  // Input the protocol reads past although it could change the answer (--strict refuses it).
  void ignore(const SourcePos& pos, const std::string& field, const std::string& concept_,
              const std::string& message) {
    p.warnings.push_back(model::ignored_input(pos, field, concept_, message));
  }

  // Silently admitting through a stopped queue would check a different fleet.
  static constexpr const char* kNoStops =
      "the MultiKueue protocol does not model stopped queues (a stopped queue admits nothing); "
      "protocol kueue-admission models stopPolicy for one cluster";

  CqParams compile_cq(int w, const model::ClusterQueue& cq) {
    if (cq.stop_policy != model::StopPolicy::None) fail(cq.meta.pos, "spec.stopPolicy", kNoStops);
    if (!cq.cohort.empty())
      ignore(cq.meta.pos, "spec.cohortName", "ClusterQueue.spec.cohortName",
             "the MultiKueue protocol does not model cohorts; no borrowing or lending is checked");
    CqParams q;
    q.cluster = w;
    q.name = cq.meta.name;
    q.strict_fifo = cq.queueing_strategy == model::QueueingStrategy::StrictFIFO;
    if (cq.resource_groups.size() > 1)
      fail(cq.meta.pos, "spec.resourceGroups",
           "kmc's MultiKueue protocol models one resource group per ClusterQueue");
    const int R = p.R();
    for (const auto& rg : cq.resource_groups)
      for (const auto& fq : rg.flavors) {
        q.flavors.push_back(fq.name);
        q.nominal.resize(q.flavors.size() * R, -1);
        for (const auto& rq : fq.resources)
          q.nominal[(q.flavors.size() - 1) * R + resource_index(rq.name)] =
              rq.nominal_quota.kueue_value(rq.name);
      }
    p.flavors_max = std::max<int>(p.flavors_max, static_cast<int>(q.flavors.size()));
    compile_checks(w, cq, q);
    return q;
  }

  void compile_checks(int w, const model::ClusterQueue& cq, CqParams& q) {
    const auto& m = cluster(w);
    for (std::size_t k = 0; k < cq.admission_checks.size(); ++k) {
      const auto& rule = cq.admission_checks[k];
      const auto* ac = m.find_admission_check(rule.name);
      if (!ac)
        fail(cq.meta.pos, fmt::format("spec.admissionChecksStrategy.admissionChecks[{}].name", k),
             fmt::format("no AdmissionCheck {}", rule.name));
      if (ac->controller_name == model::kMultiKueueController) continue;
      if (ac->controller_name != model::kProvisioningController) {
        ignore(ac->meta.pos, "spec.controllerName", "AdmissionCheck.spec.controllerName",
               fmt::format("the MultiKueue protocol treats check {} ({}) as always Ready",
                           ac->meta.name, ac->controller_name));
        continue;
      }
      if (w < 0)
        fail(cq.meta.pos, "spec.admissionChecksStrategy",
             "a ProvisioningRequest check on the manager ClusterQueue makes it inactive in Kueue");
      const auto* cfg = m.find_provisioning_config(ac->parameters.name);
      if (!cfg)
        fail(ac->meta.pos, "spec.parameters.name",
             fmt::format("no ProvisioningRequestConfig {}", ac->parameters.name));
      q.provisioning = true;
      q.provisioning_class = class_of(cfg->provisioning_class_name);
      q.retries_later = q.provisioning_class == ProvisioningClass::CheckCapacity &&
                        !model::check_capacity_no_retry(*cfg);
      q.backoff_limit = cfg->retry_strategy.backoff_limit_count;
    }
  }

  void compile_jobs() {
    std::vector<const model::Workload*> jobs;
    for (const auto& wl : sc.manager.workloads) jobs.push_back(&wl);
    // Kueue's queue order: higher priority first, then older.
    std::stable_sort(jobs.begin(), jobs.end(), [](auto* a, auto* b) {
      if (a->priority != b->priority) return a->priority > b->priority;
      return a->meta.creation_order < b->meta.creation_order;
    });
    if (jobs.empty())
      fail(SourcePos{sc.dir + "/manager", 0}, "",
           "the manager has no Jobs or Workloads to dispatch");
    // The checker follows each job of a per-job property in one bit of a 64-bit word per state
    // (checker/bfs.hpp), and eventually-runs takes two bits per job.
    if (jobs.size() > kMaxJobs)
      fail(jobs[kMaxJobs]->meta.pos, "metadata",
           fmt::format("kmc checks at most {} jobs in one scenario (it follows each job's "
                       "progress in one 64-bit word per state); split the fleet into scenarios "
                       "that share nothing, one per cohort or ClusterQueue, and check each",
                       kMaxJobs));
    for (const auto* wl : jobs) {
      // Kueue's MultiKueue controller finds its adapter through the Workload's owner (the Job
      // kind); with no owner it Rejects the check, "No multikueue adapter found", and the
      // Workload never runs.
      if (wl->source_kind == "Workload" && wl->meta.owner_kinds.empty())
        ignore(wl->meta.pos, "metadata.ownerReferences", "MultiKueue Workload without an owner",
               "a Workload with no owner: Kueue's MultiKueue finds no adapter for it and Rejects "
               "its check (\"No multikueue adapter found\"), so it never runs; kmc dispatches it "
               "as if a batch/v1 Job owned it");
      if (wl->admission || !wl->conditions.empty())
        ignore(wl->meta.pos, "status", "Workload.status",
               "the MultiKueue protocol starts every job Pending; its status is ignored");
      p.jobs.push_back(wl->meta.namespace_.empty() ? wl->meta.name
                                                   : wl->meta.namespace_ + "/" + wl->meta.name);
      p.manager_cq.push_back(cq_for(-1, *wl));
      p.priority.push_back(wl->priority);
      for (const auto& r : p.resources) p.request.push_back(request_of(*wl, r));
    }
    p.worker_cq.assign(p.W(), {});
    for (int w = 0; w < p.W(); ++w)
      for (const auto* wl : jobs) p.worker_cq[w].push_back(cq_for(w, *wl));
    // Asked place by place, the manager first: the layout namespace_mismatch keeps.
    if (std::find(mismatch_.begin(), mismatch_.end(), true) != mismatch_.end())
      p.namespace_mismatch = mismatch_;
  }

  void compile_workers();
  void compile_dispatch();
  void compile_options();
};

void Compiler::compile_workers() {
  for (const auto& ws : sc.fleet.workers) {
    p.workers.push_back(ws.name);
    p.answer.push_back(ws.answer);
  }
  if (p.W() > 8)
    fail(sc.fleet.workers[8].pos, "workers", "kmc checks at most 8 workers in one scenario");
  p.worker_flavors.assign(p.W(), {});
  for (int w = 0; w < p.W(); ++w) {
    auto& slots = p.worker_flavors[w];
    for (const auto& f : sc.workers[w].resource_flavors) slots.push_back(f.meta.name);
    p.slots_max = std::max<int>(p.slots_max, static_cast<int>(slots.size()));
  }
}

void Compiler::compile_dispatch() {
  auto warn = [&](const SourcePos& pos, const std::string& field, const std::string& message) {
    p.warnings.push_back(model::Diagnostic{pos, field, message});
  };
  const auto& mk = sc.manager.configuration.multi_kueue;
  const bool builtin = mk.dispatcher_name == model::kDispatcherAllAtOnce ||
                       mk.dispatcher_name == model::kDispatcherIncremental;
  if (sc.fleet.dispatcher.policy == model::DispatchPolicy::CapacitySnapshot) {
    p.dispatcher = Dispatcher::CapacitySnapshot;
    if (builtin)
      warn(sc.fleet.pos, "dispatcher.policy",
           fmt::format("CapacitySnapshot stands for an external dispatcher, but the manager's "
                       "Configuration names {}; "
                       "checking the CapacitySnapshot dispatcher",
                       mk.dispatcher_name));
  } else if (mk.dispatcher_name == model::kDispatcherAllAtOnce) {
    p.dispatcher = Dispatcher::AllAtOnce;
  } else if (mk.dispatcher_name == model::kDispatcherIncremental) {
    p.dispatcher = Dispatcher::Incremental;
  } else {
    fail(sc.manager.configuration.pos, "multiKueue.dispatcherName",
         fmt::format(
             "{} is an external dispatcher; say how it nominates with kmc.yaml dispatcher.policy",
             mk.dispatcher_name));
  }
  const auto& gates = sc.manager.configuration.feature_gates;
  // Without MultiKueueIncrementalDispatcherConfig the step is DefaultStepSize (3), whatever the
  // Configuration says.
  p.step_size = gates.enabled("MultiKueueIncrementalDispatcherConfig")
                    ? std::max(1, mk.incremental_step_size)
                    : 3;
  p.pin = sc.fleet.dispatcher.pin;
  p.max_staleness = sc.fleet.options.max_snapshot_staleness;
  // MultiKueueConfig order; workers it does not list are never nominated.
  const model::MultiKueueConfig* config =
      sc.manager.multikueue_configs.empty() ? nullptr : &sc.manager.multikueue_configs.front();
  if (!config) {
    for (int w = 0; w < p.W(); ++w) p.dispatch_order.push_back(w);
    return;
  }
  for (std::size_t k = 0; k < config->clusters.size(); ++k) {
    auto it = std::find(p.workers.begin(), p.workers.end(), config->clusters[k]);
    if (it == p.workers.end())
      fail(config->meta.pos, fmt::format("spec.clusters[{}]", k),
           fmt::format("cluster {} is not a worker in kmc.yaml", config->clusters[k]));
    p.dispatch_order.push_back(static_cast<int>(it - p.workers.begin()));
  }
  // Without MultiKueueIncrementalDispatcherRespectConfigOrder the incremental dispatcher
  // nominates the clusters left in name order (getNextNominatedWorkers sorts them).
  if (p.dispatcher == Dispatcher::Incremental &&
      !gates.enabled("MultiKueueIncrementalDispatcherRespectConfigOrder"))
    std::sort(p.dispatch_order.begin(), p.dispatch_order.end(),
              [&](int a, int b) { return p.workers[a] < p.workers[b]; });
}

void Compiler::compile_options() {
  const auto& gates = sc.manager.configuration.feature_gates;
  p.wait_for_admitted = gates.enabled("MultiKueueWaitForWorkloadAdmitted");
  p.redispatch_on_worker_eviction = gates.enabled("MultiKueueRedoAdmissionOnEvictionInWorker");
  p.mirror_job_status = gates.enabled("MultiKueueBatchJobWithManagedBy");
  const auto& o = sc.fleet.options;
  p.provisioning_timeout = o.provisioning_timeout;
  p.timeout_vs_boot = o.timeout_vs_boot == "TimeoutFirst" ? MkParams::TimeoutVsBoot::TimeoutFirst
                      : o.timeout_vs_boot == "BootFirst"  ? MkParams::TimeoutVsBoot::BootFirst
                                                          : MkParams::TimeoutVsBoot::Either;
  if (o.variant == "pre-8592-select-on-quota-reserved")
    p.wait_for_admitted = false;
  else if (o.variant == "pre-8477-no-redispatch-on-worker-eviction")
    p.redispatch_on_worker_eviction = false;
  else if (o.variant == "broken-worker-ignores-quota")
    p.broken_worker_ignores_quota = true;
  else if (o.variant == "broken-keep-losers")
    p.broken_keep_losers = true;
  else if (!o.variant.empty())
    fail(sc.fleet.pos, "options.variant",
         fmt::format("unknown variant '{}'; expected one of {}", o.variant,
                     fmt::join(multikueue_variants(), ", ")));
  for (const auto& worker : sc.workers)
    p.pods_ready_eviction.push_back(worker.configuration.wait_for_pods_ready.enable);
  const auto& e = sc.fleet.environment;
  // Past backoffLimitCount, Kueue deactivates a workload a PodsReady timeout evicts
  // (reconcileNotReadyTimeout); SpotReclaim requeues the copy every time. Only a budget that
  // lets one job be reclaimed more often than the limit can tell the two apart.
  for (std::size_t w = 0; w < sc.workers.size(); ++w) {
    const auto& config = sc.workers[w].configuration;
    const auto& limit = config.wait_for_pods_ready.backoff_limit_count;
    if (!config.wait_for_pods_ready.enable || !limit || e.spot_reclaims <= *limit) continue;
    ignore(config.pos, "waitForPodsReady.requeuingStrategy.backoffLimitCount",
           "Configuration.waitForPodsReady.requeuingStrategy.backoffLimitCount",
           fmt::format("worker {}: past {} requeues Kueue deactivates a copy whose pods lost "
                       "readiness, while kmc requeues it after every one of the {} spot "
                       "reclaims the environment allows; results may differ",
                       sc.fleet.workers[w].name, *limit, e.spot_reclaims));
  }
  // requeuingStrategy.timestamp Creation orders a copy the timeout evicted by its creation on
  // the worker, which the state forgets once the copy is admitted: kmc requeues it at the end.
  for (std::size_t w = 0; w < sc.workers.size(); ++w) {
    const auto& wfpr = sc.workers[w].configuration.wait_for_pods_ready;
    if (!wfpr.enable || wfpr.requeuing_timestamp != model::RequeuingTimestamp::Creation ||
        e.spot_reclaims == 0)
      continue;
    ignore(sc.workers[w].configuration.pos, "waitForPodsReady.requeuingStrategy.timestamp",
           "Configuration.waitForPodsReady.requeuingStrategy.timestamp",
           fmt::format("worker {}: with Creation Kueue queues a copy whose pods lost readiness "
                       "by the copy's creation, while kmc queues it by the eviction, behind "
                       "every copy waiting then; results may differ",
                       sc.fleet.workers[w].name));
  }
  p.spot_reclaims = e.spot_reclaims;
  p.capacity_losses = e.capacity_losses;
  p.snapshot_refreshes = e.snapshot_refreshes;
  p.worker_disconnects = e.worker_disconnects;
  p.capacity_returns = e.capacity_returns;
  p.capacity_revocations = e.capacity_revocations;
}

// Physical capacity per worker slot; a flavor the kmc file does not mention
// has as much capacity as the worker's ClusterQueues have quota for it.
void compile_capacity(const model::Scenario& sc, MkParams& p) {
  const int R = p.R(), S = p.slots_max;
  p.capacity0.assign(p.W() * S * R, 0);
  p.snapshot0.assign(p.W() * S * R, 0);
  for (int w = 0; w < p.W(); ++w) {
    const auto& spec = sc.fleet.workers[w];
    for (int slot = 0; slot < static_cast<int>(p.worker_flavors[w].size()); ++slot) {
      const auto& flavor = p.worker_flavors[w][slot];
      for (int r = 0; r < R; ++r) {
        std::int64_t cap = 0;
        for (const auto& cq : p.cqs)
          if (cq.cluster == w)
            for (std::size_t f = 0; f < cq.flavors.size(); ++f)
              if (cq.flavors[f] == flavor && cq.nominal[f * R + r] > 0)
                cap += cq.nominal[f * R + r];
        auto fit = spec.capacity.find(flavor);
        if (fit != spec.capacity.end()) {
          auto rit = fit->second.find(p.resources[r]);
          if (rit != fit->second.end()) cap = rit->second.kueue_value(p.resources[r]);
        }
        std::int64_t seen = cap;
        auto sit = sc.fleet.snapshot.find(spec.name);
        if (sit != sc.fleet.snapshot.end()) {
          auto sf = sit->second.find(flavor);
          if (sf != sit->second.end()) {
            auto sr = sf->second.find(p.resources[r]);
            if (sr != sf->second.end()) seen = sr->second.kueue_value(p.resources[r]);
          }
        }
        p.capacity0[(w * S + slot) * R + r] = cap;
        p.snapshot0[(w * S + slot) * R + r] = seen;
      }
    }
  }
  // Each CQ flavor's capacity slot on its worker.
  for (auto& cq : p.cqs) {
    cq.flavor_slot.assign(cq.flavors.size(), -1);
    if (cq.cluster < 0) continue;
    const auto& slots = p.worker_flavors[cq.cluster];
    for (std::size_t f = 0; f < cq.flavors.size(); ++f) {
      auto it = std::find(slots.begin(), slots.end(), cq.flavors[f]);
      if (it == slots.end()) {
        const auto* obj = sc.workers[cq.cluster].find_cluster_queue(cq.name);
        fail(obj->meta.pos, "spec.resourceGroups",
             fmt::format("flavor {} is not a ResourceFlavor on {}", cq.flavors[f],
                         p.workers[cq.cluster]));
      }
      cq.flavor_slot[f] = static_cast<int>(it - slots.begin());
    }
  }
}

}  // namespace

const std::vector<std::string>& multikueue_variants() {
  static const std::vector<std::string> names = {
      "pre-8592-select-on-quota-reserved", "pre-8477-no-redispatch-on-worker-eviction",
      "broken-worker-ignores-quota", "broken-keep-losers"};
  return names;
}

MkParams compile_multikueue(const model::Scenario& scenario) {
  Compiler c{scenario, {}, {}};
  c.collect_resources();
  c.compile_workers();
  c.compile_jobs();
  c.compile_dispatch();
  c.compile_options();
  compile_capacity(scenario, c.p);
  c.p.user_properties = scenario.fleet.properties;
  return std::move(c.p);
}

}  // namespace kmc::protocols
