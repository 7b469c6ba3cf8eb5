// Which jobs Kueue manages, once every file is read: the integrations the
// Configuration enables (integrations.frameworks), jobs owned by another
// integration's job, JobSets, and LocalQueue defaulting. Half of the
// ManifestLoader (manifest_loader.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "model/label_selector.hpp"
#include "model/manifest_loader.hpp"

namespace kmc::model {

namespace {

// The queue-name label as the webhooks read it: "" is no queue name
// (QueueNameForObject), which LocalQueue defaulting may fill.
bool names_queue(const YamlNode& object) {
  const YamlNode label = object["metadata"]["labels"][kQueueNameLabel];
  return label.present() && !label.str().empty();
}

std::string selector_written(const JobIntegrationSettings& s) {
  if (!s.selector_pos) return "the default managedJobsNamespaceSelector";
  return fmt::format("managedJobsNamespaceSelector ({}:{})", s.selector_pos->file,
                     s.selector_pos->line);
}

}  // namespace

void ManifestLoader::load_job(const YamlNode& object, ReadContext& ctx) {
  note_job_pods(object);
  if (!names_queue(object)) return load_unlabelled(object, ctx, "Job");
  PendingWorkload job = read_job(object, ctx);
  job.owner = job_owner(object);
  add_workload(std::move(job), "Job");
}

void ManifestLoader::load_pod(const YamlNode& object, ReadContext& ctx) {
  if (!names_queue(object)) return load_unlabelled(object, ctx, "Pod");
  PendingWorkload pod = read_pod(object, ctx);
  pod.owner = job_owner(object);
  add_workload(std::move(pod), "Pod");
}

// Kueue's default manageJobsWithoutQueueName=false leaves a job without a queue
// name alone, unless its namespace has a LocalQueue "default" when it is created
// (default_local_queues). A Job still runs without Kueue (unmanaged_jobs).
void ManifestLoader::load_unlabelled(const YamlNode& object, ReadContext& ctx,
                                     const std::string& kind) {
  const std::size_t warning = out.warnings.size();
  out.warnings.push_back(Diagnostic{
      object.pos(), "metadata.labels",
      kind + " has no kueue.x-k8s.io/queue-name label; Kueue does not manage it; ignored"});
  // The webhooks default on create only: an object the cluster has (a uid) was
  // created without the LocalQueue, and a Pod that never will be is not read.
  const bool creatable = !object["metadata"]["uid"].present();
  if (kind == "Pod" && !creatable) return;
  Unlabelled u{kind == "Job" ? read_job(object, ctx) : read_pod(object, ctx), warning, creatable,
               std::nullopt};
  u.job.owner = job_owner(object);
  if (const YamlNode label = object["metadata"]["labels"][kQueueNameLabel]; label.present())
    u.empty_label = label.diagnostic("");
  const ObjectMeta& meta = u.job.workload.meta;
  if (kind == "Job" && !meta.name.empty())
    unmanaged_names_.insert(meta.namespace_ + "/" + meta.name);
  unlabelled_.push_back(std::move(u));
}

bool ManifestLoader::listed(const std::string& framework) const {
  const auto& listed = integrations_.frameworks;
  return std::find(listed.begin(), listed.end(), framework) != listed.end() ||
         (framework == "pod" && pod_integration_implicit());
}

void ManifestLoader::leave_parts_to_their_jobs() {
  const auto owner_to_workload = owners_of_workloads();
  std::erase_if(pending_, [&](const PendingWorkload& p) {
    const Workload& w = p.workload;
    const std::string& kind = w.source_kind;
    if (kind == "Workload") return false;
    if (kind == "Pod" && w.meta.annotations.contains(kSuspendedByParentAnnotation)) return false;
    // Only Kueue's webhooks and job reconcilers walk, where they run.
    if (!listed(kind == "Pod"   ? "pod"
                : kind == "Job" ? "batch/job"
                                : "jobset.x-k8s.io/jobset") ||
        namespace_management(w.meta.namespace_, w.meta.pos) != NamespaceManagement::Managed)
      return false;
    const OwnerWalk walk =
        queued_ancestor(fmt::format("{}/{}/{}", w.meta.namespace_, kind, w.meta.name),
                        w.meta.namespace_, p.owner, w.meta.pos);
    if (!walk.top) {
      // Past a missing ReplicaSet only a queued Deployment could take the
      // Pod, and its Pods carry pod-suspending-parent, which skips the walk.
      if (walk.missing && !(walk.missing->kind == "ReplicaSet" && !listed("deployment")))
        out.warnings.push_back(ignored_input(
            w.meta.pos, "metadata.ownerReferences", kind + " whose owner chain is cut",
            fmt::format("admission may differ because Kueue walks this {}'s controller owners "
                        "up to {} {}, which is not in the input, and on from there to any that "
                        "names a queue, whose part the {} then is; kmc takes it as its own "
                        "job: add the owners to the input",
                        kind, walk.missing->kind, walk.missing->name, kind)));
      return false;
    }
    const QueuedAncestor& top = *walk.top;
    std::string message = fmt::format(
        "{} owned by {}: Kueue admits {} {}'s Workload, not {}; ignored", kind, top.chain,
        top.owner.kind, top.owner.name, kind == "Pod" ? "its pods" : fmt::format("this {}", kind));
    // A job kind's parts carry its queue name; a Pod's children need not.
    if (top.assumed && top.owner.kind == "Pod")
      out.warnings.push_back(ignored_input(
          w.meta.pos, "metadata.ownerReferences", "Pod owner missing from the input",
          fmt::format("{}: admission may differ because Pod {} is not in the input and kmc "
                      "takes it to name a queue; add it",
                      message, top.owner.name)));
    else if (top.assumed && !owner_to_workload.contains(fmt::format(
                                "{}/{}/{}", w.meta.namespace_, top.owner.kind, top.owner.name)))
      out.warnings.push_back(uncounted_ancestor(w.meta.pos, message, top));
    else
      out.warnings.push_back(Diagnostic{w.meta.pos, "metadata.ownerReferences", message});
    return true;
  });
}

OwnerWalk ManifestLoader::queued_ancestor(const std::string& self, const std::string& ns,
                                          const std::optional<JobOwner>& owner,
                                          const SourcePos& at) {
  return owner_chains_.queued_ancestor(
      self, ns, owner, at, [&](const std::string& framework) { return listed(framework); },
      [&](const ChainObject& o) {
        if (o.labelled) return true;
        if (!o.creatable || !o.framework || o.suspended_by_parent) return false;
        // Whether the webhook gives it LocalQueue default: the pod webhook
        // walks from it in turn, so Pods owning each other come back here.
        if (!deciding_defaults_.insert(&o).second)
          throw InputError(o.pos, "metadata.ownerReferences",
                           fmt::format("the controller ownerReferences of {} {} form a cycle: "
                                       "Kueue's walk to the job that owns it fails "
                                       "(ErrCyclicOwnership), so its webhook refuses it",
                                       o.kind, o.name));
        const bool defaulted = default_local_queue_applies(o.ns, o.owner, *o.framework, o.pos);
        deciding_defaults_.erase(&o);
        return defaulted;
      });
}

bool ManifestLoader::owner_keeps_defaulting_off(const std::string& framework, const std::string& ns,
                                                const std::optional<JobOwner>& owner,
                                                const SourcePos& at) {
  if (framework == "pod") return queued_ancestor(ns + "/Pod/", ns, owner, at).top.has_value();
  return owner_managed(owner);
}

bool ManifestLoader::owner_managed(const std::optional<JobOwner>& owner) const {
  return owner &&
         (listed(owner->framework) || owner_chains_.external(owner->api_version, owner->kind));
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
      if (config_pos_ && !owner_chains_.external(api_version, "JobSet"))
        ignored_.back().queued = false;
      ignored_.back().readable = true;
      continue;
    }
    ReadContext ctx{out.warnings, api_version, load_index};
    if (!names_queue(object)) {
      const std::string ns = namespace_of(object);
      const bool creatable = !object["metadata"]["uid"].present();
      if (!creatable ||
          !default_local_queue_applies(ns, job_owner(object), framework, object.pos())) {
        const YamlNode label = object["metadata"]["labels"][kQueueNameLabel];
        // Kueue validates on create only: a JobSet the cluster has stays.
        if (label.present() && creatable &&
            namespace_management(ns, label.pos()) == NamespaceManagement::Managed)
          label.fail(
              "an empty queue name, and no LocalQueue 'default' to give it; Kueue's "
              "webhook refuses the JobSet");
        // Kueue's default manageJobsWithoutQueueName=false leaves such JobSets alone.
        out.warnings.push_back(Diagnostic{
            object.pos(), "metadata.labels",
            fmt::format("JobSet has {} kueue.x-k8s.io/queue-name label; Kueue does not manage it; "
                        "ignored",
                        label.present() ? "an empty" : "no")});
        continue;
      }
      PendingWorkload jobset = read_jobset(object, ctx);
      jobset.owner = job_owner(object);
      give_default_local_queue(jobset, "JobSet");
      add_workload(std::move(jobset), "JobSet");
      continue;
    }
    PendingWorkload jobset = read_jobset(object, ctx);
    jobset.owner = job_owner(object);
    add_workload(std::move(jobset), "JobSet");
  }
}

