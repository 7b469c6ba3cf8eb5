// Look-ups over one cluster's objects, and Kueue's feature-gate defaults.
#include "model/kueue_objects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string_view>

#include "model/dump_clock.hpp"

namespace kmc::model {
namespace {

template <class T>
const T* find_by_name(const std::vector<T>& objects, const std::string& name) {
  auto it =
      std::find_if(objects.begin(), objects.end(), [&](const T& o) { return o.meta.name == name; });
  return it == objects.end() ? nullptr : &*it;
}

// Defaults at the reference commit (kueue-semantics.md §0; pkg/features/kube_features.go),
// plus the two MultiKueue gates the protocols consult. A gate missing here is one
// kmc has no default for: enabled() treats it as off unless set explicitly.
struct GateDefault {
  std::string_view name;
  bool enabled;
};
constexpr GateDefault kGateDefaults[] = {
    {"PartialAdmission", true},
    {"FlavorFungibility", true},
    {"FlavorFungibilityPreserveScanProgress", true},
    {"PrioritySortingWithinCohort", true},
    {"RecomputeAssignmentUponPreemptionTargetsOverlap", true},
    {"PrioritizePreemptorWorkloads", false},
    {"UnadmittedWorkloadsObservability", true},  // granular QuotaReserved reasons (beta, 0.19)
    {"FairSharingPreemptWithinNominal", true},
    {"FairSharingPrioritizeNonBorrowing", true},
    {"SchedulingEquivalenceHashing", true},
    {"ReclaimablePods", true},
    {"FastQuotaReleaseInPodIntegration", false},
    {"MultiKueue", true},
    {"MultiKueueManagerQuotaAutomation", false},
    {"MultiKueueOrchestratedPreemption", false},
    {"MultiKueueIncrementalDispatcherConfig", true},
    {"MultiKueueIncrementalDispatcherRespectConfigOrder", true},
    {"CleanupProvisioningRequestsOnEviction", true},
    {"AdmissionGatedBy", true},
    {"TopologyAwareScheduling", true},
    {"ConcurrentAdmission", false},
    {"DisableWaitForPodsReady", false},
    // GA since v0.18: the manager waits for a worker's Admitted before it
    // removes the other remote workloads.
    {"MultiKueueWaitForWorkloadAdmitted", true},
    // A workload evicted on a worker goes back through admission on the manager.
    {"MultiKueueRedoAdmissionOnEvictionInWorker", true},
    // GA since v0.17 (beta, on, since v0.15): the manager's batch/v1 Job is managedBy MultiKueue,
    // which mirrors the remote Job's status into it.
    {"MultiKueueBatchJobWithManagedBy", true},
    {"PriorityBoost", false},
    // Beta since v0.19: resources.quotaCheckStrategy is read.
    {"QuotaCheckStrategy", true},
    // Beta since v0.20: a job naming no WorkloadPriorityClass gets the one named "default".
    {"WorkloadPriorityClassDefaulting", true},
    // Beta since v0.18: a pod group may be named by annotation as well as by label.
    {"WorkloadIdentifierAnnotations", true},
};

}  // namespace

const ClusterQueue* ClusterManifests::find_cluster_queue(const std::string& name) const {
  return find_by_name(cluster_queues, name);
}

const LocalQueue* ClusterManifests::find_local_queue(const std::string& ns,
                                                     const std::string& name) const {
  auto it = std::find_if(local_queues.begin(), local_queues.end(), [&](const LocalQueue& q) {
    return q.meta.namespace_ == ns && q.meta.name == name;
  });
  return it == local_queues.end() ? nullptr : &*it;
}

const AdmissionCheck* ClusterManifests::find_admission_check(const std::string& name) const {
  return find_by_name(admission_checks, name);
}

const ProvisioningRequestConfig* ClusterManifests::find_provisioning_config(
    const std::string& name) const {
  return find_by_name(provisioning_request_configs, name);
}

const ResourceFlavor* ClusterManifests::find_flavor(const std::string& name) const {
  return find_by_name(resource_flavors, name);
}

std::vector<Diagnostic> unread_gates(const KueueConfiguration& config, const std::string& reader,
                                     bool (*reads)(const std::string& gate)) {
  // The loader's own: the Configuration reader's DisableWaitForPodsReady, the
  // priorities' PriorityBoost and WorkloadPriorityClassDefaulting, and the
  // resources' QuotaCheckStrategy.
  constexpr std::string_view kLoader[] = {"DisableWaitForPodsReady", "PriorityBoost",
                                          "QuotaCheckStrategy", "WorkloadPriorityClassDefaulting"};
  const FeatureGates defaults;
  std::vector<Diagnostic> out;
  for (const auto& [gate, on] : config.feature_gates.gates) {
    if (on == defaults.enabled(gate) || reads(gate) ||
        std::find(std::begin(kLoader), std::end(kLoader), std::string_view(gate)) !=
            std::end(kLoader))
      continue;
    out.push_back(ignored_input(
        config.pos, "featureGates." + gate, "featureGates." + gate,
        fmt::format("{} models Kueue with {} at its default ({}); with it {} Kueue's admission "
                    "may differ from what kmc computes",
                    reader, gate, on ? "off" : "on", on ? "on" : "off")));
  }
  return out;
}

bool FeatureGates::enabled(const std::string& name) const {
  if (auto it = gates.find(name); it != gates.end()) return it->second;
  for (const auto& gate : kGateDefaults)
    if (gate.name == name) return gate.enabled;
  return false;
}

}  // namespace kmc::model

namespace kmc::model {

std::int64_t newest_time_s(const Workload& w) {
  std::int64_t t = w.meta.creation_order;
  for (const auto& c : w.conditions) t = std::max(t, c.last_transition_s);
  return t;
}

}  // namespace kmc::model
