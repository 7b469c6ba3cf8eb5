// The manager's MultiKueue admission check controller (kueue-semantics.md
// §6.2, workload.go reconcileGroup): remote copies are created on the
// nominated workers, the first copy Admitted on its worker wins and the others
// are deleted, and losing the selected copy (evicted on its worker, gone, or
// its worker lost for workerLostTimeout) sets the check to Retry, which
// evicts the local workload so it is dispatched again.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "engine/controllers.hpp"
#include "engine/lookup.hpp"
#include "engine/multikueue.hpp"

namespace kmc::engine {

std::string multikueue_check(const Engine& m, const WorkloadInfo& w) {
  for (const auto& s : w.obj.admission_checks) {
    const model::AdmissionCheck* ac = find_admission_check(m.manifests, s.name);
    if (ac != nullptr && ac->controller_name == model::kMultiKueueController) return s.name;
  }
  return "";
}

namespace {

struct Remote {
  std::string cluster;
  WorkloadInfo* wl;
};

const model::MultiKueueConfig* config_of(const Engine& m, const std::string& check) {
  const model::AdmissionCheck* ac = find_admission_check(m.manifests, check);
  for (const auto& c : m.manifests.multikueue_configs) {
    if (ac != nullptr && c.meta.name == ac->parameters.name) return &c;
  }
  return nullptr;
}

// readGroup: the remote copies on connected workers of the config, in config order.
std::vector<Remote> read_group(Fleet& f, const WorkloadInfo& local,
                               const model::MultiKueueConfig& cfg) {
  std::vector<Remote> out;
  for (const auto& c : cfg.clusters) {
    if (!f.connected(c)) continue;
    WorkloadInfo* r = f.worker(c).find(local.key);
    if (r != nullptr && !r->deleted) out.push_back({c, r});
  }
  return out;
}

void delete_remote(Fleet& f, const Remote& r) {
  delete_workload(f.worker(r.cluster), *r.wl);
  r.wl->job_active = false;  // the remote job is deleted with it
  f.manager.log_line(fmt::format("{}: remote on {} deleted", r.wl->key, r.cluster));
}

model::CheckState check_state(const WorkloadInfo& w, const std::string& check) {
  for (const auto& s : w.obj.admission_checks) {
    if (s.name == check) return s.state;
  }
  return model::CheckState::Pending;
}

// cloneForCreate: same name and spec, no status.
void create_remote(Fleet& f, const WorkloadInfo& local, const std::string& cluster) {
  model::Workload copy;
  copy.meta = local.obj.meta;
  copy.queue_name = local.obj.queue_name;
  copy.priority = local.obj.priority;
  copy.pod_sets = local.obj.pod_sets;
  copy.runtime_s = 0;
  Engine& worker = f.worker(cluster);
  worker.now_ms = f.now();
  const int id = worker.create_workload(std::move(copy));
  worker.workloads[static_cast<size_t>(id)].runtime_ms = f.remote_runtime_ms[local.key];
  worker.workloads[static_cast<size_t>(id)].job_exists = false;  // created for the winner only
  f.manager.log_line(fmt::format("{}: remote created on {}", local.key, cluster));
}

// The condition a copy must reach to win: Admitted since #8592
// (MultiKueueWaitForWorkloadAdmitted, on by default); before it, QuotaReserved
// (FirstReserving), which pins the job to a worker whose ProvisioningRequest
// has not even been answered (known-bugs.md K25).
const char* winning_condition(const Engine& m) {
  return m.gate("MultiKueueWaitForWorkloadAdmitted") ? "Admitted" : "QuotaReserved";
}

// bestMatchByCondition: the earliest copy with the winning condition; ties keep
// config order (Kueue: Go map order).
std::optional<Remote> first_admitted(const Engine& m, const std::vector<Remote>& group) {
  const std::string cond = winning_condition(m);
  std::optional<Remote> best;
  for (const Remote& r : group) {
    if (!r.wl->is_true(cond)) continue;
    if (!best || r.wl->condition_ms.at(cond) < best->wl->condition_ms.at(cond)) best = r;
  }
  return best;
}

void retry(Fleet& f, WorkloadInfo& local, const std::string& check, const std::string& message) {
  set_check_state(f.manager, local, check, model::CheckState::Retry, std::nullopt, message);
}

// Retry with `message` once workerLostTimeout has passed since `since`; until then the
// controller requeues itself for that time.
bool retry_after_worker_lost_timeout(Fleet& f, WorkloadInfo& local, const std::string& check,
                                     TimeMs since, const std::string& message) {
  const TimeMs deadline =
      since + f.manager.manifests.configuration.multi_kueue.worker_lost_timeout_s * 1000;
  if (f.now() < deadline) {
    f.timers.insert(deadline);
    return false;
  }
  retry(f, local, check, message);
  return true;
}

// Step 6a: the check is Ready but no copy is admitted any more.
bool lost_admitted_remote(Fleet& f, WorkloadInfo& local, const std::string& check) {
  const std::string& cluster = local.obj.cluster_name;
  if (!cluster.empty() && f.workers.contains(cluster) && !f.connected(cluster))
    return retry_after_worker_lost_timeout(f, local, check, f.disconnected_since.at(cluster),
                                           "Admitting remote lost");
  // Before #8477 (MultiKueueRedoAdmissionOnEvictionInWorker) only the cluster
  // that held the workload tries to readmit it: while its copy exists, the
  // manager waits for it (known-bugs.md Seed 1, #8089/#8302).
  if (!f.manager.gate("MultiKueueRedoAdmissionOnEvictionInWorker")) {
    const WorkloadInfo* r =
        f.workers.contains(cluster) ? f.worker(cluster).find(local.key) : nullptr;
    if (r != nullptr && !r->deleted) return false;
    // With the copy gone (a deactivated one deleted in step 5), Kueue then waited
    // workerLostTimeout from the check's lastTransitionTime.
    return retry_after_worker_lost_timeout(f, local, check, local.check_ms[check],
                                           "Reserving remote lost");
  }
  retry(f, local, check, fmt::format("Workload no longer admitted on worker cluster {}", cluster));
  return true;
}

// Step 6b: keep the first admitted copy, delete the others, check Ready.
bool select_remote(Fleet& f, WorkloadInfo& local, const std::string& check, const Remote& winner,
                   const std::vector<Remote>& group) {
  bool changed = false;
  for (const Remote& r : group) {
    if (r.cluster == winner.cluster) continue;
    delete_remote(f, r);
    changed = true;
  }
  // Local evicted while holding quota: Kueue deactivates the remote (DeactivationTarget,
  // EvictedOnManagerCluster). Where the reservation stays because the manager's Job still mirrors
  // a lost worker's Job as active, step 4's SyncJob then creates the Job on the deactivated copy's
  // worker, suspended, and mirrors its status, which reads inactive, so the jobframework releases
  // the reservation. kmc deletes the copy, which releases what deactivation does, and takes those
  // reconciles as one. Otherwise the copy goes once the reservation does (step 2).
  if (local.is_evicted()) {
    if (!local.mirrored_job_active || winner.cluster == local.mirrored_from) return changed;
    delete_remote(f, winner);
    local.mirrored_job_active = false;
    local.mirrored_from = winner.cluster;
    f.manager.post(f.now(), ev::JobStopped{local.key});
    f.manager.log_line(fmt::format(
        "{}: its copy on {} deactivated (EvictedOnManagerCluster); the Job mirrored from there "
        "reads inactive",
        local.key, winner.cluster));
    return true;
  }
  // SyncJob on the winner: the job is created there and runs once its copy is Admitted. It
  // comes before the status patch, so a copy seen again after a partition that wins over the
  // selected one gets its Job even though clusterName, immutable, keeps the old worker.
  if (!winner.wl->job_exists) {
    Engine& worker = f.worker(winner.cluster);
    worker.now_ms = f.now();
    winner.wl->job_exists = true;
    start_job_if_admitted(worker, *winner.wl);
    changed = true;
  }
  if (check_state(local, check) == model::CheckState::Ready) return changed;
  local.obj.cluster_name = winner.cluster;
  local.obj.nominated_cluster_names.clear();
  set_check_state(f.manager, local, check, model::CheckState::Ready, std::nullopt,
                  fmt::format("The workload got reservation on \"{}\"", winner.cluster));
  return true;
}

// Steps 8-9: nominate, create missing copies, delete copies on other clusters.
bool nominate_and_sync(Fleet& f, WorkloadInfo& local, const std::string& check,
                       const model::MultiKueueConfig& cfg, const std::vector<Remote>& group) {
  for (const auto& s : local.obj.admission_checks) {
    if (s.name != check && s.state != model::CheckState::Ready) return false;  // other checks first
  }
  const std::vector<std::string> nominated = nominate_clusters(f, local, cfg);
  bool changed = false;
  for (const Remote& r : group) {
    if (std::find(nominated.begin(), nominated.end(), r.cluster) != nominated.end()) continue;
    delete_remote(f, r);
    changed = true;
  }
  for (const auto& c : nominated) {
    if (!f.connected(c)) continue;  // an error upstream; retried on the next reconcile
    const WorkloadInfo* r = f.worker(c).find(local.key);
    if (r != nullptr && !r->deleted) continue;
    create_remote(f, local, c);
    changed = true;
  }
  return changed;
}

// SyncJob's status copy: the manager's Job mirrors the Job of the worker it selected, on every
// reconcile while that worker is reachable (MultiKueueBatchJobWithManagedBy); once it is not, the
// last status copied stays.
void sync_job_status(Fleet& f, WorkloadInfo& local) {
  if (!f.manager.gate("MultiKueueBatchJobWithManagedBy")) return;
  const std::string& cluster = local.obj.cluster_name;
  if (local.is_evicted() || cluster.empty() || !f.connected(cluster)) return;
  const WorkloadInfo* r = f.worker(cluster).find(local.key);
  local.mirrored_job_active = r != nullptr && !r->deleted && r->job_active;
  local.mirrored_from = cluster;
}

// An evicted workload whose Job still mirrors a lost worker's as active: once that worker is
// reachable, 6b deactivates the copy (EvictedOnManagerCluster; kmc deletes it, which releases
// what deactivation does), SyncJob mirrors the stopped Job, and the jobframework releases the
// reservation (jobframework/reconciler.go: !job.IsActive()).
bool release_after_lost_job(Fleet& f, WorkloadInfo& local) {
  if (!local.is_evicted() || !local.has_quota_reservation() || !local.mirrored_job_active)
    return false;
  if (!f.connected(local.mirrored_from)) return false;
  WorkloadInfo* r = f.worker(local.mirrored_from).find(local.key);
  if (r != nullptr && !r->deleted && r->job_active) delete_remote(f, {local.mirrored_from, r});
  local.mirrored_job_active = false;
  f.manager.post(f.now(), ev::JobStopped{local.key});
  f.manager.log_line(
      fmt::format("{}: its Job on {} reads inactive", local.key, local.mirrored_from));
  return true;
}

}  // namespace

bool reconcile_multikueue(Fleet& f, WorkloadInfo& local, const std::string& check) {
  const model::MultiKueueConfig* cfg = config_of(f.manager, check);
  if (cfg == nullptr) return false;
  sync_job_status(f, local);
  std::vector<Remote> group = read_group(f, local, *cfg);
  if (local.is_finished() || !local.has_quota_reservation()) {
    for (const Remote& r : group) delete_remote(f, r);
    return !group.empty();
  }
  for (const Remote& r : group) {
    if (!r.wl->is_finished()) continue;
    const model::Condition* c = r.wl->condition("Finished");
    finish_workload(f.manager, local, c != nullptr ? c->reason : "Succeeded");
    local.mirrored_job_active = false;
    return true;
  }
  if (release_after_lost_job(f, local)) return true;
  const model::CheckState state = check_state(local, check);
  const bool redo_on_eviction = f.manager.gate("MultiKueueRedoAdmissionOnEvictionInWorker");
  for (const Remote& r : group) {
    if (!redo_on_eviction) break;
    if (!r.wl->is_evicted() || local.is_evicted() || state != model::CheckState::Ready) continue;
    if (r.cluster != local.obj.cluster_name) continue;
    retry(f, local, check,
          fmt::format("Workload evicted on worker cluster {}, resetting for re-admission",
                      r.cluster));
    return true;
  }
  // Step 5: a copy its worker deactivated (a Rejected check) no longer matches the manager's spec
  // (spec.active), so it is deleted; step 8 below creates it again on a nominated worker. An
  // evicted workload stops at step 4 instead: its copies read evicted too.
  bool pruned = false;
  if (!local.is_evicted()) {
    std::erase_if(group, [&](const Remote& r) {
      if (r.wl->obj.active) return false;
      delete_remote(f, r);
      pruned = true;
      return true;
    });
  }
  const std::optional<Remote> winner = first_admitted(f.manager, group);
  if (!winner) {
    if (state == model::CheckState::Ready && !local.is_evicted())
      return lost_admitted_remote(f, local, check) || pruned;
  } else {
    return select_remote(f, local, check, *winner, group) || pruned;
  }
  // Step 8 (ShouldSkipClusterNomination) reads only the check and clusterName, both reset by the
  // eviction: a workload evicted while its Job still reads active, so holding its quota, is
  // dispatched again (its winning copy is then deactivated, select_remote).
  if (state != model::CheckState::Pending || !local.obj.cluster_name.empty() ||
      (local.is_evicted() && !local.mirrored_job_active))
    return pruned;
  return nominate_and_sync(f, local, check, *cfg, group) || pruned;
}

}  // namespace kmc::engine
