// A scenario: a folder with manager/, workers/<cluster>/ and kmc.yaml.
#pragma once

#include <string>
#include <vector>

#include "model/fleet.hpp"
#include "model/kueue_objects.hpp"

namespace kmc::model {

struct Scenario {
  std::string dir;
  ClusterManifests manager;
  std::vector<ClusterManifests> workers;  // in kmc.yaml's worker order
  Fleet fleet;
  Warnings warnings;  // every loader warning, manager's and workers' included
};

// Loads and validates a scenario folder. Throws InputError naming file, line
// and field for anything wrong or unknown; fields Kueue accepts but kmc does
// not model become warnings.
Scenario load_scenario(const std::string& dir);

// Loads one cluster's manifests: files (.yaml/.yml, multi-document, kind: List)
// or folders of them, in path order.
ClusterManifests load_cluster_manifests(const std::vector<std::string>& paths);

// Names that must exist inside one cluster: LocalQueue -> ClusterQueue,
// ClusterQueue -> ResourceFlavors and AdmissionChecks, AdmissionCheck ->
// its parameters object, Workload -> LocalQueue. Kueue itself tolerates these
// (the queue is just inactive), but in a scenario they are always mistakes.
// Throws InputError at the referring object; adds warnings for softer gaps.
void validate_cluster_references(const ClusterManifests& cluster, Warnings& warnings);

}  // namespace kmc::model
