// v1 Pods with the queue-name label -> Workloads, as Kueue's pod integration
// builds them (pkg/controller/jobs/pod):
// - a lone Pod is a Workload of one pod set "main" of one pod;
// - the Pods of a group (kueue.x-k8s.io/pod-group-name, as an annotation or a
//   label, and the annotation kueue.x-k8s.io/pod-group-total-count) are one
//   Workload named after the group, annotated is-group-workload, with a pod set
//   per role (GenerateRoleHash's fields), built once all of its runnable pods
//   exist (constructGroupPodSets), or from the first of them with fast admission.
// A Pod whose owner is a job of another Kueue integration is that job's, not
// the pod integration's (the webhook's FindAncestorJobManagedByKueue).
// The Workload keeps the names the user wrote, as read_job.cpp does.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <limits>
#include <map>

#include "model/manifest_readers.hpp"

namespace kmc::model {

namespace {

inline constexpr const char* kPriorityClassLabel = "kueue.x-k8s.io/priority-class";
inline constexpr const char* kGroupNameLabel = "kueue.x-k8s.io/pod-group-name";
inline constexpr const char* kTotalCountAnnotation = "kueue.x-k8s.io/pod-group-total-count";
inline constexpr const char* kFastAdmissionAnnotation = "kueue.x-k8s.io/pod-group-fast-admission";
inline constexpr const char* kIsGroupAnnotation = "kueue.x-k8s.io/is-group-workload";
inline constexpr const char* kRoleHashAnnotation = "kueue.x-k8s.io/role-hash";
// A node's text with mapping keys sorted, as Go's json.Marshal writes a map.
std::string canonical(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "~";
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  std::string out;
  if (n.IsSequence()) {
    out = "[";
    for (const auto& item : n) out += canonical(item) + ",";
    return out + "]";
  }
  std::map<std::string, std::string> entries;
  for (const auto& e : n) entries[e.first.Scalar()] = canonical(e.second);
  out = "{";
  for (const auto& [k, v] : entries) out += k + ":" + v + ",";
  return out + "}";
}

// The fields of the pod spec GenerateRoleHash reads (SpecShape): pods alike in
// them are one role, one pod set. The kueue.x-k8s.io/role-hash annotation, where
// given, is the role.
std::string role_of(const YamlNode& object) {
  const YamlNode given = object["metadata"]["annotations"][kRoleHashAnnotation];
  if (given.present()) return "hash:" + given.str();
  const YamlNode spec = object["spec"];
  std::string key;
  for (const char* list : {"initContainers", "containers"}) {
    key += std::string(list) + "[";
    if (spec[list].is_seq())
      for (const auto& c : spec[list].items())
        key += canonical(c["resources"]["requests"].raw()) + canonical(c["ports"].raw()) + ";";
    key += "]";
  }
  for (const char* field : {"nodeSelector", "affinity", "tolerations", "runtimeClassName",
                            "priority", "topologySpreadConstraints", "overhead", "resourceClaims"})
    key += std::string(field) + "=" + canonical(spec[field].raw());
  if (spec["resources"].present())
    key += "resources=" + canonical(spec["resources"]["requests"].raw());
  return key;
}

std::string annotation_field(const char* key) {
  return fmt::format("metadata.annotations[\"{}\"]", key);
}
std::string label_field(const char* key) {
  return fmt::format("metadata.labels[\"{}\"]", key);
}

}  // namespace

PendingWorkload read_pod(const YamlNode& object, ReadContext& ctx) {
  PendingWorkload out = read_job_object(object, ctx, "Pod", object["spec"]);
  Workload& wl = out.workload;
  PodSet main;
  read_pod_spec(require(object, "spec"), main, ctx);
  wl.pod_sets.push_back(std::move(main));
  const YamlNode phase = object["status"]["phase"];
  const std::string ended = phase.present() ? phase.str() : "";
  const bool deleting = object["metadata"]["deletionTimestamp"].present();
  // isPodRunnableOrSucceeded: not Failed, and not being deleted before it got a node.
  out.pod_runnable = ended != "Failed" && !(deleting && !object["spec"]["nodeName"].present());
  out.pod_succeeded = ended == "Succeeded";
  // A lone Pod that has ended is Finished; one being deleted is finalized (Load).
  out.pod_done = ended == "Failed" || ended == "Succeeded" || deleting;
  out.pod_role = role_of(object);
  // GetPodGroupName: the annotation (WorkloadIdentifierAnnotations, on by
  // default), else the label. The pod webhook's validatePodGroupMetadata: a
  // name and a total count, both or neither, and a count above 0.
  std::string group;
  std::string group_field = label_field(kGroupNameLabel);
  if (auto it = wl.meta.annotations.find(kGroupNameLabel); it != wl.meta.annotations.end()) {
    group = it->second;
    group_field = annotation_field(kGroupNameLabel);
  } else if (auto label = wl.meta.labels.find(kGroupNameLabel); label != wl.meta.labels.end()) {
    group = label->second;
  }
  const YamlNode total = object["metadata"]["annotations"][kTotalCountAnnotation];
  const std::string detail =
      fmt::format("both the '{}' annotation and the '{}' label should be set",
                  kTotalCountAnnotation, kGroupNameLabel);
  if (group.empty()) {
    if (total.present())
      throw InputError(object.pos(), group_field,
                       "required: " + detail + " (Kueue's pod webhook rejects this Pod)");
    return out;
  }
  if (!total.present())
    throw InputError(object.pos(), annotation_field(kTotalCountAnnotation),
                     "required: " + detail + " (Kueue's pod webhook rejects this Pod)");
  const std::int64_t count = total.int64(std::numeric_limits<std::int32_t>::min(),
                                         std::numeric_limits<std::int32_t>::max());
  if (count < 1)
    total.fail(fmt::format("the group total count should be greater than zero, not {}", count));
  out.pod_group = group;
  out.pod_group_total = static_cast<std::int32_t>(count);
  const auto fast = wl.meta.annotations.find(kFastAdmissionAnnotation);
  out.pod_group_fast = fast != wl.meta.annotations.end() && fast->second == "true";
  // The group's Workload is the pods' when it is built: they carry its name.
  wl.meta.annotations[kIsGroupAnnotation] = "true";
  return out;
}

namespace {

// One group's members -> its Workload, or nullopt with a warning where Kueue
// builds none (yet): its members disagree, too few of them exist, or it is done.
std::optional<PendingWorkload> build_group(const std::string& key,
                                           std::vector<PendingWorkload>& members,
                                           Warnings& warnings) {
  const PendingWorkload& first = members.front();
  const auto left_out = [&](const PendingWorkload& at, const std::string& field,
                            const std::string& why) {
    warnings.push_back(Diagnostic{
        at.workload.meta.pos, field,
        fmt::format("group {}: {}; Kueue builds no Workload for it, so nothing is queued for it",
                    key, why)});
    return std::nullopt;
  };
  // validatePodGroupMetadata reads every pod but the Failed ones: a disagreement
  // is an UnretryableError, and the pods stay gated.
  const auto none = [](const std::string& v) { return v.empty() ? std::string("(none)") : v; };
  for (const auto& m : members) {
    if (!m.pod_runnable) continue;
    const auto names =
        fmt::format("pods {} and {}", first.workload.meta.name, m.workload.meta.name);
    if (m.pod_group_total != first.pod_group_total)
      return left_out(m, annotation_field(kTotalCountAnnotation),
                      fmt::format("{} have different total counts, {} and {}", names,
                                  first.pod_group_total, m.pod_group_total));
    if (m.workload.queue_name != first.workload.queue_name)
      return left_out(m, label_field(kQueueNameLabel),
                      fmt::format("{} have different queue names, {} and {}", names,
                                  first.workload.queue_name, m.workload.queue_name));
    // Kueue takes the priority of whichever pod it reconciles: not an order kmc knows.
    if (m.priority_class != first.priority_class ||
        m.kube_priority_class != first.kube_priority_class)
      throw InputError(m.workload.meta.pos,
                       m.priority_class != first.priority_class ? label_field(kPriorityClassLabel)
                                                                : "spec.priorityClassName",
                       fmt::format("{} of group {} have different priority classes, {} and {}: "
                                   "Kueue takes one pod's, in an order kmc cannot know",
                                   names, key, none(first.priority_class), none(m.priority_class)));
  }
  const auto total = static_cast<std::size_t>(first.pod_group_total);
  std::size_t succeeded = 0;
  std::vector<const PendingWorkload*> runnable;
  for (const auto& m : members) {
    succeeded += m.pod_succeeded;
    if (m.pod_runnable) runnable.push_back(&m);
  }
  if (succeeded >= total) {  // Finished: "Pods succeeded"
    warnings.push_back(Diagnostic{first.workload.meta.pos, "status.phase",
                                  fmt::format("group {}: all {} pods succeeded, so its Workload "
                                              "is Finished and holds no quota; left out",
                                              key, total)});
    return std::nullopt;
  }
  // sortActivePods keeps the oldest (after pods Kueue already manages, with its
  // finalizer, and pods no longer gated, which a dump's Workload stands for).
  std::stable_sort(runnable.begin(), runnable.end(), [](const auto* a, const auto* b) {
    return a->workload.meta.creation_order < b->workload.meta.creation_order;
  });
  const bool fast = std::any_of(members.begin(), members.end(),
                                [](const PendingWorkload& m) { return m.pod_group_fast; });
  if (runnable.empty() || (!fast && runnable.size() < total))
    return left_out(first, label_field(kGroupNameLabel),
                    fmt::format("{} of its {} pods can run (not Failed, not deleted before it "
                                "got a node); Kueue waits for all of them",
                                runnable.size(), total));
  if (runnable.size() > total) {
    warnings.push_back(Diagnostic{
        runnable[total]->workload.meta.pos, label_field(kGroupNameLabel),
        fmt::format("group {} has {} pod{} more than its total count {}: Kueue deletes the "
                    "newest, and kmc leaves them out",
                    key, runnable.size() - total, runnable.size() - total == 1 ? "" : "s", total)});
    runnable.resize(total);
  }
  PendingWorkload out = *runnable.front();
  Workload& wl = out.workload;
  wl.meta.name = first.pod_group;
  wl.meta.generate_name.clear();
  wl.pod_sets.clear();
  if (fast) {
    // constructGroupPodSetsFast: the first runnable pod, counted as the whole
    // group, and the Workload built as soon as that pod exists.
    wl.pod_sets.push_back(runnable.front()->workload.pod_sets.front());
    wl.pod_sets.back().count = first.pod_group_total;
    return out;
  }
  std::vector<std::string> roles;
  for (const auto* m : runnable) {
    const auto it = std::find(roles.begin(), roles.end(), m->pod_role);
    if (it != roles.end()) {
      ++wl.pod_sets[static_cast<std::size_t>(it - roles.begin())].count;
      continue;
    }
    roles.push_back(m->pod_role);
    wl.pod_sets.push_back(m->workload.pod_sets.front());
    wl.pod_sets.back().name = m->workload.meta.name;
    wl.pod_sets.back().count = 1;
  }
  if (wl.pod_sets.size() > kMaxPodSets)
    return left_out(first, label_field(kGroupNameLabel),
                    fmt::format("its pods have {} roles (unlike pod specs), more than {}",
                                wl.pod_sets.size(), kMaxPodSets));
  // The Workload is created once its last pod exists: its queue order starts then.
  for (const auto* m : runnable) {
    wl.meta.creation_order = std::max(wl.meta.creation_order, m->workload.meta.creation_order);
    wl.runtime_s = std::max(wl.runtime_s, m->workload.runtime_s);
  }
  return out;
}

}  // namespace

void group_pods(std::vector<PendingWorkload>& pending, Warnings& warnings) {
  // Members by "namespace/group", in the order the first of each was read.
  std::vector<std::string> order;
  std::map<std::string, std::vector<PendingWorkload>> groups;
  std::vector<PendingWorkload> rest;
  for (auto& p : pending) {
    if (p.workload.source_kind == "Pod" && p.pod_group.empty() && p.pod_done) {
      warnings.push_back(Diagnostic{p.workload.meta.pos, "status.phase",
                                    fmt::format("Pod {}/{} has ended or is being deleted: Kueue "
                                                "finishes its Workload, which holds no quota; "
                                                "left out",
                                                p.workload.meta.namespace_, p.workload.meta.name)});
      continue;
    }
    if (p.pod_group.empty()) {
      rest.push_back(std::move(p));
      continue;
    }
    const std::string key = p.workload.meta.namespace_ + "/" + p.pod_group;
    auto& members = groups[key];
    if (members.empty()) order.push_back(key);
    members.push_back(std::move(p));
  }
  pending = std::move(rest);
  for (const auto& key : order)
    if (auto built = build_group(key, groups[key], warnings)) {
      built->pod_group.clear();
      pending.push_back(std::move(*built));
    }
}

}  // namespace kmc::model
