#include "engine/lookup.hpp"

namespace kmc::engine {

namespace {
template <class T>
const T* by_name(const std::vector<T>& v, const std::string& name) {
  for (const auto& x : v) {
    if (x.meta.name == name) return &x;
  }
  return nullptr;
}
}  // namespace

const model::ResourceFlavor* find_flavor(const model::ClusterManifests& m,
                                         const std::string& name) {
  return by_name(m.resource_flavors, name);
}

const model::LocalQueue* find_local_queue(const model::ClusterManifests& m, const std::string& ns,
                                          const std::string& name) {
  for (const auto& lq : m.local_queues) {
    if (lq.meta.name == name && lq.meta.namespace_ == ns) return &lq;
  }
  return nullptr;
}

const model::Cohort* find_cohort(const model::ClusterManifests& m, const std::string& name) {
  return by_name(m.cohorts, name);
}

const model::AdmissionCheck* find_admission_check(const model::ClusterManifests& m,
                                                  const std::string& name) {
  return by_name(m.admission_checks, name);
}

const model::ProvisioningRequestConfig* find_provisioning_config(const model::ClusterManifests& m,
                                                                 const std::string& name) {
  return by_name(m.provisioning_request_configs, name);
}

const model::Namespace* find_namespace(const model::ClusterManifests& m, const std::string& name) {
  return by_name(m.namespaces, name);
}

}  // namespace kmc::engine
