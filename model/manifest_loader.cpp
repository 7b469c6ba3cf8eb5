// One cluster's manifests: files and folders of YAML, as `kubectl get -o yaml`
// prints them (multi-document files, `kind: List` dumps), into ClusterManifests.
//
// Reading is two-phase: every object is read and checked on its own first,
// then names that refer across objects and files are resolved (priority
// classes here; queue and flavor references in validate_cluster_references,
// because a lone cluster dump may legitimately be incomplete).
#include "model/manifest_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <utility>

#include "model/assert.hpp"
#include "model/scenario.hpp"

namespace kmc::model {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStdinName = "<stdin>";
constexpr const char* kIsGroup = "kueue.x-k8s.io/is-group-workload";

bool is_kueue_version(const std::string& v) {
  return v == "kueue.x-k8s.io/v1beta1" || v == "kueue.x-k8s.io/v1beta2";
}

// Files of a folder: *.yaml and *.yml, sorted by name so load order (and so
// creation order without timestamps) does not depend on the file system.
std::vector<std::string> yaml_files(const std::string& path) {
  if (path == "-") return {path};  // standard input
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return {path};
  if (!fs::is_directory(path, ec)) throw InputError({path, 0}, "", "no such file or folder");
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(path)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml"))
      names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> files;
  for (const auto& name : names) files.push_back((fs::path(path) / name).string());
  return files;
}

// Kueue scales a pod's requests by its pod set's count and sums the pod sets
// (TotalRequests), saturating at MaxInt64: such a workload never fits
// (ExceedsMaxQuota). kmc holds these totals in int64 and would wrap, so it
// refuses a total past 9.2e18 of Kueue's units (milli-cpu, bytes) as bad input.
void check_total_requests(const Workload& w) {
  std::map<std::string, std::int64_t> total;
  for (std::size_t i = 0; i < w.pod_sets.size(); ++i) {
    const PodSet& ps = w.pod_sets[i];
    for (const auto& [r, q] : ps.requests) {
      std::int64_t scaled = 0;
      if (__builtin_mul_overflow(q.kueue_value(r), std::int64_t{ps.count}, &scaled) ||
          __builtin_add_overflow(total[r], scaled, &total[r]))
        throw InputError(w.meta.pos, fmt::format("spec.podSets[{}].count", i),
                         fmt::format("{} pods' {} requests add up to more than kmc holds "
                                     "(9.2e18 of Kueue's units); Kueue would find no flavor "
                                     "with room for them",
                                     ps.count, r));
    }
  }
}

}  // namespace

void ManifestLoader::load_file(const std::string& path) {
  for (const auto& document : load_yaml_file(path, path)) load_document(document);
}

void ManifestLoader::load_stdin() {
  const std::string text{std::istreambuf_iterator<char>(std::cin), {}};
  for (const auto& document : parse_yaml_text(text, kStdinName, 0)) load_document(document);
}

void ManifestLoader::finish() {
  default_local_queues();
  read_jobsets();
  leave_parts_to_their_jobs();
  explain_pods_of_other_controllers();
  leave_unmanaged_kinds();
  explain_ignored_jobs();
  drop_owners_of_workloads();
  leave_unmanaged_namespaces();
  leave_pods_the_reconciler_skips();
  name_generated_workloads();
  group_pods(pending_, out.warnings);
  for (const auto& p : pending_)  // a group's Workload, named as its group, is one
    if (p.workload.source_kind == "Pod" && p.workload.meta.annotations.contains(kIsGroup))
      check_unique(p.workload.meta, "Workload");
  resolve_priorities(pending_, out.priority_classes, kube_priority_classes_,
                     out.configuration.feature_gates,
                     [&](const std::optional<JobOwner>& owner) { return owner_managed(owner); });
  // Only now: the Configuration may come after the workloads in load order.
  for (auto& p : pending_) apply_priority_boost(p, out.configuration.feature_gates, out.warnings);
  for (auto& p : pending_) apply_resource_settings(out.configuration.resources, p.workload);
  for (const auto& p : pending_) check_total_requests(p.workload);
  for (auto& p : pending_) out.workloads.push_back(std::move(p.workload));
}

