// A ClusterQueue or a Cohort deleted while the cluster runs. Kueue's ClusterQueue
// controller (clusterqueue_controller.go): the resource-in-use finalizer keeps
// the object, so Reconcile sees its deletionTimestamp and marks it terminating
// in the cache (TerminateClusterQueue; until then it admits as before, and a
// restart's cache adds it active again): inactive, so heads() skips it and the
// snapshot leaves it out, while its usage and quota still count in its cohort.
// Update ignores a deleting ClusterQueue, so no spec change and no requeue
// reaches the cache or the queues. Once ClusterQueueEmpty (no workload holds
// quota in it), Reconcile removes the finalizer, and the Delete event takes it
// out of the cache (DeleteClusterQueue: the cohort's subtree quota shrinks,
// usage above it is not evicted) and out of the queue manager.
#include <fmt/format.h>

#include "engine/controllers.hpp"

namespace kmc::engine {

bool delete_cluster_queue(Engine& e, const std::string& name) {
  const int idx = e.cq_index(name);
  if (idx < 0) return false;
  ClusterQueueInfo& cq = e.cluster_queues[static_cast<size_t>(idx)];
  if (cq.deleting) return false;
  cq.deleting = true;
  e.log_line(fmt::format("ClusterQueue {} deleted: a deletionTimestamp", name));
  return true;
}

bool terminate_cluster_queue(Engine& e, const std::string& name) {
  const int idx = e.cq_index(name);
  if (idx < 0) return false;
  ClusterQueueInfo& cq = e.cluster_queues[static_cast<size_t>(idx)];
  if (!cq.deleting || cq.terminating || cq.removed) return false;
  cq.terminating = true;
  cq.active = false;
  cq.inactive_reason = "terminating";
  e.log_line(fmt::format("ClusterQueue {} terminating", name));
  return true;
}

void restart_cluster_queue(ClusterQueueInfo& cq) {
  if (!cq.terminating || cq.removed) return;
  // AddClusterQueue: the status its spec gives, whatever its deletionTimestamp.
  cq.terminating = false;
  const bool stopped = cq.spec.stop_policy != model::StopPolicy::None;
  cq.active = !stopped;
  cq.inactive_reason = stopped ? "stopped" : "";
}

bool finalize_cluster_queue(Engine& e, const std::string& name) {
  const int idx = e.cq_index(name);
  if (idx < 0) return false;
  ClusterQueueInfo& cq = e.cluster_queues[static_cast<size_t>(idx)];
  if (!cq.terminating || cq.removed) return false;
  if (!e.cq_workloads[static_cast<size_t>(idx)].empty()) return false;  // ClusterQueueEmpty
  // Out of the tree: a leaf without quota adds nothing to its cohort's.
  for (FrId fr = 0; fr < e.frs.size(); ++fr) e.tree.set_quota(cq.node, fr, 0, {}, {});
  e.tree.refresh();
  const int root = e.tree.root_of(cq.node);
  for (ClusterQueueInfo& other : e.cluster_queues)
    if (e.tree.root_of(other.node) == root) other.allocatable_generation++;
  cq.removed = true;
  e.log_line(fmt::format("ClusterQueue {} finalized: gone from the cache", name));
  return true;
}

// The cohort controller's Reconcile on NotFound: cache.DeleteCohort and the
// queue manager's. The hierarchy keeps an implicit cohort of the same name for
// its children (Manager.DeleteCohort: transferChildren), detached from the
// parent, and recomputes its resource node (updateCohortResourceNode): no
// quota of its own; its old tree loses the subtree's quota
// (updateCohortTreeAndInfoMetricsIfNoCycle of the old parent). The
// ClusterQueues' allocatable generations stay, and the queue manager
// requeues nothing.
bool delete_cohort(Engine& e, const std::string& name) {
  const auto it = e.cohort_nodes.find(name);
  if (it == e.cohort_nodes.end()) return false;
  if (!e.absent_cohorts.insert(name).second) return false;
  const int node = it->second;
  for (FrId fr = 0; fr < e.frs.size(); ++fr) e.tree.set_quota(node, fr, 0, {}, {});
  e.tree.refresh();
  // Detached from its parent: with children, the implicit cohort roots a tree of its own.
  e.tree.detach(node);
  e.fair_weights[static_cast<size_t>(node)] = 1.0;  // an implicit cohort's
  e.log_line(fmt::format("Cohort {} deleted: an implicit cohort without quota", name));
  return true;
}

}  // namespace kmc::engine
