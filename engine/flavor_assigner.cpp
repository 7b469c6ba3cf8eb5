#include "engine/flavor_assigner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "engine/lookup.hpp"
#include "engine/preemption.hpp"

namespace kmc::engine {

namespace {

enum class Pm { NoFit = 0, NoCandidates = 1, Preempt = 2, Reclaim = 3, Fit = 4 };
struct Granular {
  Pm pm;
  int borrow;
  // Status.noFitReason of a NoFit (UnadmittedWorkloadsObservability): ExceedsMaxQuota or
  // WaitingForQuota.
  const char* no_fit = "";
};

// reasonSeverity: a NoFit's QuotaReserved reasons, the most severe last.
int severity(const std::string& reason) {
  if (reason == "NoMatchingFlavor") return 3;
  if (reason == "ExceedsMaxQuota") return 2;
  if (reason == "WaitingForQuota") return 1;
  return 0;
}

void most_severe(std::string& into, const std::string& reason) {
  if (severity(reason) > severity(into)) into = reason;
}

FlavorMode public_mode(Pm pm) {
  switch (pm) {
    case Pm::NoFit:
      return FlavorMode::NoFit;
    case Pm::Fit:
      return FlavorMode::Fit;
    default:
      return FlavorMode::Preempt;
  }
}

bool is_preferred(Granular a, Granular b, const model::FlavorFungibility& ff) {
  if (a.pm == Pm::NoFit) return false;
  if (b.pm == Pm::NoFit) return true;
  const bool a_nc = a.pm == Pm::NoCandidates, b_nc = b.pm == Pm::NoCandidates;
  if (a_nc != b_nc) return !a_nc;
  if (ff.preference == model::FungibilityPreference::PreemptionOverBorrowing) {
    if (a.borrow != b.borrow) return a.borrow < b.borrow;
    return a.pm > b.pm;
  }
  if (a.pm != b.pm) return a.pm > b.pm;
  return a.borrow < b.borrow;
}

bool should_try_next_flavor(Granular m, const model::FlavorFungibility& ff) {
  if (m.pm == Pm::NoFit || m.pm == Pm::NoCandidates) return true;
  if ((m.pm == Pm::Preempt || m.pm == Pm::Reclaim) &&
      ff.when_can_preempt == model::WhenCanPreempt::TryNextFlavor) {
    return true;
  }
  return m.borrow != 0 && ff.when_can_borrow == model::WhenCanBorrow::TryNextFlavor;
}

bool tolerates(const model::Toleration& t, const model::Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (t.op == "Exists") return t.key.empty() || t.key == taint.key;
  return t.key == taint.key && t.value == taint.value;
}

// checkFlavorForPodSets: taints and the nodeSelector restricted to the flavor's own label keys.
std::string flavor_mismatch(const model::ResourceFlavor* rf, const std::string& name,
                            const model::PodSet* ps) {
  if (rf == nullptr) return fmt::format("flavor {} not found", name);
  if (ps == nullptr) return {};
  for (const model::Taint& taint : rf->node_taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    bool ok = false;
    for (const auto* list : {&ps->tolerations, &rf->tolerations}) {
      for (const auto& t : *list) ok = ok || tolerates(t, taint);
    }
    if (!ok) {
      const std::string kv = taint.value.empty() ? taint.key : taint.key + "=" + taint.value;
      return fmt::format("untolerated taint {{{}:{}}} in flavor {}", kv, taint.effect, name);
    }
  }
  for (const auto& [k, v] : ps->node_selector) {
    auto it = rf->node_labels.find(k);
    if (it != rf->node_labels.end() && it->second != v)
      return fmt::format("flavor {} doesn't match node affinity", name);
  }
  return {};
}

struct Ctx {
  const Engine& engine;
  Snapshot& snapshot;
  const WorkloadInfo& wl;
  const ClusterQueueInfo& cq;
};

bool can_preempt_while_borrowing(const Ctx& c) {
  const auto& p = c.cq.spec.preemption;
  return p.borrow_within_cohort != model::BorrowWithinCohortPolicy::Never ||
         (c.engine.manifests.configuration.fair_sharing.enable &&
          p.reclaim_within_cohort != model::ReclaimWithinCohortPolicy::Never);
}

Granular fits_resource_quota(const Ctx& c, FrId fr, const std::string& flavor,
                             const std::string& res, Amount assumed, Amount request,
                             std::vector<std::string>& reasons) {
  const QuotaTree& t = c.snapshot.tree;
  if (fr < 0) {  // the CQ lists the flavor but not this (flavor, resource): nothing to use
    reasons.push_back(
        fmt::format("insufficient quota for {} in flavor {}, previously considered podsets "
                    "requests ({}) + current podset request ({}) > maximum capacity ({})",
                    res, flavor, format_amount(res, assumed), format_amount(res, request), 0));
    return {Pm::NoFit, 0, "ExceedsMaxQuota"};
  }
  const Amount available = t.available(c.cq.node, fr);
  const Amount max_capacity = t.potential_available(c.cq.node, fr);
  const Amount val = amount_add(assumed, request);
  if (val > max_capacity) {
    reasons.push_back(
        fmt::format("insufficient quota for {} in flavor {}, previously considered podsets "
                    "requests ({}) + current podset request ({}) > maximum capacity ({})",
                    res, flavor, format_amount(res, assumed), format_amount(res, request),
                    format_amount(res, max_capacity)));
    return {Pm::NoFit, 0, "ExceedsMaxQuota"};
  }
  const auto [borrow, may_reclaim] = t.lowest_subtree_that_fits(c.cq.node, fr, val);
  if (val <= available) return {Pm::Fit, borrow};
  reasons.push_back(fmt::format("insufficient unused quota for {} in flavor {}, {} more needed",
                                res, flavor, format_amount(res, amount_sub(val, available))));
  if (t.nominal(c.cq.node, fr) >= val || may_reclaim || can_preempt_while_borrowing(c)) {
    const auto [poss, borrow_after] =
        simulate_preemption(c.engine, c.snapshot, c.wl, c.wl.cluster_queue, fr, val);
    switch (poss) {
      case PreemptionPossibility::NoCandidates:
        return {Pm::NoCandidates, borrow_after};
      case PreemptionPossibility::Preempt:
        return {Pm::Preempt, borrow_after};
      case PreemptionPossibility::Reclaim:
        return {Pm::Reclaim, borrow_after};
    }
  }
  return {Pm::NoFit, borrow, "WaitingForQuota"};
}

bool skipped_by_nomination(const WorkloadInfo& wl, size_t ps_idx, const std::string& res,
                           const std::string& f) {
  if (wl.nomination_mapping.empty()) return false;
  if (ps_idx >= wl.nomination_mapping.size()) return true;
  auto it = wl.nomination_mapping[ps_idx].find(res);
  return it == wl.nomination_mapping[ps_idx].end() || it->second != f;
}

struct FlavorSearch {
  std::map<std::string, FlavorChoice> chosen;
  std::vector<std::string> reasons;
  bool attempted = false;  // some flavor was graded (FlavorAssignmentAttempts)
  // resolveNoFitReason within the group: the least severe reason of its NoFit flavors (they
  // are alternatives); empty when none was NoFit.
  std::string no_fit_reason;
};

// findFlavorForPodSets for one resource group.
FlavorSearch find_flavor_for_pod_sets(const Ctx& c, size_t ps_idx, const ResourceGroupInfo& rg,
                                      const std::map<std::string, Amount>& requests,
                                      const std::string& res_name,
                                      const FrUsage& assignment_usage) {
  std::map<std::string, Amount> reqs;
  for (const auto& [r, v] : requests) {
    if (std::find(rg.covered.begin(), rg.covered.end(), r) != rg.covered.end()) reqs[r] = v;
  }
  const model::PodSet* ps =
      ps_idx < c.wl.obj.pod_sets.size() ? &c.wl.obj.pod_sets[ps_idx] : nullptr;
  const model::FlavorFungibility& ff = c.cq.spec.flavor_fungibility;
  FlavorSearch out;
  Granular best_mode{Pm::NoFit, INT_MAX};
  int attempted = -1;
  int idx = c.wl.last_assignment ? c.wl.last_assignment->next_flavor_to_try(ps_idx, res_name) : 0;
  for (; idx < static_cast<int>(rg.flavors.size()); ++idx) {
    attempted = idx;
    const std::string& f = rg.flavors[static_cast<size_t>(idx)];
    if (skipped_by_nomination(c.wl, ps_idx, res_name, f)) {
      out.reasons.push_back(fmt::format(
          "skipping flavor {} as it is not found in the nomination mapping for resource {}", f,
          res_name));
      continue;
    }
    // A NoFit flavor's reason, kept the least severe of the group's alternatives.
    auto no_fit = [&](const std::string& reason) {
      out.attempted = true;
      if (out.no_fit_reason.empty() || severity(reason) < severity(out.no_fit_reason))
        out.no_fit_reason = reason;
    };
    if (std::string why = flavor_mismatch(find_flavor(c.engine.manifests, f), f, ps);
        !why.empty()) {
      out.reasons.push_back(why);
      no_fit("NoMatchingFlavor");
      continue;
    }
    Granular mode{Pm::Fit, 0};
    std::string flavor_reason;  // the most severe of its resources'
    std::map<std::string, FlavorChoice> assignments;
    for (const auto& [r, val] : reqs) {
      const FrId fr = c.engine.frs.find(f, r);
      const Amount assumed = fr >= 0 && assignment_usage.contains(fr) ? assignment_usage.at(fr) : 0;
      const Granular m = fits_resource_quota(c, fr, f, r, assumed, val, out.reasons);
      most_severe(flavor_reason, m.no_fit);
      if (is_preferred(mode, m, ff)) mode = m;
      if (mode.pm == Pm::NoFit)
        continue;  // Go's ForEach `return`: later resources still add reasons
      assignments[r] = FlavorChoice{f, public_mode(m.pm), m.borrow, -1};
    }
    out.attempted = true;
    if (mode.pm == Pm::NoFit) no_fit(flavor_reason);
    if (!should_try_next_flavor(mode, ff)) {
      out.chosen = std::move(assignments);
      best_mode = mode;
      break;
    }
    if (is_preferred(mode, best_mode, ff)) {
      out.chosen = std::move(assignments);
      best_mode = mode;
    }
  }
  const int last = static_cast<int>(rg.flavors.size()) - 1;
  for (auto& [r, choice] : out.chosen) choice.tried_idx = attempted == last ? -1 : attempted;
  if (best_mode.pm == Pm::Fit) out.reasons.clear();
  return out;
}

std::map<std::string, Amount> pod_set_requests(const ClusterQueueInfo& cq, const PodSetRequest& ps,
                                               std::int32_t count) {
  std::map<std::string, Amount> out;
  for (const auto& [r, v] : ps.per_pod) out[r] = v == kUnlimited ? kUnlimited : v * count;
  if (cq.covers("pods")) out["pods"] = count;
  return out;
}

}  // namespace

const char* to_string(FlavorMode m) {
  switch (m) {
    case FlavorMode::NoFit:
      return "NoFit";
    case FlavorMode::Preempt:
      return "Preempt";
    case FlavorMode::DeferredFit:
      return "DeferredFit";
    case FlavorMode::Fit:
      return "Fit";
  }
  return "?";
}

FlavorMode PodSetPlan::mode() const {
  if (reasons.empty()) return FlavorMode::Fit;
  if (flavors.empty()) return FlavorMode::NoFit;
  FlavorMode m = FlavorMode::Fit;
  for (const auto& [r, f] : flavors) m = std::min(m, f.mode);
  return m;
}

FlavorMode Assignment::mode() const {
  if (forced_mode) return *forced_mode;
  if (pod_sets.empty()) return FlavorMode::NoFit;
  FlavorMode m = FlavorMode::Fit;
  for (const auto& ps : pod_sets) m = std::min(m, ps.mode());
  return m;
}

std::string Assignment::no_fit_reason() const {
  std::string out;
  for (const auto& ps : pod_sets)
    if (ps.mode() == FlavorMode::NoFit) most_severe(out, ps.no_fit_reason);
  return out;
}

std::string Assignment::message() const {
  std::string out;
  for (const auto& ps : pod_sets) {
    if (ps.reasons.empty()) continue;
    std::vector<std::string> sorted = ps.reasons;
    std::sort(sorted.begin(), sorted.end());
    if (!out.empty()) out += "; ";
    out += "couldn't assign flavors to pod set " + ps.name + ": ";
    for (size_t i = 0; i < sorted.size(); ++i) out += (i ? ", " : "") + sorted[i];
  }
  return out;
}

std::vector<FrId> Assignment::frs_need_preemption(const FrTable& frs) const {
  std::vector<FrId> out;
  for (const auto& ps : pod_sets) {
    for (const auto& [r, f] : ps.flavors) {
      const FrId fr = frs.find(f.flavor, r);
      if (f.mode == FlavorMode::Preempt && fr >= 0 &&
          std::find(out.begin(), out.end(), fr) == out.end())
        out.push_back(fr);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Assignment assign_flavors(const Engine& engine, Snapshot& snapshot, const WorkloadInfo& wl,
                          const std::vector<std::int32_t>& counts) {
  const ClusterQueueInfo& cq = engine.cluster_queues[static_cast<size_t>(wl.cluster_queue)];
  const Ctx c{engine, snapshot, wl, cq};
  Assignment a;
  a.last.cluster_queue_generation = cq.allocatable_generation;
  a.last.scheduling_cycle = engine.scheduling_cycle;
  for (size_t i = 0; i < wl.pod_sets.size(); ++i) {
    PodSetPlan plan;
    plan.name = wl.pod_sets[i].name;
    plan.count = counts.empty() ? wl.pod_sets[i].count : counts[i];
    plan.requests = pod_set_requests(cq, wl.pod_sets[i], plan.count);
    if (wl.readopted_from >= 0) {
      // Pinned by its pods' node selector (with TAS, the node itself) to a
      // node whose kubelet is gone: unschedulable, whatever the quota.
      plan.reasons = {"its pods are pinned to a node whose kubelet is gone"};
      a.last.last_tried_flavor_idx.emplace_back();
      a.pod_sets.push_back(std::move(plan));
      return a;
    }
    bool failed = false, attempted = false;
    std::string reason;  // across the groups searched, the most severe (co-requisites)
    for (const auto& [res, qty] : plan.requests) {
      auto g = cq.group_of.find(res);
      if (g == cq.group_of.end()) {
        if (qty == 0) continue;
        plan.reasons = {fmt::format("resource {} unavailable in ClusterQueue", res)};
        plan.flavors.clear();
        failed = true;
        break;
      }
      if (plan.flavors.contains(res)) continue;
      FlavorSearch s = find_flavor_for_pod_sets(c, i, cq.groups[static_cast<size_t>(g->second)],
                                                plan.requests, res, a.usage);
      attempted = attempted || s.attempted;
      most_severe(reason, s.no_fit_reason);
      if (s.chosen.empty()) {
        plan.reasons = std::move(s.reasons);
        plan.flavors.clear();
        failed = true;
        break;
      }
      plan.flavors.insert(s.chosen.begin(), s.chosen.end());
      plan.reasons.insert(plan.reasons.end(), s.reasons.begin(), s.reasons.end());
    }
    std::map<std::string, int> tried;
    for (const auto& [r, f] : plan.flavors) {
      a.borrowing = std::max(a.borrowing, f.borrow);
      const FrId fr = engine.frs.find(f.flavor, r);
      if (fr >= 0) a.usage[fr] = amount_add(a.usage[fr], plan.requests[r]);
      tried[r] = f.tried_idx;
    }
    if (failed) plan.no_fit_reason = attempted ? reason : "NoMatchingFlavor";
    a.last.last_tried_flavor_idx.push_back(std::move(tried));
    a.pod_sets.push_back(std::move(plan));
    if (failed) return a;
  }
  return a;
}

}  // namespace kmc::engine