void ManifestLoader::load_document(const YamlNode& document) {
  if (!document.is_map())
    document.fail("expected a Kubernetes object (a mapping with apiVersion and kind)");
  if (document["kind"].present() && document["kind"].str() == "List") {
    // kubectl wraps `get` results of several objects in a v1 List.
    check_keys(document, {.modeled = {"apiVersion", "kind", "items"}, .silent = {"metadata"}},
               out.warnings);
    for (const auto& item : document["items"].items()) load_object(item);
    return;
  }
  load_object(document);
}

void ManifestLoader::load_object(const YamlNode& object) {
  const std::size_t before = out.warnings.size();
  load_object_of_any_kind(object);
  const YamlNode kind_node = object["kind"];
  std::string kind = kind_node.present() ? kind_node.str() : "";
  if (kind == "ConfigMap") kind = "Configuration";  // kueue-manager-config holds one
  for (std::size_t i = before; i < out.warnings.size(); ++i) {
    Diagnostic& w = out.warnings[i];
    if (!w.concept_.empty() && !kind.empty()) w.concept_ = kind + "." + w.concept_;
  }
}

void ManifestLoader::load_object_of_any_kind(const YamlNode& object) {
  if (!object.is_map())
    object.fail("expected a Kubernetes object (a mapping with apiVersion and kind)");
  ReadContext ctx{out.warnings, require(object, "apiVersion").str(), load_index_++};
  const std::string kind = require(object, "kind").str();
  const std::string& version = ctx.api_version;
  if (version.starts_with("kueue.x-k8s.io/")) return load_kueue_object(object, kind, ctx);
  if (version.starts_with("config.kueue.x-k8s.io/") && kind == "Configuration") {
    if (version != "config.kueue.x-k8s.io/v1beta1" && version != "config.kueue.x-k8s.io/v1beta2")
      object["apiVersion"].fail(fmt::format(
          "unsupported apiVersion '{}'; kmc reads config.kueue.x-k8s.io/v1beta1 and v1beta2",
          version));
    return set_configuration(object, read_configuration(object, ctx, &integrations_));
  }
  if (auto owner = chain_object(object, kind, version)) owner_chains_.add(std::move(*owner));
  if (version == "batch/v1" && kind == "Job") return load_job(object, ctx);
  if (version == "v1" && kind == "Pod") return load_pod(object, ctx);
  if (version == "jobset.x-k8s.io/v1alpha2" && kind == "JobSet") return load_jobset(object, ctx);
  if (version == "scheduling.k8s.io/v1" && kind == "PriorityClass")
    return add(kube_priority_classes_, read_kube_priority_class(object, ctx), kind);
  if (version == "v1" && kind == "Namespace")
    return add(out.namespaces, read_namespace(object, ctx), kind);
  if (version == "v1" && kind == "ConfigMap") {
    if (auto config = read_config_map(object, ctx, &integrations_))
      return set_configuration(object, std::move(*config));
  }
  ignore(object, kind, fmt::format("kmc does not model kind {} ({}); ignored", kind, version));
}

void ManifestLoader::ignore(const YamlNode& object, const std::string& kind, std::string message) {
  out.warnings.push_back(Diagnostic{object.pos(), "kind", std::move(message)});
  const YamlNode meta = object["metadata"];
  const auto scalar = [](const YamlNode& n) {
    return n.present() && n.raw().IsScalar() ? n.str() : std::string();
  };
  // With generateName only, no Workload can name it as owner, but it is still queued.
  std::string name = scalar(meta["name"]);
  if (name.empty()) name = scalar(meta["generateName"]) + "*";
  std::string ns = scalar(meta["namespace"]);
  if (ns.empty()) ns = "default";
  ignored_.push_back({.key = ns + "/" + kind + "/" + name,
                      .api_version = scalar(object["apiVersion"]),
                      .kind = kind,
                      .ns = ns,
                      .queued = !scalar(meta["labels"][kQueueNameLabel]).empty(),
                      .warning = out.warnings.size() - 1,
                      .readable = false,
                      .framework = integration_of(scalar(object["apiVersion"]), kind),
                      .creatable = !meta["uid"].present(),
                      .owner = job_owner(object)});
  note_pod_controller(object, kind, ns, name);
}

