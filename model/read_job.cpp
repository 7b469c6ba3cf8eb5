// batch/v1 Job -> Workload, as Kueue's job integration builds it: one pod set
// "main" whose count is the pods that run at once (parallelism, capped by
// completions), the priority class from the kueue.x-k8s.io/priority-class
// label or the pods' priorityClassName, and PartialAdmission's minimum from
// kueue.x-k8s.io/job-min-parallelism. The Workload keeps the Job's name (Kueue would call it
// job-<name>-<hash>), so reports name what the user wrote.
#include <fmt/format.h>

#include <algorithm>

#include "model/manifest_readers.hpp"

namespace kmc::model {

std::int64_t read_runtime_annotation(const YamlNode& object);  // read_workload.cpp

inline constexpr const char* kQueueNameLabel = "kueue.x-k8s.io/queue-name";
inline constexpr const char* kPriorityClassLabel = "kueue.x-k8s.io/priority-class";
inline constexpr const char* kMinParallelismAnnotation = "kueue.x-k8s.io/job-min-parallelism";

PendingWorkload read_job_object(const YamlNode& object, ReadContext& ctx, const char* kind,
                                const YamlNode& pod_spec) {
  PendingWorkload out;
  Workload& wl = out.workload;
  wl.source_kind = kind;
  wl.meta = read_meta(object, ctx, true);
  wl.runtime_s = read_runtime_annotation(object);
  if (auto it = wl.meta.labels.find(kQueueNameLabel); it != wl.meta.labels.end())
    wl.queue_name = it->second;
  // ExtractPriority: the WorkloadPriorityClass label, else the pods' PriorityClass.
  if (auto it = wl.meta.labels.find(kPriorityClassLabel); it != wl.meta.labels.end()) {
    wl.priority_class_name = it->second;
    out.priority_class = it->second;
    out.where = object["metadata"]["labels"][kPriorityClassLabel].diagnostic("");
  } else if (const YamlNode pc = pod_spec["priorityClassName"]; pc.present()) {
    out.kube_priority_class = pc.str();
    out.kube_where = pc.diagnostic("");
  }
  return out;
}

PendingWorkload read_job(const YamlNode& object, ReadContext& ctx) {
  PendingWorkload out = read_job_object(object, ctx, "Job", object["spec"]["template"]["spec"]);
  Workload& wl = out.workload;
  if (const YamlNode boost = object["metadata"]["annotations"][kPriorityBoostAnnotation];
      boost.present())
    ctx.warnings.push_back(boost.diagnostic(
        "ignored, as Kueue ignores it: Kueue reads the priority boost on the Workload only "
        "(jobframework does not copy it from the Job); write it on the Workload"));
  const YamlNode spec = require(object, "spec");
  check_keys(spec,
             {.modeled = {"parallelism", "completions", "template"},
              .silent = {"backoffLimit", "activeDeadlineSeconds", "suspend", "completionMode",
                         "ttlSecondsAfterFinished", "selector", "manualSelector",
                         "podFailurePolicy", "backoffLimitPerIndex", "maxFailedIndexes",
                         "podReplacementPolicy", "successPolicy", "managedBy"}},
             ctx.warnings);
  // Kueue's webhook defaults an empty (or the Job controller's) managedBy to MultiKueue where the
  // Job's queue has a MultiKueue check (ApplyDefaultForManagedBy), and its MultiKueue controller
  // Rejects the check of a Job another controller manages (IsJobManagedByKueue): that Job is
  // deactivated and never runs. kmc dispatches every Job alike, so it says where it reads past.
  if (const YamlNode managed_by = spec["managedBy"]; managed_by.present()) {
    const std::string by = managed_by.str();
    if (by != "kubernetes.io/job-controller" && by != "kueue.x-k8s.io/multikueue")
      ctx.warnings.push_back(ignored_input(
          managed_by.pos(), managed_by.path(), "Job.spec.managedBy",
          fmt::format("{} manages this Job: under MultiKueue, Kueue rejects its admission check "
                      "(IsJobManagedByKueue) and the Job never runs; kmc checks it as if "
                      "MultiKueue managed it",
                      by)));
  }
  PodSet main;
  main.name = "main";
  main.count = spec["parallelism"].present() ? spec["parallelism"].int32(0) : 1;
  if (spec["completions"].present())
    main.count = std::min(main.count, spec["completions"].int32(0));
  const YamlNode min_parallelism = object["metadata"]["annotations"][kMinParallelismAnnotation];
  if (min_parallelism.present())
    main.min_count = static_cast<std::int32_t>(min_parallelism.int64(1, main.count));
  read_pod_template(require(spec, "template"), main, ctx);
  wl.pod_sets.push_back(std::move(main));
  return out;
}

}  // namespace kmc::model
