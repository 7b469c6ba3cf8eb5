// One cluster's manifests: files and folders of YAML, as `kubectl get -o yaml`
// prints them (multi-document files, `kind: List` dumps), into ClusterManifests.
//
// Reading is two-phase: every object is read and checked on its own first,
// then names that refer across objects and files are resolved (priority
// classes here; queue and flavor references in validate_cluster_references,
// because a lone cluster dump may legitimately be incomplete).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "model/manifest_readers.hpp"
#include "model/scenario.hpp"

namespace kmc::model {
namespace {

namespace fs = std::filesystem;

bool is_kueue_version(const std::string& v) {
  return v == "kueue.x-k8s.io/v1beta1" || v == "kueue.x-k8s.io/v1beta2";
}

class ManifestLoader {
 public:
  ClusterManifests out;

  void load_file(const std::string& path) {
    for (const auto& document : load_yaml_file(path, path)) load_document(document);
  }

  void finish() {
    resolve_priorities();
    for (auto& p : pending_) out.workloads.push_back(std::move(p.workload));
  }

 private:
  void load_document(const YamlNode& document) {
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

  void load_object(const YamlNode& object) {
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
      return set_configuration(object, read_configuration(object, ctx));
    }
    if (version == "batch/v1" && kind == "Job") return load_job(object, ctx);
    if (version == "v1" && kind == "Namespace")
      return add(out.namespaces, read_namespace(object, ctx), kind);
    if (version == "v1" && kind == "ConfigMap") {
      if (auto config = read_config_map(object, ctx))
        return set_configuration(object, std::move(*config));
    }
    out.warnings.push_back(
        Diagnostic{object.pos(), "kind",
                   fmt::format("kmc does not model kind {} ({}); ignored", kind, version)});
  }

  void load_kueue_object(const YamlNode& object, const std::string& kind, ReadContext& ctx) {
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
    if (!known) {
      out.warnings.push_back(Diagnostic{object.pos(), "kind",
                                        fmt::format("kmc does not model kind {}; ignored", kind)});
      return;
    }
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

  void load_job(const YamlNode& object, ReadContext& ctx) {
    const YamlNode label = object["metadata"]["labels"]["kueue.x-k8s.io/queue-name"];
    if (!label.present()) {
      // Kueue's default manageJobsWithoutQueueName=false leaves such Jobs alone.
      out.warnings.push_back(Diagnostic{
          object.pos(), "metadata.labels",
          "Job has no kueue.x-k8s.io/queue-name label; Kueue does not manage it; ignored"});
      out.unmanaged_jobs.push_back(read_job(object, ctx).workload);  // the scheduler still runs it
      return;
    }
    add_workload(read_job(object, ctx), "Job");
  }

  // Duplicates are an error naming both places: Kubernetes keeps one object
  // per name, so a second one means two files disagree.
  void check_unique(const ObjectMeta& meta, const std::string& kind) {
    const std::string key = kind + "/" + meta.namespace_ + "/" + meta.name;
    auto [it, inserted] = seen_.emplace(key, meta.pos);
    if (inserted) return;
    const std::string name =
        meta.namespace_.empty() ? meta.name : meta.namespace_ + "/" + meta.name;
    throw InputError(meta.pos, "metadata.name",
                     fmt::format("duplicate {} '{}'; first defined at {}:{}", kind, name,
                                 it->second.file, it->second.line));
  }

  template <class T>
  void add(std::vector<T>& list, T object, const std::string& kind) {
    check_unique(object.meta, kind);
    list.push_back(std::move(object));
  }

  void add_workload(PendingWorkload w, const std::string& kind) {
    // Jobs and Workloads share one list; a Job and a Workload of one name are
    // distinct objects in Kubernetes, so uniqueness is per source kind.
    check_unique(w.workload.meta, kind);
    pending_.push_back(std::move(w));
  }

  void set_configuration(const YamlNode& object, KueueConfiguration config) {
    if (config_pos_)
      throw InputError(object.pos(), "kind",
                       fmt::format("a second Kueue Configuration; first defined at {}:{}",
                                   config_pos_->file, config_pos_->line));
    config_pos_ = object.pos();
    config.pos = object.pos();
    out.configuration = std::move(config);
  }

  // Kueue copies the WorkloadPriorityClass value into spec.priority when it
  // creates the Workload; we do the same once every file is read.
  void resolve_priorities() {
    std::map<std::string, std::int32_t> values;
    for (const auto& pc : out.priority_classes) values[pc.meta.name] = pc.value;
    for (auto& p : pending_) {
      if (p.priority_class.empty() || p.priority_explicit) continue;
      auto it = values.find(p.priority_class);
      if (it == values.end()) {
        Diagnostic d = *p.where;
        d.message = fmt::format("WorkloadPriorityClass '{}' not found", p.priority_class);
        throw InputError(d);
      }
      p.workload.priority = it->second;
    }
  }

  std::vector<PendingWorkload> pending_;
  std::map<std::string, SourcePos> seen_;
  std::optional<SourcePos> config_pos_;
  std::int64_t load_index_ = 0;
};

// Files of a folder: *.yaml and *.yml, sorted by name so load order (and so
// creation order without timestamps) does not depend on the file system.
std::vector<std::string> yaml_files(const std::string& path) {
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

}  // namespace

ClusterManifests load_cluster_manifests(const std::vector<std::string>& paths) {
  ManifestLoader loader;
  loader.out.dir = paths.size() == 1 ? paths.front() : "";
  for (const auto& path : paths)
    for (const auto& file : yaml_files(path)) loader.load_file(file);
  loader.finish();
  return std::move(loader.out);
}

}  // namespace kmc::model