void ManifestLoader::load_kueue_object(const YamlNode& object, const std::string& kind,
                                       ReadContext& ctx) {
  static const char* const modeled[] = {"ResourceFlavor",
                                        "ClusterQueue",
                                        "Cohort",
                                        "LocalQueue",
                                        "WorkloadPriorityClass",
                                        "AdmissionCheck",
                                        "ProvisioningRequestConfig",
                                        "MultiKueueConfig",
                                        "MultiKueueCluster",
                                        "Workload"};
  const bool known = std::find(std::begin(modeled), std::end(modeled), kind) != std::end(modeled);
  if (!known) return ignore(object, kind, fmt::format("kmc does not model kind {}; ignored", kind));
  if (!is_kueue_version(ctx.api_version))
    object["apiVersion"].fail(fmt::format(
        "unsupported apiVersion '{}' for {}; kmc reads kueue.x-k8s.io/v1beta1 and v1beta2",
        ctx.api_version, kind));
  if (kind == "ResourceFlavor")
    add(out.resource_flavors, read_resource_flavor(object, ctx), kind);
  else if (kind == "ClusterQueue")
    add(out.cluster_queues, read_cluster_queue(object, ctx), kind);
  else if (kind == "Cohort")
    add(out.cohorts, read_cohort(object, ctx), kind);
  else if (kind == "LocalQueue")
    add(out.local_queues, read_local_queue(object, ctx), kind);
  else if (kind == "WorkloadPriorityClass")
    add(out.priority_classes, read_priority_class(object, ctx), kind);
  else if (kind == "AdmissionCheck")
    add(out.admission_checks, read_admission_check(object, ctx), kind);
  else if (kind == "ProvisioningRequestConfig")
    add(out.provisioning_request_configs, read_provisioning_config(object, ctx), kind);
  else if (kind == "MultiKueueConfig")
    add(out.multikueue_configs, read_multikueue_config(object, ctx), kind);
  else if (kind == "MultiKueueCluster")
    add(out.multikueue_clusters, read_multikueue_cluster(object, ctx), kind);
  else if (kind == "Workload")
    add_workload(read_workload(object, ctx), "Workload");
}

void ManifestLoader::check_unique(const ObjectMeta& meta, const std::string& kind) {
  const std::string key = kind + "/" + meta.namespace_ + "/" + meta.name;
  auto [it, inserted] = seen_.emplace(key, meta.pos);
  if (inserted) return;
  const std::string name = meta.namespace_.empty() ? meta.name : meta.namespace_ + "/" + meta.name;
  throw InputError(meta.pos, "metadata.name",
                   fmt::format("duplicate {} '{}'; first defined at {}:{}", kind, name,
                               it->second.file, it->second.line));
}

void ManifestLoader::name_generated(ObjectMeta& meta, const std::string& kind) {
  KMC_ASSERT(meta.name.empty() && !meta.generate_name.empty());
  for (int n = 1;; ++n) {
    const std::string name = meta.generate_name + std::to_string(n);
    if (seen_.count(kind + "/" + meta.namespace_ + "/" + name) > 0) continue;
    if (unmanaged_names_.count(meta.namespace_ + "/" + name) > 0 && kind == "Job") continue;
    meta.name = name;
    break;
  }
  check_unique(meta, kind);
}

