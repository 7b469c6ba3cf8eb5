// Fair-sharing preemption (pkg/scheduler/preemption/preemption.go
// fairPreemptions and fairsharing/{ordering,target,least_common_ancestor,
// strategy}.go; kueue-semantics.md §4.7). Target ClusterQueues are visited
// from the root down by highest DRS; a cross-queue victim is taken only if
// the preemptor's share after admission stays fair against the target's
// share (rules S2-a, then S2-b), unless the preemptor stays within nominal.
#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "engine/drs.hpp"
#include "engine/preemption.hpp"

namespace kmc::engine {

namespace {

using Strategy = bool (*)(const Drs& preemptor_new, const Drs& target_old, const Drs& target_new);

// Rule S2-a.
bool less_than_or_equal_to_final_share(const Drs& p, const Drs&, const Drs& target_new) {
  return compare_drs(p, target_new) <= 0;
}
// Rule S2-b.
bool less_than_initial_share(const Drs& p, const Drs& target_old, const Drs&) {
  return compare_drs(p, target_old) < 0;
}

std::vector<Strategy> parse_strategies(const Engine& e) {
  const auto& names = e.manifests.configuration.fair_sharing.preemption_strategies;
  if (names.empty()) return {less_than_or_equal_to_final_share, less_than_initial_share};
  std::vector<Strategy> out;
  for (const auto& n : names) {
    out.push_back(n == "LessThanInitialShare" ? less_than_initial_share
                                              : less_than_or_equal_to_final_share);
  }
  return out;
}

int node_of(const Engine& e, int cq) {
  return e.cluster_queues[static_cast<size_t>(cq)].node;
}

// cqIsBorrowing: above nominal on some fr that needs preemption.
bool cq_is_borrowing(const PreemptionCtx& ctx, int node) {
  const QuotaTree& t = ctx.snapshot.tree;
  if (!t.has_parent(node)) return false;
  return std::any_of(ctx.frs_need.begin(), ctx.frs_need.end(),
                     [&](FrId fr) { return t.borrowing(node, fr); });
}

bool within_cq_policy_allows(const PreemptionCtx& ctx, const WorkloadInfo& c) {
  switch (
      ctx.engine.cluster_queues[static_cast<size_t>(ctx.cq)].spec.preemption.within_cluster_queue) {
    case model::WithinClusterQueuePolicy::Never:
      return false;
    case model::WithinClusterQueuePolicy::LowerPriority:
      return satisfies_policy("LowerPriority", ctx.preemptor, c, ctx.engine.ordering());
    case model::WithinClusterQueuePolicy::LowerOrNewerEqualPriority:
      return satisfies_policy("LowerOrNewerEqualPriority", ctx.preemptor, c, ctx.engine.ordering());
  }
  return false;
}

// findCandidates: own-queue workloads by withinClusterQueue, plus workloads of
// every borrowing ClusterQueue of the whole cohort tree by reclaimWithinCohort.
std::vector<int> find_candidates(const PreemptionCtx& ctx) {
  const Engine& e = ctx.engine;
  const QuotaTree& t = ctx.snapshot.tree;
  const int own = node_of(e, ctx.cq);
  std::vector<int> out;
  for (int id : ctx.snapshot.workloads[static_cast<size_t>(ctx.cq)]) {
    const WorkloadInfo& c = e.workloads[static_cast<size_t>(id)];
    if (within_cq_policy_allows(ctx, c) && uses_resources(e, c, ctx.frs_need)) out.push_back(id);
  }
  const auto reclaim =
      e.cluster_queues[static_cast<size_t>(ctx.cq)].spec.preemption.reclaim_within_cohort;
  if (t.has_parent(own) && reclaim != model::ReclaimWithinCohortPolicy::Never) {
    for (size_t i = 0; i < e.cluster_queues.size(); ++i) {
      const int n = e.cluster_queues[i].node;
      if (n == own || t.root_of(n) != t.root_of(own) || !cq_is_borrowing(ctx, n)) continue;
      for (int id : ctx.snapshot.workloads[i]) {
        const WorkloadInfo& c = e.workloads[static_cast<size_t>(id)];
        if (reclaim != model::ReclaimWithinCohortPolicy::Any &&
            c.priority() >= ctx.preemptor.priority())
          continue;
        if (uses_resources(e, c, ctx.frs_need)) out.push_back(id);
      }
    }
  }
  std::sort(out.begin(), out.end(), [&](int a, int b) {
    return candidates_ordering(e, e.workloads[static_cast<size_t>(a)],
                               e.workloads[static_cast<size_t>(b)], ctx.cq) < 0;
  });
  return out;
}

// TargetClusterQueueOrdering: from the root, the child with the highest DRS
// (a ClusterQueue is yielded, a cohort is entered), pruning nodes that are not
// borrowing or have no candidates left. The same queue may come back while it
// stays the most unfair; every visit must pop a candidate or drop the queue.
struct TargetOrdering {
  const PreemptionCtx& ctx;
  int preemptor;                          // preemptor ClusterQueue's node
  std::set<int> ancestors;                // cohorts on the path preemptor -> root
  std::map<int, std::deque<int>> queued;  // ClusterQueue node -> candidates, in CandidatesOrdering
  std::set<int> pruned_cqs, pruned_cohorts;

