// batch/v1 Job -> Workload, as Kueue's job integration builds it: one pod set
// "main" whose count is the pods that run at once (parallelism, capped by
// completions), the priority class from the kueue.x-k8s.io/priority-class
// label or the pods' priorityClassName, and PartialAdmission's minimum from
// kueue.x-k8s.io/job-min-parallelism. The Workload keeps the Job's name (Kueue would call it
// job-<name>-<hash>), so reports name what the user wrote.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string_view>

#include "model/k8s_names.hpp"
#include "model/manifest_readers.hpp"

namespace kmc::model {

std::int64_t read_runtime_annotation(const YamlNode& object);  // read_workload.cpp

inline constexpr const char* kPriorityClassLabel = "kueue.x-k8s.io/priority-class";
inline constexpr const char* kMinParallelismAnnotation = "kueue.x-k8s.io/job-min-parallelism";
inline constexpr const char* kMaxExecTimeLabel = "kueue.x-k8s.io/max-exec-time-seconds";

namespace {

// The job webhooks' ValidateJobOnCreate, of the labels kmc reads: Kueue
// refuses the job, so it never exists.
void validate_job_labels(const YamlNode& labels, ReadContext& ctx, const char* kind) {
  // "" is no queue name, which LocalQueue defaulting may fill (the loader decides).
  if (const YamlNode queue = labels[kQueueNameLabel]; queue.present() && !queue.str().empty()) {
    if (!is_dns1123_subdomain(queue.str()))
      queue.fail(
          fmt::format("'{}' is not a valid LocalQueue name (a lowercase RFC 1123 "
                      "subdomain); Kueue's webhook refuses the {}",
                      queue.str(), kind));
  }
  if (const YamlNode max_exec = labels[kMaxExecTimeLabel]; max_exec.present()) {
    const std::string text = max_exec.str();
    std::int64_t seconds = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec != std::errc() || end != text.data() + text.size() || seconds <= 0)
      max_exec.fail(
          fmt::format("'{}' is not a whole number of seconds above 0; Kueue's "
                      "webhook refuses the {}",
                      text, kind));
    ctx.warnings.push_back(ignored_input(
        max_exec.pos(), max_exec.path(),
        fmt::format("{}.metadata.labels[{}]", kind, kMaxExecTimeLabel), kMaxExecutionTimeEffect));
  }
}

}  // namespace

PendingWorkload read_job_object(const YamlNode& object, ReadContext& ctx, const char* kind,
                                const YamlNode& pod_spec) {
  PendingWorkload out;
  Workload& wl = out.workload;
  wl.source_kind = kind;
  wl.meta = read_meta(object, ctx, true);
  wl.runtime_s = read_runtime_annotation(object);
  validate_job_labels(object["metadata"]["labels"], ctx, kind);
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
  if (const YamlNode boost = object["metadata"]["annotations"][kPriorityBoostAnnotation];
      boost.present())
    ctx.warnings.push_back(boost.diagnostic(
        fmt::format("ignored, as Kueue ignores it: Kueue reads the priority boost on the "
                    "Workload only (jobframework does not copy it from the {}); write it on the "
                    "Workload",
                    kind)));
  return out;
}

// Kueue's webhook defaults an empty (or the kind's own controller's) managedBy to MultiKueue
// where the job's queue has a MultiKueue check (ApplyDefaultForManagedBy), and its MultiKueue
// controller Rejects the check of a job another controller manages (IsJobManagedByKueue): that
// job is deactivated and never runs. kmc dispatches every job alike, so it says where it reads
// past.
void read_managed_by(const YamlNode& spec, ReadContext& ctx, const char* kind,
                     const char* own_controller) {
  const YamlNode managed_by = spec["managedBy"];
  if (!managed_by.present()) return;
  const std::string by = managed_by.str();
  if (by == own_controller || by == "kueue.x-k8s.io/multikueue") return;
  ctx.warnings.push_back(ignored_input(
      managed_by.pos(), managed_by.path(), fmt::format("{}.spec.managedBy", kind),
      fmt::format("{} manages this {}: under MultiKueue, Kueue rejects its admission check "
                  "(IsJobManagedByKueue) and the {} never runs; kmc checks it as if MultiKueue "
                  "managed it",
                  by, kind, kind)));
}

std::int32_t job_pods_at_once(const YamlNode& job_spec) {
  // parallelism defaults to 1; completions, where set, caps it.
  std::int32_t count = job_spec["parallelism"].present() ? job_spec["parallelism"].int32(0) : 1;
  if (job_spec["completions"].present()) count = std::min(count, job_spec["completions"].int32(0));
  return count;
}

void check_job_spec_keys(const YamlNode& job_spec, ReadContext& ctx) {
  check_keys(job_spec,
             {.modeled = {"parallelism", "completions", "template"},
              .silent = {"backoffLimit", "activeDeadlineSeconds", "suspend", "completionMode",
                         "ttlSecondsAfterFinished", "selector", "manualSelector",
                         "podFailurePolicy", "backoffLimitPerIndex", "maxFailedIndexes",
                         "podReplacementPolicy", "successPolicy", "managedBy"}},
             ctx.warnings);
}

PendingWorkload read_job(const YamlNode& object, ReadContext& ctx) {
  PendingWorkload out = read_job_object(object, ctx, "Job", object["spec"]["template"]["spec"]);
  Workload& wl = out.workload;
  const YamlNode spec = require(object, "spec");
  check_job_spec_keys(spec, ctx);
  read_managed_by(spec, ctx, "Job", "kubernetes.io/job-controller");
  PodSet main;
  main.name = "main";
  main.count = job_pods_at_once(spec);
  const YamlNode min_parallelism = object["metadata"]["annotations"][kMinParallelismAnnotation];
  if (min_parallelism.present())
    main.min_count = static_cast<std::int32_t>(min_parallelism.int64(1, main.count));
  read_pod_template(require(spec, "template"), main, ctx);
  wl.pod_sets.push_back(std::move(main));
  return out;
}

}  // namespace kmc::model
