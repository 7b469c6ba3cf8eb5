// Which jobs Kueue manages, once every file is read: the integrations the
// Configuration enables (integrations.frameworks), jobs owned by another
// integration's job, JobSets, and LocalQueue defaulting. Half of the
// ManifestLoader (manifest_loader.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "model/manifest_loader.hpp"

namespace kmc::model {

void ManifestLoader::load_job(const YamlNode& object, ReadContext& ctx) {
  const YamlNode label = object["metadata"]["labels"][kQueueNameLabel];
  if (!label.present()) {
    // Kueue's default manageJobsWithoutQueueName=false leaves such Jobs alone,
    // unless its namespace has a LocalQueue "default" (default_local_queues).
    out.warnings.push_back(Diagnostic{
        object.pos(), "metadata.labels",
        "Job has no kueue.x-k8s.io/queue-name label; Kueue does not manage it; ignored"});
    unlabelled_jobs_.push_back({read_job(object, ctx), out.warnings.size() - 1});
    unlabelled_jobs_.back().job.owner = job_owner(object);
    const ObjectMeta& meta = unlabelled_jobs_.back().job.workload.meta;
    if (!meta.name.empty()) unmanaged_names_.insert(meta.namespace_ + "/" + meta.name);
    return;
  }
  PendingWorkload job = read_job(object, ctx);
  job.owner = job_owner(object);
  add_workload(std::move(job), "Job");
}

void ManifestLoader::load_pod(const YamlNode& object, ReadContext& ctx) {
  if (!object["metadata"]["labels"][kQueueNameLabel].present()) {
    // Kueue's default manageJobsWithoutQueueName=false leaves such Pods alone.
    out.warnings.push_back(Diagnostic{
        object.pos(), "metadata.labels",
        "Pod has no kueue.x-k8s.io/queue-name label; Kueue does not manage it; ignored"});
    return;
  }
  PendingWorkload pod = read_pod(object, ctx);
  pod.owner = job_owner(object);
  add_workload(std::move(pod), "Pod");
}

bool ManifestLoader::listed(const std::string& framework) const {
  return std::find(frameworks_.begin(), frameworks_.end(), framework) != frameworks_.end();
}

void ManifestLoader::leave_parts_to_their_jobs() {
  std::map<std::string, bool> queued_jobsets;  // "ns/name" -> has the queue-name label
  for (const auto& jobset : jobsets_) {
    const YamlNode meta = jobset.object["metadata"];
    if (!meta["name"].present()) continue;
    const std::string ns = meta["namespace"].present() ? meta["namespace"].str() : "default";
    queued_jobsets[ns + "/" + meta["name"].str()] =
        meta["labels"][kQueueNameLabel].present() ||
        default_local_queue_applies(ns, job_owner(jobset.object));
  }
  model::leave_parts_to_their_jobs(pending_, frameworks_, queued_jobsets, out.warnings);
}

void ManifestLoader::load_jobset(const YamlNode& object, ReadContext& ctx) {
  jobsets_.push_back({object, ctx.api_version, ctx.load_index});
}

void ManifestLoader::read_jobsets() {
  const char* framework = "jobset.x-k8s.io/jobset";
  const bool managed = listed(framework);
  for (const auto& [object, api_version, load_index] : jobsets_) {
    if (!managed) {
      ignore(object, "JobSet", unmanaged_kind_message("JobSet", framework));
      // With a Configuration that leaves JobSets out, Kueue surely queues none;
      // without one, the cluster's own may list them (Kueue's shipped one does).
      if (config_pos_) ignored_.back().queued = false;
      ignored_.back().readable = true;
      continue;
    }
    ReadContext ctx{out.warnings, api_version, load_index};
    if (!object["metadata"]["labels"][kQueueNameLabel].present()) {
      const std::string ns = namespace_of(object);
      if (!default_local_queue_applies(ns, job_owner(object))) {
        // Kueue's default manageJobsWithoutQueueName=false leaves such JobSets alone.
        out.warnings.push_back(Diagnostic{
            object.pos(), "metadata.labels",
            "JobSet has no kueue.x-k8s.io/queue-name label; Kueue does not manage it; ignored"});
        continue;
      }
      PendingWorkload jobset = read_jobset(object, ctx);
      give_default_local_queue(jobset, "JobSet");
      add_workload(std::move(jobset), "JobSet");
      continue;
    }
    add_workload(read_jobset(object, ctx), "JobSet");
  }
}

std::string ManifestLoader::namespace_of(const YamlNode& object) {
  const YamlNode ns = object["metadata"]["namespace"];
  return ns.present() ? ns.str() : "default";
}

bool ManifestLoader::default_local_queue_applies(const std::string& ns,
                                                 const std::optional<JobOwner>& owner) const {
  if (ns == "kube-system" || ns == "kueue-system") return false;
  if (owner && listed(owner->framework)) return false;
  return std::any_of(out.local_queues.begin(), out.local_queues.end(), [&](const auto& lq) {
    return lq.meta.namespace_ == ns && lq.meta.name == "default";
  });
}

void ManifestLoader::give_default_local_queue(PendingWorkload& job, const std::string& kind) {
  Workload& w = job.workload;
  w.queue_name = "default";
  w.meta.labels[kQueueNameLabel] = "default";
  out.warnings.push_back(Diagnostic{
      w.meta.pos, "metadata.labels",
      fmt::format("{} has no kueue.x-k8s.io/queue-name label; Kueue's webhook gives it its "
                  "namespace's LocalQueue 'default'",
                  kind)});
}

void ManifestLoader::default_local_queues() {
  for (auto& [job, warning] : unlabelled_jobs_) {
    if (!default_local_queue_applies(job.workload.meta.namespace_, job.owner)) {
      out.unmanaged_jobs.push_back(std::move(job.workload));  // the scheduler still runs it
      continue;
    }
    give_default_local_queue(job, "Job");
    out.warnings[warning] = std::move(out.warnings.back());  // in place of "ignored"
    out.warnings.pop_back();
    add_workload(std::move(job), "Job");
  }
}

std::string ManifestLoader::unmanaged_kind_message(const std::string& kind,
                                                   const std::string& framework) const {
  const std::string where =
      config_pos_ ? fmt::format("the Configuration ({}:{}) does not list it", config_pos_->file,
                                config_pos_->line)
                  : "there is no Configuration, and Kueue's default lists batch/job only";
  return fmt::format(
      "Kueue manages a {} only with the {} integration (integrations.frameworks), and {}; "
      "ignored",
      kind, framework, where);
}

void ManifestLoader::leave_unmanaged_kinds() {
  for (const auto& [kind, framework] :
       {std::pair<std::string, std::string>{"Pod", "pod"}, {"Job", "batch/job"}}) {
    if (listed(framework)) continue;
    std::erase_if(pending_, [&](const PendingWorkload& p) {
      if (p.workload.source_kind != kind) return false;
      out.warnings.push_back(
          Diagnostic{p.workload.meta.pos, "kind", unmanaged_kind_message(kind, framework)});
      return true;
    });
  }
}

}  // namespace kmc::model
