// ClusterQueues and LocalQueues created while the cluster runs. Before its
// creation a ClusterQueue is in neither the cache nor the queue manager: its
// quota is in no cohort, and the workloads of its LocalQueues wait in the
// LocalQueues' items, in no heap (queue manager AddOrUpdateWorkload:
// ErrClusterQueueDoesNotExist). AddClusterQueue pushes them into its heap and
// requeues the parked workloads of its cohort tree (notifyRetryInadmissible);
// the cache adds it to its cohort, whose subtree quota grows. The engine keeps
// such a ClusterQueue built but absent: inactive, without quota, its
// workloads in a heap nothing pops, built again at its creation. Both push
// whatever the workloads' backoff: PushActiveIfNotPresent reads none. A missing LocalQueue's
// workloads are in no queue; AddLocalQueue pushes its pending ones. A deleted ClusterQueue may be
// created again once its finalizer is gone (the API server refuses the create
// before), from its manifest.
#include <fmt/format.h>

#include "engine/controllers.hpp"
#include "engine/lookup.hpp"

namespace kmc::engine {

bool cluster_queue_absent(Engine& e, const std::string& name) {
  const int idx = e.cq_index(name);
  if (idx < 0) return false;
  ClusterQueueInfo& cq = e.cluster_queues[static_cast<size_t>(idx)];
  if (cq.absent || !e.cq_workloads[static_cast<size_t>(idx)].empty()) return false;
  cq.absent = true;
  cq.created_active = cq.active;
  cq.created_reason = cq.inactive_reason;
  cq.active = false;
  cq.inactive_reason = "not created";
  for (FrId fr = 0; fr < e.frs.size(); ++fr) e.tree.set_quota(cq.node, fr, 0, {}, {});
  e.tree.refresh();
  return true;
}

bool local_queue_absent(Engine& e, const std::string& ns, const std::string& name) {
  const std::string key = ns + "/" + name;
  if (find_local_queue(e.manifests, ns, name) == nullptr ||
      !e.deleted_local_queues.insert(key).second)
    return false;
  for (WorkloadInfo& w : e.workloads) {
    if (w.obj.meta.namespace_ != ns || w.obj.queue_name != name) continue;
    if (w.has_quota_reservation()) return false;  // no start Kueue's cache could have
    e.queues.forget(w);
  }
  return true;
}

namespace {

// AddClusterQueue: a new heap, and the pending workloads of the LocalQueues
// pointing to it pushed into it (AddFromLocalQueue), backoff or not.
void push_local_queues(Engine& e, int idx) {
  e.queues.reset_cluster_queue(idx);
  for (const WorkloadInfo& w : e.workloads)
    if (w.cluster_queue == idx) e.push_from_local_queue(w);
}

// A deleted ClusterQueue created again once its old object is gone: a new
// object, its manifest's, so no edit made to the old one stays. The queue
// manager's AddClusterQueue builds a new heap and pushes the pending
// workloads of its LocalQueues (AddFromLocalQueue).
bool recreate(Engine& e, int idx) {
  ClusterQueueInfo& cq = e.cluster_queues[static_cast<size_t>(idx)];
  const model::ClusterQueue* spec = e.manifests.find_cluster_queue(cq.name);
  if (spec == nullptr) return false;
  cq.spec = *spec;
  cq.deleting = cq.terminating = cq.removed = false;
  const bool stopped = cq.spec.stop_policy != model::StopPolicy::None;
  cq.active = !stopped;
  cq.inactive_reason = stopped ? "stopped" : "";
  push_local_queues(e, idx);
  return true;
}

}  // namespace

bool create_cluster_queue(Engine& e, const std::string& name) {
  const int idx = e.cq_index(name);
  if (idx < 0) return false;
  ClusterQueueInfo& cq = e.cluster_queues[static_cast<size_t>(idx)];
  if (cq.removed) {
    if (!recreate(e, idx)) return false;
  } else if (cq.absent) {
    cq.absent = false;
    cq.active = cq.created_active;
    cq.inactive_reason = cq.created_reason;
    push_local_queues(e, idx);
  } else {
    return false;
  }
  e.set_spec_quotas(cq);
  e.tree.refresh();
  const int root = e.tree.root_of(cq.node);
  for (ClusterQueueInfo& other : e.cluster_queues)
    if (e.tree.root_of(other.node) == root) other.allocatable_generation++;
  e.notify_requeue_inadmissible(idx);
  e.log_line(fmt::format("ClusterQueue {} created", name));
  return true;
}

bool create_local_queue(Engine& e, const std::string& ns, const std::string& name,
                        std::optional<model::StopPolicy> stop_policy) {
  const std::string key = ns + "/" + name;
  if (find_local_queue(e.manifests, ns, name) == nullptr || e.deleted_local_queues.erase(key) == 0)
    return false;
  for (auto& lq : e.manifests.local_queues)
    if (stop_policy && lq.meta.namespace_ == ns && lq.meta.name == name)
      lq.stop_policy = *stop_policy;
  for (WorkloadInfo& w : e.workloads) {
    if (w.obj.meta.namespace_ == ns && w.obj.queue_name == name) e.push_from_local_queue(w);
  }
  e.log_line(fmt::format("LocalQueue {} created", key));
  return true;
}

bool cohort_absent(Engine& e, const std::string& name) {
  // An absent Cohort is what a deleted one is: an implicit cohort of its name.
  return find_cohort(e.manifests, name) != nullptr && delete_cohort(e, name);
}

bool create_cohort(Engine& e, const std::string& name) {
  const model::Cohort* spec = find_cohort(e.manifests, name);
  if (spec == nullptr || e.absent_cohorts.erase(name) == 0) return false;
  const int node = e.cohort_nodes.at(name);
  e.set_spec_quotas(node, spec->resource_groups);
  e.fair_weights[static_cast<size_t>(node)] =
      static_cast<double>(spec->fair_sharing_weight.milli) / 1000.0;
  if (spec->parent.empty())
    e.tree.refresh();
  else
    e.tree.attach(node, e.cohort_nodes.at(spec->parent));
  const int root = e.tree.root_of(node);
  for (ClusterQueueInfo& cq : e.cluster_queues)
    if (e.tree.root_of(cq.node) == root) cq.allocatable_generation++;
  e.notify_requeue_tree(node);
  e.log_line(fmt::format("Cohort {} created", name));
  return true;
}

}  // namespace kmc::engine
