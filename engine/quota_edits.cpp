// An operator edits a ClusterQueue's or a Cohort's quotas while the cluster
// runs. Kueue's ClusterQueue and Cohort controllers hand the new spec to the
// cache, which recomputes the whole cohort tree's SubtreeQuota and usage
// (updateCohortTreeResources) and bumps every ClusterQueue's
// AllocatableResourceGeneration on the way (updateClusterQueueResourceNode),
// so flavor assignment starts over; nothing is evicted, so a queue may be
// left above quotas that shrank. The queue manager requeues the tree's
// inadmissible workloads (UpdateClusterQueue with specUpdated; AddOrUpdateCohort).
#include <fmt/format.h>

#include "engine/controllers.hpp"

namespace kmc::engine {

bool update_quotas(Engine& e, const std::string& name, bool cohort,
                   const std::vector<QuotaUpdate>& quotas) {
  int node = -1;
  if (cohort) {
    const auto it = e.cohort_nodes.find(name);
    if (it != e.cohort_nodes.end()) node = it->second;
  } else if (const int idx = e.cq_index(name); idx >= 0) {
    // The controller's Update ignores a deleting ClusterQueue.
    if (e.cluster_queues[static_cast<size_t>(idx)].deleting) return false;
    node = e.cluster_queues[static_cast<size_t>(idx)].node;
  }
  if (node < 0) return false;
  bool changed = false;
  for (const QuotaUpdate& q : quotas) {
    const FrId fr = e.frs.find(q.flavor, q.resource);
    if (fr < 0) return false;
    const Amount nominal = q.nominal.value_or(e.tree.nominal(node, fr));
    const auto borrowing = q.borrowing_limit.value_or(e.tree.borrowing_limit(node, fr));
    const auto lending = q.lending_limit.value_or(e.tree.lending_limit(node, fr));
    if (nominal == e.tree.nominal(node, fr) && borrowing == e.tree.borrowing_limit(node, fr) &&
        lending == e.tree.lending_limit(node, fr))
      continue;
    e.tree.set_quota(node, fr, nominal, borrowing, lending);
    changed = true;
  }
  // The same spec again: the API server writes nothing and Kueue hears
  // nothing (the controllers act on a changed spec only).
  if (!changed) {
    e.log_line(fmt::format("{} {} quotas unchanged", cohort ? "Cohort" : "ClusterQueue", name));
    return true;
  }
  e.tree.refresh();
  const int root = e.tree.root_of(node);
  for (ClusterQueueInfo& cq : e.cluster_queues)
    if (e.tree.root_of(cq.node) == root) cq.allocatable_generation++;
  e.notify_requeue_tree(node);
  e.log_line(fmt::format("{} {} quotas updated", cohort ? "Cohort" : "ClusterQueue", name));
  return true;
}

}  // namespace kmc::engine
