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

// Kind -> Kueue's integration (framework) name, as integrations.frameworks lists it.
constexpr std::pair<const char*, const char*> kJobKinds[] = {
    {"Job", "batch/job"},
    {"JobSet", "jobset.x-k8s.io/jobset"},
    {"RayJob", "ray.io/rayjob"},
    {"RayCluster", "ray.io/raycluster"},
    {"MPIJob", "kubeflow.org/mpijob"},
    {"PyTorchJob", "kubeflow.org/pytorchjob"},
    {"TFJob", "kubeflow.org/tfjob"},
    {"XGBoostJob", "kubeflow.org/xgboostjob"},
    {"PaddleJob", "kubeflow.org/paddlejob"},
    {"JAXJob", "kubeflow.org/jaxjob"},
    {"TrainJob", "trainer.kubeflow.org/trainjob"},
    {"AppWrapper", "workload.codeflare.dev/appwrapper"},
    {"SparkApplication", "sparkoperator.k8s.io/sparkapplication"}};

}  // namespace

std::optional<JobOwner> job_owner(const YamlNode& object) {
  for (const auto& owner : object["metadata"]["ownerReferences"].items()) {
    // metav1.GetControllerOf: only the controller reference is followed.
    if (!owner["controller"].present() || !owner["controller"].boolean()) continue;
    const std::string kind = owner["kind"].present() ? owner["kind"].str() : "";
    const auto it = std::find_if(std::begin(kJobKinds), std::end(kJobKinds),
                                 [&](const auto& k) { return kind == k.first; });
    if (it == std::end(kJobKinds)) return std::nullopt;
    return JobOwner{kind, owner["name"].present() ? owner["name"].str() : "", it->second};
  }
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
    if (!p.owner ||
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
                    w.source_kind == "Pod" ? "its pods" : "this Job")});
    return true;
  });
}

}  // namespace kmc::model
