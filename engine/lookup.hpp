// Name lookups in a cluster's manifests. The model declares the same helpers;
// the engine keeps its own so it links and reads on its own.
#pragma once

#include <string>

#include "model/kueue_objects.hpp"

namespace kmc::engine {

const model::ResourceFlavor* find_flavor(const model::ClusterManifests& m, const std::string& name);
const model::LocalQueue* find_local_queue(const model::ClusterManifests& m, const std::string& ns,
                                          const std::string& name);
const model::AdmissionCheck* find_admission_check(const model::ClusterManifests& m,
                                                  const std::string& name);
const model::ProvisioningRequestConfig* find_provisioning_config(const model::ClusterManifests& m,
                                                                 const std::string& name);
const model::Namespace* find_namespace(const model::ClusterManifests& m, const std::string& name);
const model::Cohort* find_cohort(const model::ClusterManifests& m, const std::string& name);

}  // namespace kmc::engine
