#include "protocols/kube_scheduler/params.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kmc::protocols::ks {

namespace {

int index_of(std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<int>(it - names.begin());
  names.push_back(name);
  return static_cast<int>(names.size() - 1);
}

// Whether `job` is a Job of a JobSet that one of `workloads` stands for: the
// JobSet itself, or a Workload it owns.
bool part_of_a_workload(const std::vector<model::Workload>& workloads, const model::Workload& job) {
  for (const auto& owner : job.meta.owners) {
    if (owner.kind != "JobSet") continue;
    for (const auto& wl : workloads) {
      if (wl.meta.namespace_ != job.meta.namespace_) continue;
      if (wl.source_kind == "JobSet" && wl.meta.name == owner.name) return true;
      for (const auto& o : wl.meta.owners)
        if (o.kind == "JobSet" && o.name == owner.name) return true;
    }
  }
  return false;
}

// Whether `wl` is a Pod that one of `jobs` controls: one of that Job's own
// pods. The pod webhook may have queued it (its label, or LocalQueue
// defaulting past a Job that names no queue), but without Kueue it is the
// Job's, counted through the Job.
bool pod_of_a_job(const std::vector<model::Workload>& jobs, const model::Workload& wl) {
  if (wl.source_kind != "Pod") return false;
  for (const auto& owner : wl.meta.owners) {
    if (owner.kind != "Job") continue;
    for (const auto& job : jobs)
      if (job.meta.namespace_ == wl.meta.namespace_ && job.meta.name == owner.name) return true;
  }
  return false;
}

}  // namespace

SchedulerParams compile_kube_scheduler(const model::Scenario& sc) {
  using model::InputError;
  SchedulerParams p;
  if (!sc.fleet.workers.empty())
    throw InputError(sc.fleet.workers.front().pos, "workers",
                     "protocol kube-scheduler checks one cluster and has no workers");
  if (sc.fleet.nodes.empty())
    throw InputError(sc.fleet.pos, "nodes",
                     "kube-scheduler places pods on nodes: list them with their allocatable");
  for (const auto& n : sc.fleet.nodes)
    for (const auto& [r, q] : n.allocatable) index_of(p.resources, r);
  // Without Kueue every Job runs, queue name or not; a JobSet's Jobs are its
  // pods, counted once, through the JobSet (or its Workload) the input has,
  // and a Job's Pods are its own.
  std::vector<const model::Workload*> jobs;
  for (const auto& wl : sc.manager.workloads)
    if (!pod_of_a_job(sc.manager.unmanaged_jobs, wl)) jobs.push_back(&wl);
  for (const auto& job : sc.manager.unmanaged_jobs)
    if (!part_of_a_workload(sc.manager.workloads, job)) jobs.push_back(&job);
  for (const auto* wl : jobs)
    for (const auto& ps : wl->pod_sets)
      for (const auto& [r, q] : ps.requests) index_of(p.resources, r);
  const int R = p.R();
  for (const auto& n : sc.fleet.nodes) {
    p.nodes.push_back(n.name);
    for (int r = 0; r < R; ++r) {
      auto it = n.allocatable.find(p.resources[r]);
      p.allocatable.push_back(it == n.allocatable.end() ? 0
                                                        : it->second.kueue_value(p.resources[r]));
    }
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const auto* a, const auto* b) {
    return a->meta.creation_order < b->meta.creation_order;
  });
  for (const auto* wl : jobs) {
    if (wl->pod_sets.size() != 1)
      throw InputError(wl->meta.pos, "spec.podSets",
                       "kube-scheduler models Jobs of one pod template (one pod set)");
    JobParams j;
    j.name = wl->meta.namespace_ + "/" + wl->meta.name;
    j.pods = wl->pod_sets[0].count;
    j.req.assign(R, 0);
    for (const auto& [r, q] : wl->pod_sets[0].requests)
      j.req[index_of(p.resources, r)] = q.kueue_value(r);
    if (j.pods < 1) throw InputError(wl->meta.pos, "spec.parallelism", "a Job with no pods");
    p.jobs.push_back(std::move(j));
  }
  if (p.jobs.empty())
    throw InputError({sc.manager.dir, 0}, "", "no Job to place; kube-scheduler needs at least one");
  p.user_properties = sc.fleet.properties;
  return p;
}

}  // namespace kmc::protocols::ks
