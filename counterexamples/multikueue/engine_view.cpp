#include "counterexamples/multikueue/engine_view.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/controllers.hpp"
#include "engine/lookup.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

engine::Fleet make_fleet(const model::Scenario& sc, const protocols::MkParams& p) {
  model::ClusterManifests manager = sc.manager;
  manager.configuration.feature_gates.gates["MultiKueueWaitForWorkloadAdmitted"] =
      p.wait_for_admitted;
  manager.configuration.feature_gates.gates["MultiKueueRedoAdmissionOnEvictionInWorker"] =
      p.redispatch_on_worker_eviction;
  std::vector<std::pair<std::string, model::ClusterManifests>> workers;
  for (std::size_t w = 0; w < sc.workers.size(); ++w)
    workers.emplace_back(sc.fleet.workers[w].name, sc.workers[w]);
  // The protocol takes a worker's retry backoff as no time: a failed
  // ProvisioningRequest's copy is back in the worker's queue at once.
  engine::EngineOptions options;
  options.retry_backoff_at_once = true;
  return engine::Fleet(manager, workers, options);
}

const engine::WorkloadInfo* FleetView::local(int j) const {
  return f_.manager.find(p_.jobs[j]);
}

const engine::WorkloadInfo* FleetView::remote(int j, int w) const {
  auto it = f_.workers.find(p_.workers[w]);
  if (it == f_.workers.end()) return nullptr;
  const engine::WorkloadInfo* r = it->second.find(p_.jobs[j]);
  return r != nullptr && !r->deleted ? r : nullptr;
}

bool FleetView::running(int j, int w) const {
  const engine::WorkloadInfo* r = remote(j, w);
  // Pods that lost readiness (a spot reclaim) are not running, though the job is active.
  return r != nullptr && r->job_active && r->pods_ready && r->is_admitted() && !r->is_finished();
}

namespace {

using protocols::MultiKueue;

// Phases are named as the protocol's cells name them (MultiKueue::cell_enum).
std::string manager_phase(const engine::WorkloadInfo* l) {
  // Evicted and still reserved because its Job mirrors a lost worker's as active.
  const bool held = l->is_evicted() && l->has_quota_reservation() && l->mirrored_job_active;
  return MultiKueue::cell_enum("phase", l->is_finished()             ? protocols::kMgrFinished
                                        : held                       ? protocols::kMgrEvicted
                                        : l->is_admitted()           ? protocols::kMgrAdmitted
                                        : l->has_quota_reservation() ? protocols::kMgrQuotaReserved
                                                                     : protocols::kMgrPending);
}

}  // namespace

std::string FleetView::manager_text(int j) const {
  const engine::WorkloadInfo* l = local(j);
  if (l == nullptr) return "?";
  const std::string phase = manager_phase(l);
  return l->obj.cluster_name.empty() ? phase : phase + " on " + l->obj.cluster_name;
}

std::string FleetView::provisioning_check(int j, int w) const {
  const engine::WorkloadInfo* r = remote(j, w);
  if (r == nullptr) return "";
  const engine::Engine& e = f_.workers.at(p_.workers[w]);
  for (const auto& s : r->obj.admission_checks) {
    const model::AdmissionCheck* ac = engine::find_admission_check(e.manifests, s.name);
    if (ac != nullptr && ac->controller_name == model::kProvisioningController) return s.name;
  }
  return "";
}

namespace {

const model::AdmissionCheckState* check_of(const engine::WorkloadInfo& w, const std::string& name) {
  for (const auto& s : w.obj.admission_checks)
    if (s.name == name) return &s;
  return nullptr;
}

// The ProvisioningRequest as the protocol names it, from the check the engine
// keeps: Ready is Provisioned; Pending is Accepted once the autoscaler said so
// (the engine's message; it keeps no other trace of the answer).
std::string provisioning_phase(const engine::WorkloadInfo& r, const model::AdmissionCheckState& s) {
  auto name = [](protocols::ProvPhase v) { return protocols::MultiKueue::cell_enum("prov", v); };
  if (!r.has_quota_reservation() || r.is_finished()) return name(protocols::kProvNone);
  // A started job whose pods lost readiness lost its provisioned nodes (a spot
  // reclaim): the check stays Ready, but the protocol no longer counts the booking.
  if (r.job_active && !r.pods_ready) return name(protocols::kProvNone);
  if (s.state == model::CheckState::Ready) return name(protocols::kProvProvisioned);
  if (s.state != model::CheckState::Pending) return name(protocols::kProvNone);
  return name(s.message.find("is accepted") != std::string::npos ? protocols::kProvAccepted
                                                                 : protocols::kProvRequested);
}

}  // namespace

