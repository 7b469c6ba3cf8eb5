// The fair-sharing tournament (pkg/scheduler/fair_sharing_iterator.go,
// kueue-semantics.md §4.7): each pop picks, level by level from the root
// cohort down, the child whose nominated entry leaves it the lowest dominant
// resource share. DRS values are recomputed on every pop, so admissions
// earlier in the cycle (already in the snapshot) count.
#include <map>
#include <utility>

#include "engine/drs.hpp"
#include "engine/scheduler.hpp"

namespace kmc::engine {

namespace {

struct Tournament {
  const Engine& e;
  QuotaTree& tree;
  const std::vector<Entry*>& remaining;
  // (parent cohort node, entry) -> DRS of that cohort's child on the entry's path,
  // with the entry's usage added (computeDRS's drsKey).
  std::map<std::pair<int, const Entry*>, Drs> drs;

  int node_of(const Entry* en) const { return e.cluster_queues[static_cast<size_t>(en->cq)].node; }

  void compute_drs(int root) {
    for (const Entry* en : remaining) {
      const int cq_node = node_of(en);
      if (tree.root_of(cq_node) != root) continue;
      tree.add_usage(cq_node, en->assignment.usage);  // SimulateUsageAddition
      Drs share = dominant_resource_share(e, tree, cq_node);
      for (int a = tree.node(cq_node).parent; a >= 0; a = tree.node(a).parent) {
        drs[{a, en}] = share;
        share = dominant_resource_share(e, tree, a);
      }
      tree.remove_usage(cq_node, en->assignment.usage);
    }
  }

  // entryComparer.less: the preemptor first, non-borrowing first, lower DRS,
  // higher priority, FIFO.
  bool less(const Entry* a, const Entry* b, int cohort) const {
    if (a->preemptor != b->preemptor) return a->preemptor;  // PrioritizePreemptorWorkloads
    const Drs& da = drs.at({cohort, a});
    const Drs& db = drs.at({cohort, b});
    if (e.gate("FairSharingPrioritizeNonBorrowing")) {
      const bool na = !da.borrowing_on(a->assignment.usage),
                 nb = !db.borrowing_on(b->assignment.usage);
      if (na != nb) return na;
    }
    if (const int c = compare_drs(da, db); c != 0) return c < 0;
    const WorkloadInfo& wa = e.workloads[static_cast<size_t>(a->workload)];
    const WorkloadInfo& wb = e.workloads[static_cast<size_t>(b->workload)];
    if (e.gate("PrioritySortingWithinCohort") && wa.priority() != wb.priority())
      return wa.priority() > wb.priority();
    const QueueOrdering o = e.ordering();
    if (wa.queue_order_ms(o) != wb.queue_order_ms(o))
      return wa.queue_order_ms(o) < wb.queue_order_ms(o);
    return wa.uid < wb.uid;  // deviation: Kueue leaves full ties to map order
  }

  Entry* entry_of_cq_node(int n) const {
    for (Entry* en : remaining) {
      if (node_of(en) == n) return en;
    }
    return nullptr;
  }

  // runTournament: child cohorts first, then child ClusterQueues; ties keep the first.
  Entry* run(int cohort) const {
    std::vector<Entry*> candidates;
    for (int child : tree.node(cohort).children) {
      if (tree.node(child).is_cluster_queue) continue;
      if (Entry* c = run(child)) candidates.push_back(c);
    }
    for (int child : tree.node(cohort).children) {
      if (!tree.node(child).is_cluster_queue) continue;
      if (Entry* c = entry_of_cq_node(child)) candidates.push_back(c);
    }
    if (candidates.empty()) return nullptr;
    Entry* best = candidates.front();
    for (size_t i = 1; i < candidates.size(); ++i) {
      if (less(candidates[i], best, cohort)) best = candidates[i];
    }
    return best;
  }
};

}  // namespace

// Kueue starts each pop from an arbitrary ClusterQueue (Go map order); the
// engine takes the first remaining entry, i.e. ClusterQueue order (deviation).
Entry* pop_fair_sharing(const Engine& engine, Snapshot& snapshot, std::vector<Entry*>& remaining) {
  Entry* first = remaining.front();
  const int cq_node = engine.cluster_queues[static_cast<size_t>(first->cq)].node;
  Entry* winner = first;
  if (snapshot.tree.has_parent(cq_node)) {
    Tournament t{engine, snapshot.tree, remaining, {}};
    const int root = snapshot.tree.root_of(cq_node);
    t.compute_drs(root);
    winner = t.run(root);
  }
  std::erase(remaining, winner);
  return winner;
}

}  // namespace kmc::engine