void ManifestLoader::add_workload(PendingWorkload w, const std::string& kind) {
  // Jobs and Workloads share one list; a Job and a Workload of one name are
  // distinct objects in Kubernetes, so uniqueness is per source kind.
  if (!w.workload.meta.name.empty()) check_unique(w.workload.meta, kind);
  pending_.push_back(std::move(w));
}

void ManifestLoader::set_configuration(const YamlNode& object, KueueConfiguration config) {
  if (config_pos_)
    throw InputError(object.pos(), "kind",
                     fmt::format("a second Kueue Configuration; first defined at {}:{}",
                                 config_pos_->file, config_pos_->line));
  config_pos_ = object.pos();
  owner_chains_.set_external_frameworks(integrations_.external_frameworks);
  config.pos = object.pos();
  out.configuration = std::move(config);
}

void ManifestLoader::name_generated_workloads() {
  for (auto& p : pending_)
    if (p.workload.meta.name.empty()) name_generated(p.workload.meta, p.workload.source_kind);
  for (auto& job : out.unmanaged_jobs) {
    if (!job.meta.name.empty()) continue;
    name_generated(job.meta, "Job");
    unmanaged_names_.insert(job.meta.namespace_ + "/" + job.meta.name);
  }
}

std::map<std::string, std::size_t> ManifestLoader::owners_of_workloads() const {
  std::map<std::string, std::size_t> owner_to_workload;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    const Workload& w = pending_[i].workload;
    if (w.source_kind != "Workload") continue;
    for (const auto& o : w.meta.owners)
      owner_to_workload.emplace(w.meta.namespace_ + "/" + o.kind + "/" + o.name, i);
  }
  return owner_to_workload;
}

void ManifestLoader::explain_ignored_jobs() {
  const auto owner_to_workload = owners_of_workloads();
  for (auto& ignored : ignored_) {
    const SourcePos pos = out.warnings[ignored.warning].pos;
    // Where Kueue does not manage jobs, it queues none, but for the kinds
    // whose reconcilers read no managedJobsNamespaceSelector: the StatefulSet
    // and LeaderWorkerSet ones (WorkloadShouldBeSuspended needs only the queue name).
    // Of the other kinds, Kueue manages only an external framework's, whose own
    // controller makes its Workload where it likes.
    const bool external = owner_chains_.external(ignored.api_version, ignored.kind);
    if (!ignored.framework && !external) ignored.queued = false;
    const bool reads_no_selector =
        ignored.kind == "StatefulSet" || ignored.kind == "LeaderWorkerSet" || external;
    if (ignored.queued && !reads_no_selector &&
        namespace_management(ignored.ns, pos) != NamespaceManagement::Managed)
      ignored.queued = false;
    // Nor where its Configuration leaves the kind's integration out.
    if (config_pos_ && ignored.framework && !listed(*ignored.framework) && !external)
      ignored.queued = false;
    // One that names no queue, LocalQueue defaulting may queue (its integration's webhook).
    const bool defaulted =
        !ignored.queued && ignored.creatable && ignored.framework &&
        default_local_queue_applies(ignored.ns, ignored.owner, *ignored.framework, pos);
    // A part of a queued ancestor's job gets no Workload of its own: nothing is missing.
    std::optional<QueuedAncestor> part;
    if ((ignored.queued || defaulted) && ignored.framework && listed(*ignored.framework))
      part = queued_ancestor(ignored.key, ignored.ns, ignored.owner, pos).top;
    Diagnostic& w = out.warnings[ignored.warning];  // only now: those may add warnings
    if (part) {
      const std::string top = fmt::format("{} {}", part->owner.kind, part->owner.name);
      w.message +=
          fmt::format("; Kueue admits it as part of {}{}", top,
                      part->chain == top ? "" : fmt::format(" (owned by {})", part->chain));
      if (part->assumed && !owner_to_workload.contains(fmt::format(
                               "{}/{}/{}", ignored.ns, part->owner.kind, part->owner.name)))
        w = uncounted_ancestor(pos, w.message, *part);
    } else if (auto it = owner_to_workload.find(ignored.key); it != owner_to_workload.end()) {
      const Workload& workload = pending_[it->second].workload;
      w.message +=
          fmt::format("; its Workload {}/{} ({}:{}) stands for it", workload.meta.namespace_,
                      workload.meta.name, workload.meta.pos.file, workload.meta.pos.line);
    } else if (ignored.queued && external) {
      w.message += external_workload_missing(ignored.kind);
      w.may_change_answer = true;
      w.concept_ = ignored.kind + " of an external framework and no Workload";
    } else if (ignored.queued && ignored.readable) {
      w.message += fmt::format(
          ": admission may differ because Kueue's shipped Configuration lists {}s, and then "
          "Kueue queues this one (it has the {} label): add the cluster's Configuration "
          "(ConfigMap kueue-manager-config) to the input",
          ignored.kind, kQueueNameLabel);
      w.may_change_answer = true;
      w.concept_ = ignored.kind + " with a queue name and no Configuration";
    } else if (ignored.queued) {
      w.message += fmt::format(
          ": admission may differ because Kueue queues this {} (it has the {} label) and "
          "kmc counts it only through its Workload, which is not in the input",
          ignored.kind, kQueueNameLabel);
      w.may_change_answer = true;
      w.concept_ = ignored.kind + " with a queue name and no Workload";
    } else if (defaulted) {
      w.message +=
          ": admission may differ because Kueue's webhook gives it its namespace's LocalQueue "
          "'default' and queues it, and kmc counts it only through its Workload, which is not in "
          "the input";
      w.may_change_answer = true;
      w.concept_ = ignored.kind + " given LocalQueue 'default' and no Workload";
    }
  }
}