std::vector<model::Cell> FleetView::cells(int j, int w) const {
  const engine::WorkloadInfo* l = local(j);
  if (w < 0) {
    // immutable once set, kept when finished
    std::vector<model::Cell> out{
        {"phase", {p_.jobs[j]}, l == nullptr ? std::string("?") : manager_phase(l)},
        {"cluster", {p_.jobs[j]}, l == nullptr ? std::string() : l->obj.cluster_name}};
    if (p_.connection_faults()) {
      // The protocol records the mirrored status only where it matters: while the worker is
      // unreachable, or while it holds an evicted workload's quota.
      const bool recorded =
          l != nullptr && l->mirrored_job_active && !l->is_finished() &&
          (!f_.connected(l->mirrored_from) || (l->is_evicted() && l->has_quota_reservation()));
      out.push_back({"mirrored_active", {p_.jobs[j]}, recorded ? l->mirrored_from : std::string()});
    }
    return out;
  }
  const engine::WorkloadInfo* r = remote(j, w);
  std::string phase = MultiKueue::cell_enum("remote", protocols::kRemoteNone);
  std::string prov = MultiKueue::cell_enum("prov", protocols::kProvNone);
  std::int64_t attempts = 0;
  if (r != nullptr) {
    phase = MultiKueue::cell_enum("remote", r->is_finished()   ? protocols::kRemoteFinished
                                            : !r->obj.active   ? protocols::kRemoteRejected
                                            : running(j, w)    ? protocols::kRemoteRunning
                                            : r->is_admitted() ? protocols::kRemoteAdmitted
                                            : r->has_quota_reservation()
                                                ? protocols::kRemoteQuotaReserved
                                                : protocols::kRemotePending);
    const std::string check = provisioning_check(j, w);
    if (const auto* s = check.empty() ? nullptr : check_of(*r, check)) {
      if (r->obj.active) prov = provisioning_phase(*r, *s);
      // Each Retry eviction counted one failure; the failure that rejects counts too.
      // (Deactivation's eviction resets the Rejected check to Pending and its
      // count, as Kueue does: the engine keeps what the count was.)
      const bool failed_now = s->state == model::CheckState::Retry ||
                              s->state == model::CheckState::Rejected || !r->obj.active;
      const auto rejected = r->rejected_attempts.find(check);
      // The protocol forgets the failures of a finished copy.
      if (r->is_finished())
        attempts = 0;
      else if (!r->obj.active && rejected != r->rejected_attempts.end())
        attempts = rejected->second;
      else
        attempts = s->retry_count + (failed_now ? 1 : 0);
    }
  }
  bool nominated = false;
  if (l != nullptr) {
    const auto& n = l->obj.nominated_cluster_names;
    nominated = std::find(n.begin(), n.end(), p_.workers[w]) != n.end();
  }
  const std::vector<std::string> at{p_.jobs[j], p_.workers[w]};
  std::vector<model::Cell> out{{"nominated", at, std::int64_t{nominated ? 1 : 0}},
                               {"remote", at, phase},
                               {"prov", at, prov},
                               {"attempts", at, attempts}};
  if (p_.connection_faults()) {
    out.push_back({"connected", {p_.workers[w]}, std::int64_t{f_.connected(p_.workers[w])}});
    out.push_back({"job_created", at, std::int64_t{r != nullptr && r->job_exists}});
  }
  return out;
}

