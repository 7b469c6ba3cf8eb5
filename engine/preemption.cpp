#include "engine/preemption.hpp"

#include <algorithm>

namespace kmc::engine {

namespace {

enum class Variant {
  Never,
  WithinCQ,
  HierarchicalReclaim,
  ReclaimWithoutBorrowing,
  ReclaimWhileBorrowing
};

std::string reason_of(Variant v) {
  switch (v) {
    case Variant::WithinCQ:
      return "InClusterQueue";
    case Variant::HierarchicalReclaim:
      return "InCohortReclamation";
    case Variant::ReclaimWithoutBorrowing:
      return "InCohortReclamation";
    case Variant::ReclaimWhileBorrowing:
      return "InCohortReclaimWhileBorrowing";
    case Variant::Never:
      break;
  }
  return "Unknown";
}

struct Candidate {
  int workload;
  int lca;  // the subtree root it was collected under; -1 for same-queue
  Variant variant;
};

const char* within_policy(model::WithinClusterQueuePolicy p) {
  switch (p) {
    case model::WithinClusterQueuePolicy::Never:
      return "Never";
    case model::WithinClusterQueuePolicy::LowerPriority:
      return "LowerPriority";
    case model::WithinClusterQueuePolicy::LowerOrNewerEqualPriority:
      return "LowerOrNewerEqualPriority";
  }
  return "Never";
}

const char* reclaim_policy(model::ReclaimWithinCohortPolicy p) {
  switch (p) {
    case model::ReclaimWithinCohortPolicy::Never:
      return "Never";
    case model::ReclaimWithinCohortPolicy::LowerPriority:
      return "LowerPriority";
    case model::ReclaimWithinCohortPolicy::Any:
      return "Any";
  }
  return "Never";
}

bool borrow_within_cohort_forbidden(const ClusterQueueInfo& cq) {
  return cq.spec.preemption.borrow_within_cohort == model::BorrowWithinCohortPolicy::Never;
}

Variant classify(const PreemptionCtx& ctx, const WorkloadInfo& c, bool hierarchical_advantage) {
  if (!uses_resources(ctx.engine, c, ctx.frs_need)) return Variant::Never;
  const ClusterQueueInfo& cq = ctx.engine.cluster_queues[static_cast<size_t>(ctx.cq)];
  const bool same = c.cluster_queue == ctx.cq;
  const std::string policy = same ? within_policy(cq.spec.preemption.within_cluster_queue)
                                  : reclaim_policy(cq.spec.preemption.reclaim_within_cohort);
  if (!satisfies_policy(policy, ctx.preemptor, c, ctx.engine.ordering())) return Variant::Never;
  if (same) return Variant::WithinCQ;
  if (hierarchical_advantage) return Variant::HierarchicalReclaim;
  if (borrow_within_cohort_forbidden(cq)) return Variant::ReclaimWithoutBorrowing;
  const auto threshold = cq.spec.preemption.max_priority_threshold;
  if (c.priority() >= ctx.preemptor.priority() || (threshold && c.priority() > *threshold)) {
    return Variant::ReclaimWithoutBorrowing;
  }
  return Variant::ReclaimWhileBorrowing;
}

void candidates_from_cq(const PreemptionCtx& ctx, int cq, int lca, bool adv,
                        std::vector<Candidate>& out) {
  for (int id : ctx.snapshot.workloads[static_cast<size_t>(cq)]) {
    const Variant v = classify(ctx, ctx.engine.workloads[static_cast<size_t>(id)], adv);
    if (v != Variant::Never) out.push_back({id, lca, v});
  }
}

int cq_of_node(const Engine& e, int node) {
  for (size_t i = 0; i < e.cluster_queues.size(); ++i) {
    if (e.cluster_queues[i].node == node) return static_cast<int>(i);
  }
  return -1;
}

// collectCandidatesInSubtree: child cohorts first, then child ClusterQueues.
void collect_in_subtree(const PreemptionCtx& ctx, int cohort, int subtree_root, int skip, bool adv,
                        std::vector<Candidate>& out) {
  const QuotaTree& t = ctx.snapshot.tree;
  for (int child : t.node(cohort).children) {
    if (t.node(child).is_cluster_queue || child == skip) continue;
    if (t.within_nominal_in(child, ctx.frs_need)) continue;
    collect_in_subtree(ctx, child, subtree_root, skip, adv, out);
  }
  const int own_node = ctx.engine.cluster_queues[static_cast<size_t>(ctx.cq)].node;
  for (int child : t.node(cohort).children) {
    if (!t.node(child).is_cluster_queue || child == own_node) continue;
    if (!t.within_nominal_in(child, ctx.frs_need)) {
      candidates_from_cq(ctx, cq_of_node(ctx.engine, child), subtree_root, adv, out);
    }
  }
}

void collect_hierarchical(const PreemptionCtx& ctx, std::vector<Candidate>& hierarchy,
                          std::vector<Candidate>& priority) {
  const ClusterQueueInfo& cq = ctx.engine.cluster_queues[static_cast<size_t>(ctx.cq)];
  const QuotaTree& t = ctx.snapshot.tree;
  if (!t.has_parent(cq.node) ||
      cq.spec.preemption.reclaim_within_cohort == model::ReclaimWithinCohortPolicy::Never) {
    return;
  }
  auto [adv, remaining] = t.quantities_fit_in_quota(cq.node, ctx.usage);
  int prev = -1;
  for (int cur = t.node(cq.node).parent; cur >= 0; cur = t.node(cur).parent) {
    collect_in_subtree(ctx, cur, cur, prev, adv, adv ? hierarchy : priority);
    auto [fits, rest] = t.quantities_fit_in_quota(cur, remaining);
    remaining = std::move(rest);
    adv = adv || fits;
    prev = cur;
  }
}

void sort_candidates(const PreemptionCtx& ctx, std::vector<Candidate>& list) {
  std::sort(list.begin(), list.end(), [&](const Candidate& a, const Candidate& b) {
    return candidates_ordering(ctx.engine, ctx.engine.workloads[static_cast<size_t>(a.workload)],
                               ctx.engine.workloads[static_cast<size_t>(b.workload)], ctx.cq) < 0;
  });
}

struct CandidateList {
  std::vector<Candidate> all;
  bool no_candidate_from_other_queues = true;
  bool no_candidate_for_hierarchical_reclaim = true;
};

// NewCandidateIterator: evicted first, then hierarchy, priority, same-queue.
CandidateList make_candidates(const PreemptionCtx& ctx) {
  std::vector<Candidate> same, hierarchy, priority;
  const ClusterQueueInfo& cq = ctx.engine.cluster_queues[static_cast<size_t>(ctx.cq)];
  if (cq.spec.preemption.within_cluster_queue != model::WithinClusterQueuePolicy::Never) {
    candidates_from_cq(ctx, ctx.cq, -1, false, same);
  }
  collect_hierarchical(ctx, hierarchy, priority);
  sort_candidates(ctx, same);
  sort_candidates(ctx, hierarchy);
  sort_candidates(ctx, priority);
  CandidateList out;
  out.no_candidate_from_other_queues = hierarchy.empty() && priority.empty();
  out.no_candidate_for_hierarchical_reclaim = hierarchy.empty();
  for (bool evicted : {true, false}) {
    for (const auto* list : {&hierarchy, &priority, &same}) {
      for (const Candidate& c : *list) {
        if (ctx.engine.workloads[static_cast<size_t>(c.workload)].is_evicted() == evicted)
          out.all.push_back(c);
      }
    }
  }
  return out;
}

bool candidate_valid(const PreemptionCtx& ctx, const Candidate& c, bool borrow) {
  const WorkloadInfo& w = ctx.engine.workloads[static_cast<size_t>(c.workload)];
  if (w.cluster_queue == ctx.cq) return true;
  if (borrow && c.variant == Variant::ReclaimWithoutBorrowing) return false;
  const QuotaTree& t = ctx.snapshot.tree;
  const int node = ctx.engine.cluster_queues[static_cast<size_t>(w.cluster_queue)].node;
  if (t.within_nominal_in(node, ctx.frs_need)) return false;
  for (int n = t.node(node).parent; n >= 0 && n != c.lca; n = t.node(n).parent) {
    if (t.within_nominal_in(n, ctx.frs_need)) return false;
  }
  return true;
}

}  // namespace

void remove_from_snapshot(PreemptionCtx& ctx, int id) {
  const WorkloadInfo& w = ctx.engine.workloads[static_cast<size_t>(id)];
  ctx.snapshot.remove_workload(ctx.engine.cluster_queues[static_cast<size_t>(w.cluster_queue)].node,
                               w.cluster_queue, w);
}

void add_to_snapshot(PreemptionCtx& ctx, int id) {
  const WorkloadInfo& w = ctx.engine.workloads[static_cast<size_t>(id)];
  ctx.snapshot.add_workload(ctx.engine.cluster_queues[static_cast<size_t>(w.cluster_queue)].node,
                            w.cluster_queue, w);
}

// fillBackWorkloads: re-add earlier victims while the preemptor still fits.
std::vector<Target> fill_back(PreemptionCtx& ctx, std::vector<Target> targets,
                              bool allow_borrowing) {
  for (int i = static_cast<int>(targets.size()) - 2; i >= 0; --i) {
    add_to_snapshot(ctx, targets[static_cast<size_t>(i)].workload);
    if (workload_fits(ctx, allow_borrowing)) {
      targets[static_cast<size_t>(i)] = targets.back();
      targets.pop_back();
    } else {
      remove_from_snapshot(ctx, targets[static_cast<size_t>(i)].workload);
    }
  }
  return targets;
}

namespace {

bool queue_under_nominal(const PreemptionCtx& ctx) {
  const int node = ctx.engine.cluster_queues[static_cast<size_t>(ctx.cq)].node;
  for (FrId fr : ctx.frs_need) {
    if (ctx.snapshot.tree.nominal(node, fr) <= ctx.snapshot.tree.usage(node, fr)) return false;
  }
  return true;
}

}  // namespace

bool satisfies_policy(const std::string& policy, const WorkloadInfo& p, const WorkloadInfo& c,
                      const QueueOrdering& o) {
  if (policy == "LowerPriority") return p.priority() > c.priority();
  if (policy == "LowerOrNewerEqualPriority") {
    return p.priority() > c.priority() ||
           (p.priority() == c.priority() && p.queue_order_ms(o) < c.queue_order_ms(o));
  }
  return policy == "Any";
}

bool uses_resources(const Engine& engine, const WorkloadInfo& w, const std::vector<FrId>& frs) {
  for (const auto& [fr, v] : w.usage) {
    (void)v;
    if (std::find(frs.begin(), frs.end(), fr) != frs.end()) return true;
  }
  (void)engine;
  return false;
}

int candidates_ordering(const Engine& engine, const WorkloadInfo& a, const WorkloadInfo& b,
                        int preemptor_cq) {
  if (a.is_evicted() != b.is_evicted()) return a.is_evicted() ? -1 : 1;
  const bool a_own = a.cluster_queue == preemptor_cq, b_own = b.cluster_queue == preemptor_cq;
  if (a_own != b_own) return a_own ? 1 : -1;
  if (a.priority() != b.priority()) return a.priority() < b.priority() ? -1 : 1;
  const TimeMs ta = a.quota_reserved_ms(engine.now()), tb = b.quota_reserved_ms(engine.now());
  if (ta != tb) return ta > tb ? -1 : 1;  // newest reservation first
  if (a.reservation_seq != b.reservation_seq) return a.reservation_seq > b.reservation_seq ? -1 : 1;
  if (a.uid != b.uid) return a.uid < b.uid ? -1 : 1;
  return 0;
}

bool workload_fits(const PreemptionCtx& ctx, bool allow_borrowing) {
  const int node = ctx.engine.cluster_queues[static_cast<size_t>(ctx.cq)].node;
  for (const auto& [fr, v] : ctx.usage) {
    if (!allow_borrowing && ctx.snapshot.tree.borrowing_with(node, fr, v)) return false;
    if (v > ctx.snapshot.tree.available(node, fr)) return false;
  }
  return true;
}

std::vector<Target> classical_preemptions(PreemptionCtx& ctx) {
  const CandidateList cands = make_candidates(ctx);
  const bool forbidden =
      borrow_within_cohort_forbidden(ctx.engine.cluster_queues[static_cast<size_t>(ctx.cq)]);
  std::vector<bool> opts;
  if (cands.no_candidate_from_other_queues || (forbidden && !queue_under_nominal(ctx))) {
    opts = {true};
  } else if (forbidden && cands.no_candidate_for_hierarchical_reclaim) {
    opts = {false, true};
  } else {
    opts = {true, false};
  }
  for (bool borrow : opts) {
    std::vector<Target> targets;
    for (const Candidate& c : cands.all) {
      if (!candidate_valid(ctx, c, borrow)) continue;
      remove_from_snapshot(ctx, c.workload);
      targets.push_back({c.workload, reason_of(c.variant)});
      if (workload_fits(ctx, borrow)) {
        targets = fill_back(ctx, std::move(targets), borrow);
        for (const Target& t : targets) add_to_snapshot(ctx, t.workload);
        return targets;
      }
    }
    for (const Target& t : targets) add_to_snapshot(ctx, t.workload);
  }
  return {};
}

std::vector<Target> get_targets(PreemptionCtx& ctx) {
  if (ctx.engine.manifests.configuration.fair_sharing.enable) return fair_preemptions(ctx);
  return classical_preemptions(ctx);
}

std::pair<PreemptionPossibility, int> simulate_preemption(const Engine& engine, Snapshot& snapshot,
                                                          const WorkloadInfo& wl, int cq, FrId fr,
                                                          Amount val) {
  PreemptionCtx ctx{engine, snapshot, wl, cq, FrUsage{{fr, val}}, {fr}};
  const std::vector<Target> targets = get_targets(ctx);
  const int node = engine.cluster_queues[static_cast<size_t>(cq)].node;
  if (targets.empty())
    return {PreemptionPossibility::NoCandidates,
            snapshot.tree.lowest_subtree_that_fits(node, fr, val).first};
  for (const Target& t : targets) remove_from_snapshot(ctx, t.workload);
  const int borrow_after = snapshot.tree.lowest_subtree_that_fits(node, fr, val).first;
  for (const Target& t : targets) add_to_snapshot(ctx, t.workload);
  for (const Target& t : targets) {
    if (engine.workloads[static_cast<size_t>(t.workload)].cluster_queue == cq) {
      return {PreemptionPossibility::Preempt, borrow_after};
    }
  }
  return {PreemptionPossibility::Reclaim, borrow_after};
}

}  // namespace kmc::engine
