// Kueue's feature gates as kueue-admission reads them. The model follows
// Kueue with every gate at its default except the gates it reads; a gate set
// away from its default that the model does not read is a warning, since
// Kueue's admission may then differ from what kmc checks (`--strict` refuses
// it), rather than an answer for another Kueue.
#include <algorithm>
#include <array>
#include <string_view>

#include "protocols/kueue_admission/compile_parts.hpp"

namespace kmc::protocols::ka {

namespace {

// The gates the model reads (compile_options), and those that change only
// condition reasons; the manifest loader's are unread_gates' own.
constexpr std::array<std::string_view, 7> kRead = {
    "FairSharingPreemptWithinNominal",
    "FastQuotaReleaseInPodIntegration",
    "PrioritizePreemptorWorkloads",
    "PrioritySortingWithinCohort",
    "RecomputeAssignmentUponPreemptionTargetsOverlap",
    "SchedulingEquivalenceHashing",
    "UnadmittedWorkloadsObservability"};

bool read_or_elsewhere(const std::string& gate) {
  // MultiKueue's gates act on the manager's dispatch, which protocol multikueue checks.
  return gate.rfind("MultiKueue", 0) == 0 ||
         std::find(kRead.begin(), kRead.end(), std::string_view(gate)) != kRead.end();
}

}  // namespace

void compile_gates(const model::KueueConfiguration& config, AdmissionParams& p) {
  for (auto& d : model::unread_gates(config, "kueue-admission", read_or_elsewhere))
    p.warnings.push_back(std::move(d));
}

}  // namespace kmc::protocols::ka
