// The controller ownerReference of an object, and whether Kueue's
// integrations know its kind: a built-in integration's job, a Pod included
// (matched at the apiVersion Kueue registers it at, ownerReferenceMatchingGVK).
// Whether Kueue walks through it (IntegrationManager.isKnownOwner: those, an
// external framework's, a ReplicaSet) is the owner chain's to say.
#include "model/manifest_readers.hpp"

namespace kmc::model {
namespace {

// The job kinds of Kueue's built-in integrations (pkg/controller/jobs), each
// with the apiVersion Kueue registers it at (its gvk), and its name in
// integrations.frameworks.
struct IntegrationKind {
  const char* api_version;
  const char* kind;
  const char* framework;
};
constexpr IntegrationKind kIntegrationKinds[] = {
    {"v1", "Pod", "pod"},
    {"batch/v1", "Job", "batch/job"},
    {"jobset.x-k8s.io/v1alpha2", "JobSet", "jobset.x-k8s.io/jobset"},
    {"ray.io/v1", "RayJob", "ray.io/rayjob"},
    {"ray.io/v1", "RayCluster", "ray.io/raycluster"},
    {"ray.io/v1", "RayService", "ray.io/rayservice"},
    {"kubeflow.org/v2beta1", "MPIJob", "kubeflow.org/mpijob"},
    {"kubeflow.org/v1", "PyTorchJob", "kubeflow.org/pytorchjob"},
    {"kubeflow.org/v1", "TFJob", "kubeflow.org/tfjob"},
    {"kubeflow.org/v1", "XGBoostJob", "kubeflow.org/xgboostjob"},
    {"kubeflow.org/v1", "PaddleJob", "kubeflow.org/paddlejob"},
    {"kubeflow.org/v1", "JAXJob", "kubeflow.org/jaxjob"},
    {"trainer.kubeflow.org/v1alpha1", "TrainJob", "trainer.kubeflow.org/trainjob"},
    {"workload.codeflare.dev/v1beta2", "AppWrapper", "workload.codeflare.dev/appwrapper"},
    {"sparkoperator.k8s.io/v1beta2", "SparkApplication", "sparkoperator.k8s.io/sparkapplication"},
    {"apps/v1", "Deployment", "deployment"},
    {"apps/v1", "StatefulSet", "statefulset"},
    {"leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "leaderworkerset.x-k8s.io/leaderworkerset"}};

}  // namespace

std::optional<JobOwner> job_owner(const YamlNode& object) {
  for (const auto& owner : object["metadata"]["ownerReferences"].items()) {
    // metav1.GetControllerOf: only the controller reference is followed.
    if (!owner["controller"].present() || !owner["controller"].boolean()) continue;
    const auto field = [&](const char* name) {
      return owner[name].present() ? owner[name].str() : std::string();
    };
    const std::string kind = field("kind");
    const std::string api_version = field("apiVersion");
    return JobOwner{kind, field("name"), field("uid"),
                    integration_of(api_version, kind).value_or(""), api_version};
  }
  return std::nullopt;
}

std::optional<std::string> integration_of(const std::string& api_version, const std::string& kind) {
  for (const auto& k : kIntegrationKinds)
    if (kind == k.kind && api_version == k.api_version) return k.framework;
  return std::nullopt;
}

}  // namespace kmc::model
