// The job of another Kueue integration that owns a Pod or a Job: a JobSet's
// Jobs, an MPIJob's pods. Kueue admits such a job's Workload, not its parts,
// when its integration is enabled (FindAncestorJobManagedByKueue: the
// controller ownerReference, of a kind whose integration is enabled).
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "model/manifest_readers.hpp"

namespace kmc::model {
namespace {

// The job kinds of Kueue's built-in integrations (pkg/controller/jobs), each
// with the apiVersion Kueue registers it at (its gvk), and its name in
// integrations.frameworks. Kueue matches an ownerReference at that apiVersion
// only (ownerReferenceMatchingGVK). `owns_parts`: Kueue admits its Workload
// for the Jobs, Pods or other jobs it owns; the others (Deployment,
// StatefulSet, LeaderWorkerSet) gate their pods through the pod integration
// (kueue.x-k8s.io/pod-suspending-parent).
struct IntegrationKind {
  const char* api_version;
  const char* kind;
  const char* framework;
  bool owns_parts;
};
constexpr IntegrationKind kIntegrationKinds[] = {
    {"batch/v1", "Job", "batch/job", true},
    {"jobset.x-k8s.io/v1alpha2", "JobSet", "jobset.x-k8s.io/jobset", true},
    {"ray.io/v1", "RayJob", "ray.io/rayjob", true},
    {"ray.io/v1", "RayCluster", "ray.io/raycluster", true},
    {"ray.io/v1", "RayService", "ray.io/rayservice", true},
    {"kubeflow.org/v2beta1", "MPIJob", "kubeflow.org/mpijob", true},
    {"kubeflow.org/v1", "PyTorchJob", "kubeflow.org/pytorchjob", true},
    {"kubeflow.org/v1", "TFJob", "kubeflow.org/tfjob", true},
    {"kubeflow.org/v1", "XGBoostJob", "kubeflow.org/xgboostjob", true},
    {"kubeflow.org/v1", "PaddleJob", "kubeflow.org/paddlejob", true},
    {"kubeflow.org/v1", "JAXJob", "kubeflow.org/jaxjob", true},
    {"trainer.kubeflow.org/v1alpha1", "TrainJob", "trainer.kubeflow.org/trainjob", true},
    {"workload.codeflare.dev/v1beta2", "AppWrapper", "workload.codeflare.dev/appwrapper", true},
    {"sparkoperator.k8s.io/v1beta2", "SparkApplication", "sparkoperator.k8s.io/sparkapplication",
     true},
    {"apps/v1", "Deployment", "deployment", false},
    {"apps/v1", "StatefulSet", "statefulset", false},
    {"leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "leaderworkerset.x-k8s.io/leaderworkerset",
     false}};

}  // namespace

std::optional<JobOwner> job_owner(const YamlNode& object) {
  for (const auto& owner : object["metadata"]["ownerReferences"].items()) {
    // metav1.GetControllerOf: only the controller reference is followed.
    if (!owner["controller"].present() || !owner["controller"].boolean()) continue;
    const std::string kind = owner["kind"].present() ? owner["kind"].str() : "";
    const std::string api_version = owner["apiVersion"].present() ? owner["apiVersion"].str() : "";
    const auto it =
        std::find_if(std::begin(kIntegrationKinds), std::end(kIntegrationKinds),
                     [&](const auto& k) { return kind == k.kind && api_version == k.api_version; });
    if (it == std::end(kIntegrationKinds)) return std::nullopt;
    return JobOwner{kind, owner["name"].present() ? owner["name"].str() : "", it->framework,
                    it->owns_parts};
  }
  return std::nullopt;
}

std::optional<std::string> integration_of(const std::string& api_version, const std::string& kind) {
  for (const auto& k : kIntegrationKinds)
    if (kind == k.kind && api_version == k.api_version) return k.framework;
  return std::nullopt;
}

// A Job stays its own when its owner has no queue name
// (FindAncestorJobManagedByKueue with manageJobsWithoutQueueName=false); a
// Pod's owner needs none (the pod webhook's IsOwnerManagedByKueueForObject).
// An owner not in the input is taken as queued: Kueue reads it from the cluster.
void leave_parts_to_their_jobs(std::vector<PendingWorkload>& pending,
                               const std::vector<std::string>& frameworks,
                               const std::map<std::string, bool>& queued_jobsets,
                               Warnings& warnings) {
  std::erase_if(pending, [&](const PendingWorkload& p) {
    if (!p.owner || !p.owner->owns_parts ||
        std::find(frameworks.begin(), frameworks.end(), p.owner->framework) == frameworks.end())
      return false;
    const Workload& w = p.workload;
    if (w.source_kind == "Job" && p.owner->kind == "JobSet") {
      auto it = queued_jobsets.find(w.meta.namespace_ + "/" + p.owner->name);
      if (it != queued_jobsets.end() && !it->second) return false;
    }
    warnings.push_back(Diagnostic{
        w.meta.pos, "metadata.ownerReferences",
        fmt::format("{} owned by {} {}: Kueue admits that job's Workload, not {}; ignored",
                    w.source_kind, p.owner->kind, p.owner->name,
                    w.source_kind == "Pod" ? "its pods" : fmt::format("this {}", w.source_kind))});
    return true;
  });
}

}  // namespace kmc::model
