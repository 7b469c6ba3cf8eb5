#include "engine/scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "engine/controllers.hpp"
#include "engine/lookup.hpp"

namespace kmc::engine {

namespace {

bool last_assignment_outdated(const Engine& e, const WorkloadInfo& w) {
  const LastAssignment& last = *w.last_assignment;
  if (e.gate("FlavorFungibilityPreserveScanProgress") &&
      e.scheduling_cycle - last.scheduling_cycle <= 1)
    return false;
  return e.cluster_queues[static_cast<size_t>(w.cluster_queue)].allocatable_generation >
         last.cluster_queue_generation;
}

// GetTargets takes the preemptor's usage from TotalRequestsFor: its pod sets'
// own requests. The `pods` that assignFlavors adds for a ClusterQueue covering
// them are added to a clone (flavorassigner.go), so the victims are chosen
// as if the pods needed no quota, though `pods` may be what needs preemption;
// the fits check after GetTargets (processEntry) counts them.
std::vector<Target> targets_for(Engine& e, Snapshot& s, const WorkloadInfo& w,
                                const Assignment& a) {
  FrUsage usage = a.usage;
  const bool asks_pods = std::any_of(w.pod_sets.begin(), w.pod_sets.end(),
                                     [](const auto& ps) { return ps.per_pod.contains("pods"); });
  if (!asks_pods && !e.options.preemption_counts_pods)
    std::erase_if(usage, [&](const auto& u) { return e.frs.at(u.first).resource == "pods"; });
  PreemptionCtx ctx{e, s, w, w.cluster_queue, std::move(usage), a.frs_need_preemption(e.frs)};
  return get_targets(ctx);
}

bool can_be_partially_admitted(const WorkloadInfo& w) {
  for (const auto& ps : w.pod_sets) {
    if (ps.min_count && ps.count > *ps.min_count) return true;
  }
  return false;
}

// PodSetReducer.Search: sort.Search over reductions, keeping the largest counts that work.
bool partial_admission(Engine& e, Snapshot& s, const WorkloadInfo& w, Assignment& a,
                       std::vector<Target>& t) {
  std::vector<std::int32_t> full, delta;
  std::int32_t total = 0;
  for (const auto& ps : w.pod_sets) {
    full.push_back(ps.count);
    delta.push_back(ps.count - ps.min_count.value_or(ps.count));
    total += delta.back();
  }
  if (total == 0) return false;
  bool found = false;
  int last_good = -1;
  auto fits = [&](int i) {
    std::vector<std::int32_t> counts(full.size());
    for (size_t k = 0; k < full.size(); ++k)
      counts[k] =
          full[k] - static_cast<std::int32_t>(static_cast<std::int64_t>(delta[k]) * i / total);
    Assignment cand = assign_flavors(e, s, w, counts);
    std::vector<Target> targets;
    const FlavorMode m = cand.mode();
    if (m == FlavorMode::Preempt) targets = targets_for(e, s, w, cand);
    if (m == FlavorMode::Fit || (m == FlavorMode::Preempt && !targets.empty())) {
      last_good = i;
      a = std::move(cand);
      t = std::move(targets);
      found = true;
      return true;
    }
    return false;
  };
  int lo = 0, hi = total + 1;
  while (lo < hi) {
    const int h = (lo + hi) / 2;
    if (!fits(h))
      lo = h + 1;
    else
      hi = h;
  }
  return found && lo == last_good;
}

}  // namespace

void get_assignments(Engine& e, Snapshot& s, WorkloadInfo& w, Assignment& out,
                     std::vector<Target>& targets) {
  if (w.last_assignment && last_assignment_outdated(e, w)) w.last_assignment.reset();
  targets.clear();
  out = assign_flavors(e, s, w, {});
  const FlavorMode m = out.mode();
  if (m == FlavorMode::Fit) return;
  if (m == FlavorMode::Preempt) {
    targets = targets_for(e, s, w, out);
    if (!targets.empty()) return;
  }
  if (e.gate("PartialAdmission") && can_be_partially_admitted(w)) {
    Assignment partial;
    std::vector<Target> partial_targets;
    if (partial_admission(e, s, w, partial, partial_targets)) {
      out = std::move(partial);
      targets = std::move(partial_targets);
      return;
    }
  }
}

void order_classical(const Engine& e, std::vector<Entry*>& entries) {
  auto key = [&](const Entry* x) {
    const WorkloadInfo& w = e.workloads[static_cast<size_t>(x->workload)];
    const std::int64_t prio = e.gate("PrioritySortingWithinCohort") ? -w.priority() : 0;
    // IsPreemptor is set only under PrioritizePreemptorWorkloads: preemptors first.
    return std::tuple(!x->preemptor, x->assignment.borrowing, prio, w.queue_order_ms(e.ordering()),
                      w.uid);
  };
  std::sort(entries.begin(), entries.end(),
            [&](const Entry* a, const Entry* b) { return key(a) < key(b); });
}

}  // namespace kmc::engine
