// ClusterQueue, v1beta1 and v1beta2 spellings onto one value.
//
// v1beta1 names the cohort `cohort` and lists admission checks as a plain
// `admissionChecks: [names]`; v1beta2 has `cohortName` and only
// `admissionChecksStrategy`. Each version rejects the other's spelling, as the
// API server would, with a hint.
#include <fmt/format.h>

#include "model/manifest_readers.hpp"

namespace kmc::model {
namespace {

Preemption read_preemption(const YamlNode& node, ReadContext& ctx) {
  check_keys(node, {.modeled = {"withinClusterQueue", "reclaimWithinCohort", "borrowWithinCohort"}},
             ctx.warnings);
  Preemption p;
  if (node["withinClusterQueue"].present())
    p.within_cluster_queue = node["withinClusterQueue"].one_of<WithinClusterQueuePolicy>(
        {{"Never", WithinClusterQueuePolicy::Never},
         {"LowerPriority", WithinClusterQueuePolicy::LowerPriority},
         {"LowerOrNewerEqualPriority", WithinClusterQueuePolicy::LowerOrNewerEqualPriority}});
  if (node["reclaimWithinCohort"].present())
    p.reclaim_within_cohort = node["reclaimWithinCohort"].one_of<ReclaimWithinCohortPolicy>(
        {{"Never", ReclaimWithinCohortPolicy::Never},
         {"LowerPriority", ReclaimWithinCohortPolicy::LowerPriority},
         {"Any", ReclaimWithinCohortPolicy::Any}});
  const YamlNode borrow = node["borrowWithinCohort"];
  check_keys(borrow, {.modeled = {"policy", "maxPriorityThreshold"}}, ctx.warnings);
  if (borrow["policy"].present())
    p.borrow_within_cohort = borrow["policy"].one_of<BorrowWithinCohortPolicy>(
        {{"Never", BorrowWithinCohortPolicy::Never},
         {"LowerPriority", BorrowWithinCohortPolicy::LowerPriority}});
  if (borrow["maxPriorityThreshold"].present())
    p.max_priority_threshold = borrow["maxPriorityThreshold"].int32();
  if (p.reclaim_within_cohort == ReclaimWithinCohortPolicy::Never &&
      p.borrow_within_cohort != BorrowWithinCohortPolicy::Never)
    borrow["policy"].fail(
        "borrowWithinCohort needs reclaimWithinCohort other than Never (Kueue's CEL rule)");
  return p;
}

// v1beta1 spelled "stop the search" as Borrow / Preempt; both map onto MayStopSearch.
FlavorFungibility read_fungibility(const YamlNode& node, ReadContext& ctx) {
  check_keys(node, {.modeled = {"whenCanBorrow", "whenCanPreempt", "preference"}}, ctx.warnings);
  FlavorFungibility f;
  if (node["whenCanBorrow"].present())
    f.when_can_borrow = node["whenCanBorrow"].one_of<WhenCanBorrow>(
        {{"MayStopSearch", WhenCanBorrow::MayStopSearch},
         {"TryNextFlavor", WhenCanBorrow::TryNextFlavor},
         {"Borrow", WhenCanBorrow::MayStopSearch}});
  if (node["whenCanPreempt"].present())
    f.when_can_preempt = node["whenCanPreempt"].one_of<WhenCanPreempt>(
        {{"TryNextFlavor", WhenCanPreempt::TryNextFlavor},
         {"MayStopSearch", WhenCanPreempt::MayStopSearch},
         {"Preempt", WhenCanPreempt::MayStopSearch}});
  if (node["preference"].present()) {
    f.preference = node["preference"].one_of<FungibilityPreference>(
        {{"BorrowingOverPreemption", FungibilityPreference::BorrowingOverPreemption},
         {"PreemptionOverBorrowing", FungibilityPreference::PreemptionOverBorrowing}});
    // The CRD's CEL rule, on the defaulted values (whenCanBorrow defaults to MayStopSearch): the
    // API server refuses the ClusterQueue otherwise.
    if (f.when_can_borrow != WhenCanBorrow::TryNextFlavor ||
        f.when_can_preempt != WhenCanPreempt::TryNextFlavor)
      node["preference"].fail(
          "preference can only be set when both whenCanBorrow and whenCanPreempt are "
          "TryNextFlavor (whenCanBorrow defaults to MayStopSearch)");
  }
  return f;
}

std::vector<AdmissionCheckRule> read_check_strategy(const YamlNode& node, ReadContext& ctx) {
  check_keys(node, {.modeled = {"admissionChecks"}}, ctx.warnings);
  std::vector<AdmissionCheckRule> rules;
  for (const auto& item : node["admissionChecks"].items()) {
    check_keys(item, {.modeled = {"name", "onFlavors"}}, ctx.warnings);
    rules.push_back({require(item, "name").str(), item["onFlavors"].string_list()});
  }
  return rules;
}

Quantity read_fair_sharing_weight(const YamlNode& node, ReadContext& ctx) {
  check_keys(node, {.modeled = {"weight"}}, ctx.warnings);
  return node["weight"].present() ? node["weight"].quantity() : Quantity::from_units(1);
}

}  // namespace

ClusterQueue read_cluster_queue(const YamlNode& object, ReadContext& ctx) {
  ClusterQueue cq;
  cq.meta = read_meta(object, ctx, false);
  const YamlNode spec = object["spec"];
  const char* cohort_key = ctx.v1beta1() ? "cohort" : "cohortName";
  KeyPolicy keys{.modeled = {cohort_key, "resourceGroups", "queueingStrategy", "namespaceSelector",
                             "preemption", "flavorFungibility", "admissionChecksStrategy",
                             "stopPolicy", "fairSharing"},
                 .unmodeled = {{"admissionScope",
                                "admission order may differ because admission fair sharing "
                                "orders workloads by their LocalQueue's usage, not FIFO"},
                               {"concurrentAdmissionPolicy",
                                "admission may differ because concurrent admission lets a "
                                "workload pursue several flavors at once and migrate to a "
                                "preferred one while it runs"}}};
  if (ctx.v1beta1()) keys.modeled.push_back("admissionChecks");
  check_keys(spec, keys, ctx.warnings);
  if (spec[cohort_key].present()) cq.cohort = spec[cohort_key].str();
  cq.resource_groups = read_resource_groups(spec["resourceGroups"], ctx);
  if (spec["queueingStrategy"].present())
    cq.queueing_strategy = spec["queueingStrategy"].one_of<QueueingStrategy>(
        {{"BestEffortFIFO", QueueingStrategy::BestEffortFIFO},
         {"StrictFIFO", QueueingStrategy::StrictFIFO}});
  cq.namespace_selector = read_selector(spec["namespaceSelector"], ctx);
  cq.preemption = read_preemption(spec["preemption"], ctx);
  cq.flavor_fungibility = read_fungibility(spec["flavorFungibility"], ctx);
  for (const auto& name : spec["admissionChecks"].string_list())
    cq.admission_checks.push_back({name, {}});
  const YamlNode strategy = spec["admissionChecksStrategy"];
  if (strategy.present() && !cq.admission_checks.empty())
    strategy.fail("admissionChecks and admissionChecksStrategy are mutually exclusive");
  for (auto& rule : read_check_strategy(strategy, ctx))
    cq.admission_checks.push_back(std::move(rule));
  cq.stop_policy = read_stop_policy(spec["stopPolicy"]);
  cq.fair_sharing_weight = read_fair_sharing_weight(spec["fairSharing"], ctx);
  // The webhook's validateLendingLimit (ClusterQueues only; a Cohort's may exceed it).
  for (const auto& g : cq.resource_groups)
    for (const auto& f : g.flavors)
      for (const auto& r : f.resources)
        if (r.lending_limit && *r.lending_limit > r.nominal_quota)
          spec["resourceGroups"].fail(fmt::format(
              "flavor '{}' resource '{}': lendingLimit {} must be less than or equal to the "
              "nominalQuota {}",
              f.name, r.name, r.lending_limit->to_string(), r.nominal_quota.to_string()));
  if (cq.cohort.empty()) {
    // Kueue's CEL rules: limits only make sense with someone to borrow from or lend to.
    for (const auto& g : cq.resource_groups)
      for (const auto& f : g.flavors)
        for (const auto& r : f.resources)
          if (r.borrowing_limit || r.lending_limit)
            spec["resourceGroups"].fail(fmt::format(
                "flavor '{}' resource '{}': borrowingLimit and lendingLimit need a cohort", f.name,
                r.name));
  }
  return cq;
}

Cohort read_cohort(const YamlNode& object, ReadContext& ctx) {
  Cohort cohort;
  cohort.meta = read_meta(object, ctx, false);
  const YamlNode spec = object["spec"];
  check_keys(spec, {.modeled = {"parentName", "resourceGroups", "fairSharing"}}, ctx.warnings);
  if (spec["parentName"].present()) cohort.parent = spec["parentName"].str();
  cohort.resource_groups = read_resource_groups(spec["resourceGroups"], ctx);
  cohort.fair_sharing_weight = read_fair_sharing_weight(spec["fairSharing"], ctx);
  return cohort;
}

}  // namespace kmc::model
