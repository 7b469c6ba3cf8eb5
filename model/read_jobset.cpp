// jobset.x-k8s.io/v1alpha2 JobSet -> Workload, as Kueue's jobset integration
// builds it (pkg/controller/jobs/jobset): one pod set per replicated job, named
// after it, whose count is replicas x the pods one of its Jobs runs at once
// (parallelism, capped by completions: PodsCountPerReplica). The priority is
// the WorkloadPriorityClass label's, else the first pod template naming a
// PriorityClass gives it (ExtractPriority). There is no partial admission.
#include <fmt/format.h>

#include <limits>
#include <set>

#include "model/manifest_readers.hpp"

namespace kmc::model {

PendingWorkload read_jobset(const YamlNode& object, ReadContext& ctx) {
  const YamlNode spec = require(object, "spec");
  check_keys(
      spec,
      {.modeled = {"replicatedJobs"},
       .silent = {"suspend", "network", "successPolicy", "failurePolicy", "startupPolicy",
                  "ttlSecondsAfterFinished", "coordinator", "managedBy", "volumeClaimPolicies"}},
      ctx.warnings);
  const YamlNode replicated = require(spec, "replicatedJobs");
  if (replicated.items().empty()) replicated.fail("a JobSet needs at least one replicated job");
  YamlNode priority_spec = replicated.items().front()["template"]["spec"]["template"]["spec"];
  for (const auto& rj : replicated.items())
    if (const YamlNode pod_spec = rj["template"]["spec"]["template"]["spec"];
        pod_spec["priorityClassName"].present() && !pod_spec["priorityClassName"].str().empty()) {
      priority_spec = pod_spec;
      break;
    }
  PendingWorkload out = read_job_object(object, ctx, "JobSet", priority_spec);
  read_managed_by(spec, ctx, "JobSet", "jobset.sigs.k8s.io/jobset-controller");
  std::set<std::string> names;
  for (const auto& rj : replicated.items()) {
    check_keys(rj,
               {.modeled = {"name", "replicas", "template"}, .silent = {"dependsOn", "groupName"}},
               ctx.warnings);
    PodSet ps;
    ps.name = require(rj, "name").str();
    // The Workload's podSets are a map keyed by name: the API server refuses a
    // second of one name, and JobSet's own validation refuses it first.
    if (!names.insert(ps.name).second)
      rj["name"].fail(fmt::format("a second replicated job named '{}'", ps.name));
    const std::int32_t replicas = rj["replicas"].present() ? rj["replicas"].int32(0) : 1;
    const YamlNode job_template = require(rj, "template");
    check_keys(job_template, {.modeled = {"spec"}, .silent = {"metadata"}}, ctx.warnings);
    const YamlNode job_spec = require(job_template, "spec");
    check_job_spec_keys(job_spec, ctx);
    const std::int64_t count = std::int64_t{replicas} * job_pods_at_once(job_spec);
    if (count > std::numeric_limits<std::int32_t>::max())
      rj["replicas"].fail(
          fmt::format("{} pods in one replicated job overflow a pod set's count", count));
    ps.count = static_cast<std::int32_t>(count);
    read_pod_template(require(job_spec, "template"), ps, ctx);
    out.workload.pod_sets.push_back(std::move(ps));
  }
  if (out.workload.pod_sets.size() > kMaxPodSets)
    replicated.fail(fmt::format(
        "{} replicated jobs, and a Workload holds at most {} pod sets: the API server refuses "
        "the Workload Kueue would create, so this JobSet never runs",
        out.workload.pod_sets.size(), kMaxPodSets));
  return out;
}

}  // namespace kmc::model