void ManifestLoader::drop_owners_of_workloads() {
  const auto owner_to_workload = owners_of_workloads();
  if (owner_to_workload.empty()) return;
  const auto owned = [&](Workload& job) {
    const std::string& kind = job.source_kind;
    if (kind == "Workload" || job.meta.name.empty()) return false;
    auto it = owner_to_workload.find(job.meta.namespace_ + "/" + kind + "/" + job.meta.name);
    if (it == owner_to_workload.end()) return false;
    Workload& workload = pending_[it->second].workload;
    // The runtime annotation is kmc's own and usually written on the Job.
    if (workload.runtime_s == 0) workload.runtime_s = job.runtime_s;
    out.warnings.push_back(Diagnostic{
        job.meta.pos, "metadata.name",
        fmt::format("{} {}/{} is owned by Workload {}/{} ({}:{}); the Workload stands for it "
                    "and the {} is dropped, so the job is queued once",
                    kind, job.meta.namespace_, job.meta.name, workload.meta.namespace_,
                    workload.meta.name, workload.meta.pos.file, workload.meta.pos.line, kind)});
    return true;
  };
  // Marked first, erased after: erasing moves elements the map indexes.
  std::vector<bool> drop(pending_.size(), false);
  for (std::size_t i = 0; i < pending_.size(); ++i) drop[i] = owned(pending_[i].workload);
  std::size_t i = 0;
  std::erase_if(pending_, [&](const PendingWorkload&) { return drop[i++]; });
  std::erase_if(out.unmanaged_jobs, owned);
}

ClusterManifests load_cluster_manifests(const std::vector<std::string>& paths) {
  ManifestLoader loader;
  loader.out.dir = paths.size() == 1 && paths.front() != "-" ? paths.front() : "";
  if (std::count(paths.begin(), paths.end(), "-") > 1)
    throw InputError({kStdinName, 0}, "", "standard input ('-') can be read only once");
  for (const auto& path : paths) {
    if (path == "-") {
      loader.load_stdin();
      continue;
    }
    for (const auto& file : yaml_files(path)) loader.load_file(file);
  }
  loader.finish();
  return std::move(loader.out);
}

}  // namespace kmc::model