std::map<model::CellKey, model::CellValue> FleetView::projection() const {
  std::map<model::CellKey, model::CellValue> out;
  for (int j = 0; j < p_.J(); ++j)
    for (int w = -1; w < p_.W(); ++w)
      for (auto& c : cells(j, w)) out[c.key()] = std::move(c.value);
  auto usage = [&](const std::string& cluster, const engine::Engine& e) {
    for (const auto& cq : e.cluster_queues)
      for (int fr = 0; fr < e.frs.size(); ++fr)
        out[{"usage", {cluster + "/" + cq.name, e.frs.at(fr).flavor, e.frs.at(fr).resource}}] =
            std::int64_t{e.tree.usage(cq.node, fr)};
  };
  usage("manager", f_.manager);
  for (const auto& [name, e] : f_.workers) usage(name, e);
  // The flavor each reservation took (one resource group: every resource has the same one).
  auto flavor = [](const engine::WorkloadInfo* w) -> std::string {
    if (w == nullptr || !w->has_quota_reservation() || w->is_finished() || !w->obj.admission ||
        w->obj.admission->pod_set_assignments.empty())
      return "";
    const auto& flavors = w->obj.admission->pod_set_assignments.front().flavors;
    return flavors.empty() ? "" : flavors.begin()->second;
  };
  for (int j = 0; j < p_.J(); ++j) {
    out[{"mgr_flavor", {p_.jobs[j]}}] = flavor(local(j));
    for (int w = 0; w < p_.W(); ++w)
      out[{"remote_flavor", {p_.jobs[j], p_.workers[w]}}] = flavor(remote(j, w));
  }
  return out;
}