  TargetOrdering(const PreemptionCtx& c, const std::vector<int>& candidates)
      : ctx(c), preemptor(node_of(c.engine, c.cq)) {
    const QuotaTree& t = ctx.snapshot.tree;
    for (int a = t.node(preemptor).parent; a >= 0; a = t.node(a).parent) ancestors.insert(a);
    for (int id : candidates)
      queued[node_of(ctx.engine, ctx.engine.workloads[static_cast<size_t>(id)].cluster_queue)]
          .push_back(id);
  }

  const QuotaTree& tree() const { return ctx.snapshot.tree; }
  Drs share(int n) const { return dominant_resource_share(ctx.engine, tree(), n); }
  bool has_workload(int n) const { return queued.contains(n) && !queued.at(n).empty(); }
  int pop(int n) {
    const int id = queued[n].front();
    queued[n].pop_front();
    return id;
  }
  void drop(int n) { pruned_cqs.insert(n); }
  const WorkloadInfo& head(int n) const {
    return ctx.engine.workloads[static_cast<size_t>(queued.at(n).front())];
  }

  // A DRS tie between ClusterQueues goes to the one whose head candidate ranks first.
  bool cq_before(int a, const Drs& da, int b, const Drs& db) const {
    const int c = compare_drs(da, db);
    if (c != 0) return c > 0;
    return candidates_ordering(ctx.engine, head(a), head(b), ctx.cq) < 0;
  }

  int next_target(int cohort);
  // Iter(): calls visit(cq node) until it reports a fit; false when exhausted.
  template <class Visit>
  bool iterate(Visit&& visit) {
    if (!tree().has_parent(preemptor)) {
      while (has_workload(preemptor)) {
        if (visit(preemptor)) return true;
      }
      return false;
    }
    const int root = tree().root_of(preemptor);
    while (!pruned_cohorts.contains(root)) {
      const int target = next_target(root);
      if (target >= 0 && visit(target)) return true;
    }
    return false;
  }
};

int TargetOrdering::next_target(int cohort) {
  int best_cq = -1, best_cohort = -1;
  Drs cq_drs, cohort_drs;
  for (int child : tree().node(cohort).children) {
    if (!tree().node(child).is_cluster_queue || pruned_cqs.contains(child)) continue;
    const Drs d = share(child);
    if ((!d.borrowing && child != preemptor) || !has_workload(child)) {
      pruned_cqs.insert(child);
    } else if (best_cq < 0 || cq_before(child, d, best_cq, cq_drs)) {
      best_cq = child;
      cq_drs = d;
    }
  }
  for (int child : tree().node(cohort).children) {
    if (tree().node(child).is_cluster_queue || pruned_cohorts.contains(child)) continue;
    const Drs d = share(child);
    // A cohort on the preemptor's path stays until its children are pruned.
    if (!d.borrowing && !ancestors.contains(child)) {
      pruned_cohorts.insert(child);
    } else if (best_cohort < 0 || compare_drs(d, cohort_drs) >= 0) {
      best_cohort = child;
      cohort_drs = d;
    }
  }
  if (best_cq < 0 && best_cohort < 0) {
    pruned_cohorts.insert(cohort);
    return -1;
  }
  // Ties enter the cohort: the most unfair node inside it can be found there.
  if (best_cohort >= 0 && (best_cq < 0 || compare_drs(cohort_drs, cq_drs) >= 0))
    return next_target(best_cohort);
  return best_cq;
}

// One fairPreemptions run: the preemptor's usage is simulated as added, so
// every DRS includes the incoming workload.
struct FairRun {
  PreemptionCtx& ctx;
  int preemptor;
  std::vector<Target> targets;
  std::vector<int> retry;  // candidates that failed the first strategy

  QuotaTree& tree() { return ctx.snapshot.tree; }
  const WorkloadInfo& wl(int id) const { return ctx.engine.workloads[static_cast<size_t>(id)]; }

