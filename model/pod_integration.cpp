// Kueue's pod integration, the third part of the ManifestLoader
// (manifest_loader.hpp): which Pods it gates that Kueue never admits, and the
// Pods of Jobs (and DaemonSets, ReplicaSets, ...) Kueue leaves alone that the
// pod webhook queues.
#include <fmt/format.h>

#include <algorithm>

#include "model/manifest_loader.hpp"

namespace kmc::model {

namespace {

std::string position(const SourcePos& pos) {
  return fmt::format("{}:{}", pos.file, pos.line);
}

}  // namespace

void ManifestLoader::note_job_pods(const YamlNode& object) {
  JobPods& pods = job_pods_[position(object.pos())];
  if (const YamlNode labels = object["spec"]["template"]["metadata"]["labels"];
      labels.is_map() && labels[kQueueNameLabel].present() &&
      labels[kQueueNameLabel].raw().IsScalar()) {
    pods.template_queue = labels[kQueueNameLabel].str();
    pods.template_queue_pos = labels[kQueueNameLabel].pos();
  }
  // The Job controller creates no more Pods once the Job has a terminal or
  // interim terminal condition, while suspended, or once it is being deleted.
  for (const auto& c : object["status"]["conditions"].items()) {
    const std::string type = c["type"].present() ? c["type"].str() : "";
    if (c["status"].present() && c["status"].str() == "True" &&
        (type == "Complete" || type == "Failed" || type == "SuccessCriteriaMet" ||
         type == "FailureTarget"))
      pods.makes_no_pods = true;
  }
  if (const YamlNode suspend = object["spec"]["suspend"]; suspend.present() && suspend.boolean())
    pods.makes_no_pods = true;
  if (object["metadata"]["deletionTimestamp"].present()) pods.makes_no_pods = true;
  // A Deployment, ReplicaSet or StatefulSet scaled to zero (a Job has no replicas).
  if (const YamlNode replicas = object["spec"]["replicas"];
      replicas.present() && replicas.raw().IsScalar() && replicas.str() == "0")
    pods.makes_no_pods = true;
  // Its Pods are gated by the parent's own integration (a Deployment's, a
  // LeaderWorkerSet's StatefulSets), not queued by the pod webhook alone.
  pods.suspended_by_parent =
      object["spec"]["template"]["metadata"]["annotations"][kSuspendedByParentAnnotation].present();
}

void ManifestLoader::note_pod_controller(const YamlNode& object, const std::string& kind,
                                         const std::string& ns, const std::string& name) {
  if (!object["apiVersion"].present() || object["apiVersion"].str() != "apps/v1" ||
      (kind != "DaemonSet" && kind != "ReplicaSet" && kind != "Deployment" &&
       kind != "StatefulSet"))
    return;
  note_job_pods(object);
  const YamlNode label = object["metadata"]["labels"][kQueueNameLabel];
  const bool queued = label.present() && label.raw().IsScalar() && !label.str().empty();
  pod_controllers_.push_back({kind, ns, name, job_owner(object), queued, object.pos()});
}

void ManifestLoader::explain_pods_of_other_controllers() {
  const auto in_input = [&](const std::string& kind, const std::string& ns,
                            const std::string& name) {
    return std::any_of(pod_controllers_.begin(), pod_controllers_.end(), [&](const auto& c) {
      return c.kind == kind && c.ns == ns && c.name == name;
    });
  };
  for (const auto& c : pod_controllers_) {
    // Their own integrations gate and admit their Pods (ignored kinds, explain_ignored_jobs).
    if ((c.kind == "Deployment" && listed("deployment")) ||
        (c.kind == "StatefulSet" && listed("statefulset")))
      continue;
    // A Deployment's ReplicaSet makes the Deployment's Pods, told there.
    if (c.kind == "ReplicaSet" && c.owner && c.owner->kind == "Deployment" &&
        c.owner->api_version == "apps/v1" && in_input("Deployment", c.ns, c.owner->name))
      continue;
    explain_new_pods("apps/v1", c.kind, c.ns, c.name, c.owner, c.queued, c.pos);
  }
}

// Since Kueue 0.15 (#6736) the integrations whose pods the pod integration
// gates enable it with them (ImplicitlyEnabledFrameworkNames): its webhook
// then runs on every Pod, but its reconciler skips a Pod that no parent
// suspended (Pod.Skip, HasImplicitlyEnabledFramework).
bool ManifestLoader::pod_integration_implicit() const {
  const auto& listed = integrations_.frameworks;
  const auto has = [&](const char* f) {
    return std::find(listed.begin(), listed.end(), f) != listed.end();
  };
  return !has("pod") && (has("deployment") || has("statefulset") ||
                         has("leaderworkerset.x-k8s.io/leaderworkerset"));
}

void ManifestLoader::leave_pods_the_reconciler_skips() {
  const bool implicit = pod_integration_implicit();
  const std::string implicitly =
      "the pod integration is only implicitly enabled (integrations.frameworks lists a job kind "
      "whose pods it gates, not pod), and then Kueue's pod reconciler skips a Pod";
  std::erase_if(pending_, [&](const PendingWorkload& p) {
    const Workload& w = p.workload;
    if (w.source_kind != "Pod") return false;
    const auto parent = w.meta.annotations.find(kSuspendedByParentAnnotation);
    const auto managed = w.meta.labels.find("kueue.x-k8s.io/managed");
    const bool is_managed = managed != w.meta.labels.end() && managed->second == "true";
    std::string why;
    if (parent == w.meta.annotations.end() && !is_managed &&
        !owner_chains_.creatable("v1", "Pod", w.meta)) {
      // The webhook labels every Pod it gates: one the cluster has without the
      // label was never gated (created before Kueue, or where its webhook did
      // not run), and the reconciler skips it.
      out.warnings.push_back(Diagnostic{
          w.meta.pos, "metadata.labels",
          "Pod names a queue but has no kueue.x-k8s.io/managed: \"true\" label, so Kueue's pod "
          "webhook did not gate it and its pod reconciler skips it: it runs without Kueue; left "
          "out of admission"});
      return true;
    }
    if (parent == w.meta.annotations.end()) {
      if (!implicit) return false;
      why = fmt::format("{} without {}; list pod in integrations.frameworks to have Kueue admit it",
                        implicitly, kSuspendedByParentAnnotation);
    } else if (!is_managed &&
               !(p.owner && p.owner->kind == "StatefulSet" && p.owner->api_version == "apps/v1")) {
      // A Deployment's template carries the label; the StatefulSet and
      // LeaderWorkerSet pod reconcilers add it to Pods a StatefulSet controls.
      why =
          "Kueue's pod reconciler skips a Pod without the label kueue.x-k8s.io/managed: "
          "\"true\", which the webhook leaves to the parent that suspends it";
    } else if (implicit && parent->second.empty()) {
      why = fmt::format("{} whose {} is empty", implicitly, kSuspendedByParentAnnotation);
    } else {
      return false;
    }
    out.warnings.push_back(ignored_input(
        w.meta.pos, "metadata.labels", "Pod the pod webhook gates and Kueue never admits",
        fmt::format("Kueue's pod webhook gates this Pod (queue '{}'), but {}: it is never "
                    "admitted nor ungated, so once gated it never runs; kmc leaves it out",
                    w.queue_name, why)));
    return true;
  });
}

void ManifestLoader::explain_pods_of_unmanaged_job(const PendingWorkload& p) {
  const Workload& job = p.workload;
  explain_new_pods("batch/v1", "Job", job.meta.namespace_, job.meta.name, p.owner,
                   !job.queue_name.empty(), job.meta.pos);
}

void ManifestLoader::explain_new_pods(const std::string& api_version, const std::string& kind,
                                      const std::string& ns, const std::string& name,
                                      const std::optional<JobOwner>& owner, bool queued,
                                      const SourcePos& pos) {
  const JobPods& pods = job_pods_[position(pos)];
  if (pods.makes_no_pods || pods.suspended_by_parent || !listed("pod") ||
      namespace_management(ns, pos) != NamespaceManagement::Managed)
    return;
  // The pod webhook's walk from a new Pod: Kueue stops at a controller of a
  // kind it does not know (a DaemonSet); a queued one of an external
  // framework takes the Pods; past any other, the walk goes on above it.
  if (queued && owner_chains_.external(api_version, kind)) return;
  const OwnerWalk walk =
      owner_chains_.knows(api_version, kind)
          ? queued_ancestor(fmt::format("{}/{}/{}", ns, kind, name), ns, owner, pos)
          : OwnerWalk{};
  if (walk.top) return;
  std::string queue = pods.template_queue;
  if (queue.empty()) {
    if (!default_local_queue_exists(ns)) return;
    queue = "default";
  }
  const std::string fate =
      pod_integration_implicit()
          ? "gates them, and Kueue's pod reconciler skips them (the pod integration is only "
            "implicitly enabled, and no parent suspended them): those Pods never run"
          : "admits each of them as a Workload of its own, which kmc does not have unless the "
            "Pods are in the input";
  const std::string unless =
      walk.missing ? fmt::format(
                         " (unless an owner above {} {}, which is not in the input, names "
                         "a queue)",
                         walk.missing->kind, walk.missing->name)
                   : "";
  // At the template's queue-name label where it names one, else at the object.
  out.warnings.push_back(ignored_input(
      pods.template_queue_pos.value_or(pos),
      pods.template_queue_pos
          ? fmt::format("spec.template.metadata.labels[\"{}\"]", kQueueNameLabel)
          : std::string("metadata.labels"),
      fmt::format("Pods of a {} Kueue does not manage", kind),
      fmt::format("admission may differ because Kueue leaves this {} alone, but the Pods it "
                  "creates from now on get queue '{}' ({}) from the pod webhook{}, which {}",
                  kind, queue,
                  pods.template_queue.empty() ? "the namespace's LocalQueue default"
                                              : "its pod template names it",
                  unless, fate)));
}

}  // namespace kmc::model