namespace {

template <class F>
std::optional<std::string> first_cluster(const engine::Fleet& f, F&& check) {
  if (auto why = check("manager", f.manager)) return why;
  for (const auto& [name, e] : f.workers)
    if (auto why = check(name, e)) return why;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> engine_quota_exceeded(const engine::Fleet& f) {
  return first_cluster(
      f, [](const std::string& cluster, const engine::Engine& e) -> std::optional<std::string> {
        for (const auto& cq : e.cluster_queues)
          for (int fr = 0; fr < e.frs.size(); ++fr)
            if (e.tree.available_raw(cq.node, fr) < 0)
              return fmt::format("{}/{} uses {} of {} {}, more than its quota allows", cluster,
                                 cq.name, e.tree.usage(cq.node, fr), e.frs.at(fr).flavor,
                                 e.frs.at(fr).resource);
        return std::nullopt;
      });
}

std::optional<std::string> engine_quota_counted_twice(const engine::Fleet& f) {
  // The property's second half: a job selected for one worker holds worker quota nowhere else.
  for (const auto& local : f.manager.workloads) {
    const std::string& selected = local.obj.cluster_name;
    if (local.deleted || selected.empty()) continue;
    for (const auto& [name, e] : f.workers) {
      const engine::WorkloadInfo* copy = e.find(local.key);
      if (name != selected && copy != nullptr && !copy->deleted && copy->counts_in_cache())
        return fmt::format("job {} is selected for {}, yet its copy on {} holds quota there",
                           local.key, selected, name);
    }
  }
  return first_cluster(
      f, [](const std::string& cluster, const engine::Engine& e) -> std::optional<std::string> {
        for (std::size_t q = 0; q < e.cluster_queues.size(); ++q) {
          engine::FrUsage held;
          for (const auto& w : e.workloads)
            if (!w.deleted && w.counts_in_cache() && w.cluster_queue == static_cast<int>(q))
              for (const auto& [fr, v] : w.usage) held[fr] += v;
          const auto& cq = e.cluster_queues[q];
          for (int fr = 0; fr < e.frs.size(); ++fr) {
            const engine::Amount counted = e.tree.usage(cq.node, fr),
                                 holders = held.contains(fr) ? held.at(fr) : 0;
            if (counted != holders)
              return fmt::format("{}/{} counts {} {} {} in use, but its workloads hold {}", cluster,
                                 cq.name, counted, e.frs.at(fr).flavor, e.frs.at(fr).resource,
                                 holders);
          }
        }
        return std::nullopt;
      });
}

std::optional<std::string> engine_job_on_two_workers(const engine::Fleet& f,
                                                     const protocols::MkParams& p) {
  const FleetView v(f, p);
  for (int j = 0; j < p.J(); ++j) {
    std::vector<std::string> on;
    for (int w = 0; w < p.W(); ++w)
      if (v.running(j, w)) on.push_back(p.workers[w]);
    if (on.size() > 1) return fmt::format("job {} runs on {}", p.jobs[j], fmt::join(on, " and "));
  }
  return std::nullopt;
}

bool Environment::fits(const protocols::MkParams& p, int j, int w) const {
  for (const auto& flavor : p.worker_flavors[w]) {
    bool all = true;
    for (int r = 0; r < p.R(); ++r) {
      auto it = free.find({p.workers[w], flavor, p.resources[r]});
      if (p.req(j, r) > 0 && (it == free.end() || it->second < p.req(j, r))) all = false;
    }
    if (all) return true;
  }
  return false;
}

namespace {

// The worker's quota admits the job now: its copy there already holds quota,
// or the worker's own scheduler would admit a copy (a probe copy in a scratch
// copy of that worker's engine, after deleting a copy still pending there).
// The model's could_run_on asks the same (invariants/multikueue_progress.cpp);
// refusing wherever a copy existed made a fleet whose every worker holds a
// hanging copy look unstuck.
bool worker_quota_admits(const engine::Fleet& f, const protocols::MkParams& p, int j, int w) {
  const engine::WorkloadInfo* local = f.manager.find(p.jobs[j]);
  if (local == nullptr || p.worker_cq[w][j] < 0) return false;
  engine::Engine probe = f.workers.at(p.workers[w]);
  if (engine::WorkloadInfo* old = probe.find(p.jobs[j]); old != nullptr && !old->deleted) {
    if (old->counts_in_cache()) return true;
    engine::delete_workload(probe, *old);
  }
  model::Workload copy;
  copy.meta = local->obj.meta;
  copy.queue_name = local->obj.queue_name;
  copy.priority = local->obj.priority;
  copy.pod_sets = local->obj.pod_sets;
  const int id = probe.create_workload(std::move(copy));
  probe.run(-1, probe.now());
  return probe.workloads[static_cast<std::size_t>(id)].has_quota_reservation();
}

// The environment could still move the job: a ProvisioningRequest of one of
// its copies that the autoscaler answers (Provisioned with capacity behind
// it, or Failed, which retries) under the scenario's answer policy.
bool autoscaler_could_answer(const FleetView& v, const protocols::MkParams& p,
                             const Environment& env, int j, int w) {
  const engine::WorkloadInfo* r = v.remote(j, w);
  if (r == nullptr || !r->has_quota_reservation() || r->is_admitted() ||
      v.provisioning_check(j, w).empty())
    return false;
  if (p.provisioning_timeout) return true;
  switch (p.answer[w]) {
    case model::AutoscalerAnswer::AcceptsThenHangs:
      return false;
    case model::AutoscalerAnswer::Any:
      return true;
    default:
      return env.fits(p, j, w);
  }
}

}  // namespace

void run_a_virtual_day(engine::Fleet& f) {
  f.run(f.now() + 24LL * 3600 * 1000);
}

std::optional<std::string> engine_job_stuck(const engine::Fleet& f, const protocols::MkParams& p,
                                            const Environment& env, int j) {
  const FleetView v(f, p);
  const engine::WorkloadInfo* l = v.local(j);
  if (l == nullptr || l->is_finished()) return std::nullopt;
  for (int w = 0; w < p.W(); ++w)
    if (v.running(j, w) || autoscaler_could_answer(v, p, env, j, w)) return std::nullopt;
  // An external dispatcher that does not pin may still nominate another worker, once the
  // manager has reserved quota for the job (it dispatches nothing else).
  if (p.dispatcher == protocols::Dispatcher::CapacitySnapshot && !p.pin &&
      l->has_quota_reservation() && l->obj.cluster_name.empty())
    return std::nullopt;
  for (int w = 0; w < p.W(); ++w) {
    if (!env.fits(p, j, w) || !worker_quota_admits(f, p, j, w)) continue;
    return fmt::format(
        "after a virtual day of every controller and timer, job {} is {} and never runs, yet {} "
        "has "
        "the capacity and its scheduler admits a copy now",
        p.jobs[j], v.manager_text(j), p.workers[w]);
  }
  return std::nullopt;
}

void FleetView::drop_rejected(std::vector<std::string>& nominated, int j) const {
  std::erase_if(nominated, [&](const std::string& c) {
    for (int o = 0; o < p_.W(); ++o)
      if (p_.workers[o] == c && remote(j, o) != nullptr && !remote(j, o)->obj.active) return true;
    return false;
  });
}

}  // namespace kmc::cx