  // workloadFitsForFairSharing: fit is checked without the simulated incoming usage.
  bool fits() {
    tree().remove_usage(preemptor, ctx.usage);
    const bool ok = workload_fits(ctx, true);
    tree().add_usage(preemptor, ctx.usage);
    return ok;
  }
  bool take(int id, const char* reason) {
    remove_from_snapshot(ctx, id);
    targets.push_back({id, reason});
    return fits();
  }
  // queueWithinNominalInResourcesNeedingPreemption, incoming usage included.
  bool within_nominal() {
    if (!ctx.engine.gate("FairSharingPreemptWithinNominal")) return false;
    return std::none_of(ctx.frs_need.begin(), ctx.frs_need.end(),
                        [&](FrId fr) { return tree().borrowing(preemptor, fr); });
  }
  // getAlmostLCA: the node just below the lowest common ancestor with the preemptor.
  int almost_lca(int from, int lca) {
    while (tree().node(from).parent != lca) from = tree().node(from).parent;
    return from;
  }
  int lca_with(const TargetOrdering& o, int target) {
    int a = tree().node(target).parent;
    while (!o.ancestors.contains(a)) a = tree().node(a).parent;
    return a;
  }
  Drs share(int n) { return dominant_resource_share(ctx.engine, tree(), n); }

  bool first_strategy(const std::vector<int>& candidates, Strategy strategy);
  bool visit_first(TargetOrdering& o, int target, bool preemptor_within_nominal, Strategy strategy);
  bool second_strategy(Strategy strategy);
};

bool FairRun::visit_first(TargetOrdering& o, int target, bool preemptor_within_nominal,
                          Strategy strategy) {
  if (target == preemptor) return take(o.pop(target), "InClusterQueue");
  // Nominal entitlement: a preemptor within nominal reclaims without the strategies.
  if (preemptor_within_nominal) return take(o.pop(target), "InCohortReclamation");
  const int lca = lca_with(o, target);
  const int target_alca = almost_lca(target, lca);
  const Drs preemptor_new = share(almost_lca(preemptor, lca));
  const Drs target_old = share(target_alca);
  // +Inf against a finite share: no candidate of this queue can pass; keep them for S2-b.
  if (preemptor_new.zero_weight_borrows() && !target_old.zero_weight_borrows()) {
    while (o.has_workload(target)) retry.push_back(o.pop(target));
    return false;
  }
  while (o.has_workload(target)) {
    const int id = o.pop(target);
    tree().remove_usage(target, wl(id).usage);  // SimulateUsageRemoval
    const Drs target_new = share(target_alca);
    tree().add_usage(target, wl(id).usage);
    if (strategy(preemptor_new, target_old, target_new)) {
      // One victim per visit: the shares changed, so the ordering is recomputed.
      return take(id, "InCohortFairSharing");
    }
    retry.push_back(id);
  }
  return false;
}

bool FairRun::first_strategy(const std::vector<int>& candidates, Strategy strategy) {
  TargetOrdering o(ctx, candidates);
  const bool nominal = within_nominal();
  return o.iterate([&](int target) { return visit_first(o, target, nominal, strategy); });
}

// Rule S2-b over the retry candidates: at most one victim per ClusterQueue.
bool FairRun::second_strategy(Strategy strategy) {
  TargetOrdering o(ctx, retry);
  return o.iterate([&](int target) {
    bool ok = false;
    if (target != preemptor) {
      const int lca = lca_with(o, target);
      const Drs preemptor_new = share(almost_lca(preemptor, lca));
      const Drs target_old = share(almost_lca(target, lca));
      if (strategy(preemptor_new, target_old, target_old))
        ok = take(o.pop(target), "InCohortFairSharing");
    }
    o.drop(target);
    return ok;
  });
}

}  // namespace

std::vector<Target> fair_preemptions(PreemptionCtx& ctx) {
  FairRun run{ctx, node_of(ctx.engine, ctx.cq), {}, {}};
  const std::vector<int> candidates = find_candidates(ctx);
  const std::vector<Strategy> strategies = parse_strategies(ctx.engine);
  run.tree().add_usage(run.preemptor, ctx.usage);  // DRS values include the incoming workload
  bool fits = run.first_strategy(candidates, strategies.front());
  if (!fits && strategies.size() > 1) fits = run.second_strategy(strategies[1]);
  run.tree().remove_usage(run.preemptor, ctx.usage);
  std::vector<Target> targets = std::move(run.targets);
  if (!fits) {
    for (const Target& t : targets) add_to_snapshot(ctx, t.workload);
    return {};
  }
  targets = fill_back(ctx, std::move(targets), true);
  for (const Target& t : targets) add_to_snapshot(ctx, t.workload);
  return targets;
}

}  // namespace kmc::engine
