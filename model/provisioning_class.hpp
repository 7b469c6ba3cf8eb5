// What the Cluster Autoscaler does with a ProvisioningRequest's parameters,
// where Kueue copies them from the ProvisioningRequestConfig.
#pragma once

#include "model/kueue_objects.hpp"

namespace kmc::model {

// The check-capacity class fails a request it finds no room for only with
// parameters.noRetry "true". Otherwise ("false", absent, or another value,
// which it logs and ignores) the request is Provisioned=False and tried again
// in later loops, so Kueue's check stays Pending and the workload keeps its
// quota (cluster-autoscaler/provisioningrequest/checkcapacity/provisioningclass.go).
inline bool check_capacity_no_retry(const ProvisioningRequestConfig& config) {
  const auto it = config.parameters.find("noRetry");
  return it != config.parameters.end() && it->second == "true";
}

}  // namespace kmc::model