std::string ManifestLoader::namespace_of(const YamlNode& object) {
  const YamlNode ns = object["metadata"]["namespace"];
  return ns.present() ? ns.str() : "default";
}

// DefaultLocalQueueExist: the queue manager holds a LocalQueue only while it is not stopped.
bool ManifestLoader::default_local_queue_exists(const std::string& ns) const {
  return std::any_of(out.local_queues.begin(), out.local_queues.end(), [&](const auto& lq) {
    return lq.meta.namespace_ == ns && lq.meta.name == "default" &&
           lq.stop_policy == StopPolicy::None;
  });
}

bool ManifestLoader::default_local_queue_applies(const std::string& ns,
                                                 const std::optional<JobOwner>& owner,
                                                 const std::string& framework,
                                                 const SourcePos& at) {
  if (!listed(framework)) return false;  // no webhook for the kind
  if (owner_keeps_defaulting_off(framework, ns, owner, at)) return false;
  const bool exists = default_local_queue_exists(ns);
  // Last, as Kueue reads the Namespace last: only where it decides.
  return exists && namespace_management(ns, at) == NamespaceManagement::Managed;
}

ManifestLoader::NamespaceManagement ManifestLoader::namespace_management(const std::string& ns,
                                                                         const SourcePos& at) {
  if (ns == "kube-system" || ns == integrations_.kueue_namespace)
    return NamespaceManagement::NoWebhook;
  const LabelSelector& selector = integrations_.managed_jobs_namespace_selector;
  const Namespace* object = find_namespace(out.namespaces, ns);
  if (object == nullptr && reads_more_than_the_name(selector) &&
      namespaces_warned_.insert(ns).second)
    out.warnings.push_back(Diagnostic{
        at, "metadata.namespace",
        fmt::format("Namespace '{}' is not in the input, and {} reads its labels: admission may "
                    "differ because kmc takes it to have none but its name label; add the "
                    "Namespace",
                    ns, selector_written(integrations_)),
        true, "Namespace missing that managedJobsNamespaceSelector reads"});
  return selector_matches(selector, namespace_labels(object, ns)) ? NamespaceManagement::Managed
                                                                  : NamespaceManagement::Unselected;
}

