// Cross-object references inside one cluster (see scenario.hpp).
//
// Objects remember only where they start, so diagnostics name the referring
// object's first line and the dotted field that holds the missing name.
#include <fmt/format.h>

#include <algorithm>

#include "model/scenario.hpp"

namespace kmc::model {
namespace {

[[noreturn]] void missing(const ObjectMeta& at, std::string field, std::string message) {
  throw InputError(at.pos, std::move(field), std::move(message));
}

void check_cluster_queue(const ClusterManifests& c, const ClusterQueue& cq) {
  for (std::size_t g = 0; g < cq.resource_groups.size(); ++g) {
    const auto& flavors = cq.resource_groups[g].flavors;
    for (std::size_t f = 0; f < flavors.size(); ++f)
      if (!c.find_flavor(flavors[f].name))
        missing(cq.meta, fmt::format("spec.resourceGroups[{}].flavors[{}].name", g, f),
                fmt::format("ResourceFlavor '{}' not found", flavors[f].name));
  }
  for (std::size_t i = 0; i < cq.admission_checks.size(); ++i)
    if (!c.find_admission_check(cq.admission_checks[i].name))
      missing(cq.meta, fmt::format("spec.admissionChecksStrategy.admissionChecks[{}].name", i),
              fmt::format("AdmissionCheck '{}' not found", cq.admission_checks[i].name));
}

void check_admission_check(const ClusterManifests& c, const AdmissionCheck& ac) {
  const auto& p = ac.parameters;
  if (ac.controller_name == kProvisioningController) {
    if (p.name.empty())
      missing(ac.meta, "spec.parameters",
              "a ProvisioningRequest check needs parameters naming a ProvisioningRequestConfig");
    if (p.kind != "ProvisioningRequestConfig")
      missing(ac.meta, "spec.parameters.kind",
              fmt::format("expected ProvisioningRequestConfig, got '{}'", p.kind));
    if (!c.find_provisioning_config(p.name))
      missing(ac.meta, "spec.parameters.name",
              fmt::format("ProvisioningRequestConfig '{}' not found", p.name));
  }
  if (ac.controller_name == kMultiKueueController) {
    const bool found =
        std::any_of(c.multikueue_configs.begin(), c.multikueue_configs.end(),
                    [&](const MultiKueueConfig& m) { return m.meta.name == p.name; });
    if (p.kind != "MultiKueueConfig" || !found)
      missing(ac.meta, "spec.parameters.name",
              fmt::format("MultiKueueConfig '{}' not found", p.name));
  }
}

void check_multikueue_config(const ClusterManifests& c, const MultiKueueConfig& m,
                             Warnings& warnings) {
  for (std::size_t i = 0; i < m.clusters.size(); ++i) {
    const bool found =
        std::any_of(c.multikueue_clusters.begin(), c.multikueue_clusters.end(),
                    [&](const MultiKueueCluster& k) { return k.meta.name == m.clusters[i]; });
    // Kueue keeps such a config usable with the clusters that exist (SomeActiveClusters).
    if (!found)
      warnings.push_back(
          Diagnostic{m.meta.pos, fmt::format("spec.clusters[{}]", i),
                     fmt::format("MultiKueueCluster '{}' not found; Kueue treats it as inactive",
                                 m.clusters[i])});
  }
}

}  // namespace

void validate_cluster_references(const ClusterManifests& c, Warnings& warnings) {
  for (const auto& lq : c.local_queues)
    if (!c.find_cluster_queue(lq.cluster_queue))
      missing(lq.meta, "spec.clusterQueue",
              fmt::format("ClusterQueue '{}' not found", lq.cluster_queue));
  for (const auto& cq : c.cluster_queues) check_cluster_queue(c, cq);
  for (const auto& ac : c.admission_checks) check_admission_check(c, ac);
  for (const auto& m : c.multikueue_configs) check_multikueue_config(c, m, warnings);
  for (const auto& wl : c.workloads) {
    const std::string field = wl.source_kind != "Workload"
                                  ? "metadata.labels[\"kueue.x-k8s.io/queue-name\"]"
                                  : "spec.queueName";
    if (wl.queue_name.empty()) {
      warnings.push_back(
          Diagnostic{wl.meta.pos, field, "no queue name; Kueue never admits this Workload"});
      continue;
    }
    if (!c.find_local_queue(wl.meta.namespace_, wl.queue_name))
      missing(wl.meta, field,
              fmt::format("LocalQueue '{}' not found in namespace '{}'", wl.queue_name,
                          wl.meta.namespace_));
  }
}

}  // namespace kmc::model
