// Kueue's feature gates as kueue-admission reads them. The model follows
// Kueue with every gate at its default except the gates it reads; a gate set
// away from its default that the model does not read is a warning, since
// Kueue's admission may then differ from what kmc checks (`--strict` refuses
// it), rather than an answer for another Kueue.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "protocols/kueue_admission/compile_parts.hpp"

namespace kmc::protocols::ka {

namespace {

// The gates the model reads (compile_options; the Configuration reader for
// DisableWaitForPodsReady; the manifest loader for PriorityBoost, which it
// folds into each workload's priority, and WorkloadPriorityClassDefaulting),
// and those that change only condition reasons.
constexpr std::array<std::string_view, 10> kRead = {
    "DisableWaitForPodsReady",
    "FairSharingPreemptWithinNominal",
    "FastQuotaReleaseInPodIntegration",
    "PriorityBoost",
    "PrioritizePreemptorWorkloads",
    "PrioritySortingWithinCohort",
    "RecomputeAssignmentUponPreemptionTargetsOverlap",
    "SchedulingEquivalenceHashing",
    "UnadmittedWorkloadsObservability",
    "WorkloadPriorityClassDefaulting"};

bool read_or_elsewhere(const std::string& gate) {
  // MultiKueue's gates act on the manager's dispatch, which protocol multikueue checks.
  return gate.rfind("MultiKueue", 0) == 0 ||
         std::find(kRead.begin(), kRead.end(), std::string_view(gate)) != kRead.end();
}

}  // namespace

void compile_gates(const model::KueueConfiguration& config, AdmissionParams& p) {
  const model::FeatureGates defaults;
  for (const auto& [gate, on] : config.feature_gates.gates) {
    if (read_or_elsewhere(gate) || on == defaults.enabled(gate)) continue;
    p.warnings.push_back(model::ignored_input(
        config.pos, "featureGates." + gate, "featureGates." + gate,
        fmt::format("kueue-admission models Kueue with {} at its default ({}); with it {} "
                    "Kueue's admission may differ from what kmc checks",
                    gate, on ? "off" : "on", on ? "on" : "off")));
  }
}

}  // namespace kmc::protocols::ka