void ManifestLoader::leave_unmanaged_namespaces() {
  std::erase_if(pending_, [&](PendingWorkload& p) {
    Workload& job = p.workload;
    const std::string& kind = job.source_kind;
    const NamespaceManagement m = namespace_management(job.meta.namespace_, job.meta.pos);
    if (m == NamespaceManagement::Managed) return false;
    if (kind == "Workload") {
      // It exists, so Kueue queues and admits it; its job, though, is never
      // started by Kueue's job reconcilers. An external framework's own
      // controller starts its job whatever the selector says.
      if (!job.meta.owners.empty() && !owner_chains_.external(job.meta.owners.front().api_version,
                                                              job.meta.owners.front().kind))
        out.warnings.push_back(ignored_input(
            job.meta.pos, "metadata.namespace", "Workload of a job Kueue does not manage",
            fmt::format("admission may differ because Kueue's job reconciler ignores namespace "
                        "'{}' ({}), so the {} owning this Workload is never started once it is "
                        "admitted, and its quota never freed; kmc lets it run and finish",
                        job.meta.namespace_,
                        m == NamespaceManagement::NoWebhook
                            ? "kube-system or Kueue's own"
                            : fmt::format("{} does not select it", selector_written(integrations_)),
                        job.meta.owners.front().kind)));
      return false;
    }
    std::string message;
    if (m == NamespaceManagement::NoWebhook) {
      message = fmt::format(
          "{} names a queue, but Kueue's webhooks skip namespace '{}' (its installs leave out "
          "kube-system and Kueue's own namespace) and its job reconcilers ignore it: it runs "
          "without Kueue; left out of admission",
          kind, job.meta.namespace_);
    } else if (kind == "Pod" && job.meta.annotations.contains(kSuspendedByParentAnnotation)) {
      // The pod webhook gates a Pod its parent suspended before it reads the
      // namespace; whether it runs there is the install's, as for jobs below.
      message = fmt::format(
          "Pod names a queue, but {} does not select namespace '{}', so Kueue's pod reconciler "
          "ignores it; left out of admission. Installed by Kueue's Helm chart, whose pod webhook "
          "gets that selector too, the Pod runs without Kueue; by its release manifests "
          "(kustomize), the pod webhook gates it, as its parent suspended it, and it never runs",
          selector_written(integrations_), job.meta.namespace_);
    } else if (kind == "Pod") {
      message = fmt::format(
          "Pod names a queue, but {} does not select namespace '{}', so the pod webhook leaves "
          "it ungated: it runs without Kueue; left out of admission",
          selector_written(integrations_), job.meta.namespace_);
    } else {
      // Whether the webhooks run there is the install's: Kueue's Helm chart gives
      // them this selector, its release manifests (kustomize) do not.
      message = fmt::format(
          "{0} names a queue, but {1} does not select namespace '{2}', so Kueue's job reconciler "
          "never creates its Workload; left out of admission. Installed by Kueue's Helm chart, "
          "whose webhooks get that selector too, the {0} runs without Kueue; by its release "
          "manifests (kustomize), the {0} webhook suspends it and it never runs",
          kind, selector_written(integrations_), job.meta.namespace_);
    }
    out.warnings.push_back(Diagnostic{job.meta.pos, "metadata.namespace", std::move(message)});
    // Not suspended, a Job still loads the cluster for the plain scheduler.
    if (m == NamespaceManagement::NoWebhook && kind == "Job")
      out.unmanaged_jobs.push_back(std::move(job));
    return true;
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
  for (auto& [job, warning, creatable, empty_label] : unlabelled_) {
    const std::string kind = job.workload.source_kind;
    const char* framework = kind == "Pod" ? "pod" : "batch/job";
    const std::string& ns = job.workload.meta.namespace_;
    // The pod webhook gates a Pod its parent suspended before any defaulting.
    const bool suspended =
        kind == "Pod" && job.workload.meta.annotations.contains(kSuspendedByParentAnnotation);
    if (!creatable || suspended ||
        !default_local_queue_applies(ns, job.owner, framework, job.workload.meta.pos)) {
      // Left with "queue-name: """: the webhook's validation refuses the job.
      // Kueue validates on create only: one the cluster has stays.
      if (empty_label && creatable && listed(framework) &&
          namespace_management(ns, empty_label->pos) == NamespaceManagement::Managed)
        throw InputError(empty_label->pos, empty_label->field,
                         fmt::format("an empty queue name, and no LocalQueue 'default' in "
                                     "namespace '{}' that LocalQueue defaulting gives it (it "
                                     "skips a job another job owns); Kueue's webhook refuses "
                                     "the {}",
                                     ns, kind));
      // A StatefulSet's Pod gets its queue name from the StatefulSet's pod
      // reconciler (statefulset_pod_reconciler.go), which admits it as part of
      // the StatefulSet.
      const bool of_statefulset =
          suspended && listed("statefulset") &&
          job.workload.meta.annotations.at(kSuspendedByParentAnnotation) == "statefulset";
      if (of_statefulset)
        out.warnings[warning].message =
            "Pod of a StatefulSet Kueue suspends (kueue.x-k8s.io/pod-suspending-parent: "
            "statefulset) that has no kueue.x-k8s.io/queue-name label yet: Kueue's StatefulSet "
            "pod reconciler gives it its StatefulSet's and admits it as part of the StatefulSet; "
            "ignored";
      else if (suspended && listed("pod") &&
               namespace_management(ns, job.workload.meta.pos) != NamespaceManagement::NoWebhook)
        out.warnings[warning].message =
            "Pod has kueue.x-k8s.io/pod-suspending-parent but no kueue.x-k8s.io/queue-name "
            "label: the pod webhook gates it, and Kueue's pod reconciler ignores a Pod without a "
            "queue name, so it never runs; ignored";
      if (kind == "Job") {
        explain_pods_of_unmanaged_job(job);
        out.unmanaged_jobs.push_back(std::move(job.workload));  // it still runs
      }
      continue;
    }
    give_default_local_queue(job, kind);
    out.warnings[warning] = std::move(out.warnings.back());  // in place of "ignored"
    out.warnings.pop_back();
    add_workload(std::move(job), kind);
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

std::string ManifestLoader::external_workload_missing(const std::string& kind) {
  return fmt::format(
      ": admission may differ because Kueue admits the Workload its controller makes for this {} "
      "(integrations.externalFrameworks lists the kind, and it has the {} label), which is not "
      "in the input",
      kind, kQueueNameLabel);
}

void ManifestLoader::leave_unmanaged_kinds() {
  const auto owner_to_workload = owners_of_workloads();
  for (const auto& [api_version, kind, framework] :
       {std::tuple<std::string, std::string, std::string>{"v1", "Pod", "pod"},
        {"batch/v1", "Job", "batch/job"}}) {
    if (listed(framework)) continue;
    // Listed as an external framework instead, its own controller makes the Workloads.
    const bool external = owner_chains_.external(api_version, kind);
    std::erase_if(pending_, [&](const PendingWorkload& p) {
      const Workload& w = p.workload;
      if (w.source_kind != kind) return false;
      Diagnostic d{w.meta.pos, "kind", unmanaged_kind_message(kind, framework)};
      if (external && !w.queue_name.empty() &&
          !owner_to_workload.contains(
              fmt::format("{}/{}/{}", w.meta.namespace_, kind, w.meta.name))) {
        d.message += external_workload_missing(kind);
        d.may_change_answer = true;
        d.concept_ = kind + " of an external framework and no Workload";
      }
      out.warnings.push_back(std::move(d));
      if (kind == "Job") explain_pods_of_unmanaged_job(p);  // its own queue name is not theirs
      return true;
    });
  }
}

}  // namespace kmc::model
