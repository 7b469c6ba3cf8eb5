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
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <utility>

#include "model/assert.hpp"
#include "model/manifest_readers.hpp"
#include "model/scenario.hpp"

namespace kmc::model {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStdinName = "<stdin>";
constexpr const char* kQueueNameLabel = "kueue.x-k8s.io/queue-name";
constexpr const char* kIsGroup = "kueue.x-k8s.io/is-group-workload";

bool is_kueue_version(const std::string& v) {
  return v == "kueue.x-k8s.io/v1beta1" || v == "kueue.x-k8s.io/v1beta2";
}

class ManifestLoader {
 public:
  ClusterManifests out;

  void load_file(const std::string& path) {
    for (const auto& document : load_yaml_file(path, path)) load_document(document);
  }

  // `kubectl get -o yaml ... | kmc admit -`: standard input, shown as <stdin>.
  void load_stdin() {
    const std::string text{std::istreambuf_iterator<char>(std::cin), {}};
    for (const auto& document : parse_yaml_text(text, kStdinName, 0)) load_document(document);
  }

  void finish() {
    read_jobsets();
    leave_parts_to_their_jobs();
    leave_unmanaged_kinds();
    explain_ignored_jobs();
    drop_owners_of_workloads();
    name_generated_workloads();
    group_pods(pending_, out.warnings);
    for (const auto& p : pending_)  // a group's Workload, named as its group, is one
      if (p.workload.source_kind == "Pod" && p.workload.meta.annotations.contains(kIsGroup))
        check_unique(p.workload.meta, "Workload");
    resolve_priorities(pending_, out.priority_classes, kube_priority_classes_,
                       out.configuration.feature_gates);
    // Only now: the Configuration may come after the workloads in load order.
    for (auto& p : pending_) apply_priority_boost(p, out.configuration.feature_gates, out.warnings);
    for (auto& p : pending_) apply_resource_settings(out.configuration.resources, p.workload);
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

  // Concepts are named with the kind they belong to ("ClusterQueue.spec.admissionScope"):
  // check_keys knows the path, only the loader knows whose.
  void load_object(const YamlNode& object) {
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

  void load_object_of_any_kind(const YamlNode& object) {
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
      return set_configuration(object, read_configuration(object, ctx, &frameworks_));
    }
    if (version == "batch/v1" && kind == "Job") return load_job(object, ctx);
    if (version == "v1" && kind == "Pod") return load_pod(object, ctx);
    if (version == "jobset.x-k8s.io/v1alpha2" && kind == "JobSet") return load_jobset(object, ctx);
    if (version == "scheduling.k8s.io/v1" && kind == "PriorityClass")
      return add(kube_priority_classes_, read_kube_priority_class(object, ctx), kind);
    if (version == "v1" && kind == "Namespace")
      return add(out.namespaces, read_namespace(object, ctx), kind);
    if (version == "v1" && kind == "ConfigMap") {
      if (auto config = read_config_map(object, ctx, &frameworks_))
        return set_configuration(object, std::move(*config));
    }
    ignore(object, kind, fmt::format("kmc does not model kind {} ({}); ignored", kind, version));
  }

  // A job of an integration kmc does not read (JobSet, RayJob, a Pod, ...)
  // is only missing from the answer when Kueue queues it (it has the
  // queue-name label) and its Workload is not in the input: finish() tells.
  void ignore(const YamlNode& object, const std::string& kind, std::string message) {
    out.warnings.push_back(Diagnostic{object.pos(), "kind", std::move(message)});
    const YamlNode meta = object["metadata"];
    const auto scalar = [](const YamlNode& n) {
      return n.present() && n.raw().IsScalar() ? n.str() : std::string();
    };
    // With generateName only, no Workload can name it as owner, but it is still queued.
    std::string name = scalar(meta["name"]);
    if (name.empty()) name = scalar(meta["generateName"]) + "*";
    const std::string ns = scalar(meta["namespace"]);
    ignored_.push_back({(ns.empty() ? "default" : ns) + "/" + kind + "/" + name, kind,
                        meta["labels"][kQueueNameLabel].present(), out.warnings.size() - 1});
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
    if (!known)
      return ignore(object, kind, fmt::format("kmc does not model kind {}; ignored", kind));
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
    const YamlNode label = object["metadata"]["labels"][kQueueNameLabel];
    if (!label.present()) {
      // Kueue's default manageJobsWithoutQueueName=false leaves such Jobs alone.
      out.warnings.push_back(Diagnostic{
          object.pos(), "metadata.labels",
          "Job has no kueue.x-k8s.io/queue-name label; Kueue does not manage it; ignored"});
      out.unmanaged_jobs.push_back(read_job(object, ctx).workload);  // the scheduler still runs it
      const ObjectMeta& meta = out.unmanaged_jobs.back().meta;
      if (!meta.name.empty()) unmanaged_names_.insert(meta.namespace_ + "/" + meta.name);
      return;
    }
    PendingWorkload job = read_job(object, ctx);
    job.owner = job_owner(object);
    add_workload(std::move(job), "Job");
  }

  void load_pod(const YamlNode& object, ReadContext& ctx) {
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

  bool listed(const std::string& framework) const {
    return std::find(frameworks_.begin(), frameworks_.end(), framework) != frameworks_.end();
  }

  void leave_parts_to_their_jobs() {
    std::map<std::string, bool> queued_jobsets;  // "ns/name" -> has the queue-name label
    for (const auto& jobset : jobsets_) {
      const YamlNode meta = jobset.object["metadata"];
      if (!meta["name"].present()) continue;
      const std::string ns = meta["namespace"].present() ? meta["namespace"].str() : "default";
      queued_jobsets[ns + "/" + meta["name"].str()] = meta["labels"][kQueueNameLabel].present();
    }
    model::leave_parts_to_their_jobs(pending_, frameworks_, queued_jobsets, out.warnings);
  }

  // A JobSet is read once the Configuration, which may come later in load
  // order, says whether Kueue manages JobSets: without the integration Kueue
  // leaves it alone, however it is written.
  void load_jobset(const YamlNode& object, ReadContext& ctx) {
    jobsets_.push_back({object, ctx.api_version, ctx.load_index});
  }

  void read_jobsets() {
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
      if (!object["metadata"]["labels"][kQueueNameLabel].present()) {
        // Kueue's default manageJobsWithoutQueueName=false leaves such JobSets alone.
        out.warnings.push_back(Diagnostic{
            object.pos(), "metadata.labels",
            "JobSet has no kueue.x-k8s.io/queue-name label; Kueue does not manage it; ignored"});
        continue;
      }
      ReadContext ctx{out.warnings, api_version, load_index};
      add_workload(read_jobset(object, ctx), "JobSet");
    }
  }

  std::string unmanaged_kind_message(const std::string& kind, const std::string& framework) const {
    const std::string where =
        config_pos_ ? fmt::format("the Configuration ({}:{}) does not list it", config_pos_->file,
                                  config_pos_->line)
                    : "there is no Configuration, and Kueue's default lists batch/job only";
    return fmt::format(
        "Kueue manages a {} only with the {} integration (integrations.frameworks), and {}; "
        "ignored",
        kind, framework, where);
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

  // generateName + the first counter (1, 2, ...) that no other object of the
  // kind in that namespace has: deterministic in load order, and stable as
  // long as the input is. Kubernetes would append 5 random characters.
  void name_generated(ObjectMeta& meta, const std::string& kind) {
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

  template <class T>
  void add(std::vector<T>& list, T object, const std::string& kind) {
    // Jobs and Workloads are named once every name is known (finish); other
    // kinds at once, against the names read so far.
    if (object.meta.name.empty())
      name_generated(object.meta, kind);
    else
      check_unique(object.meta, kind);
    list.push_back(std::move(object));
  }

  void add_workload(PendingWorkload w, const std::string& kind) {
    // Jobs and Workloads share one list; a Job and a Workload of one name are
    // distinct objects in Kubernetes, so uniqueness is per source kind.
    if (!w.workload.meta.name.empty()) check_unique(w.workload.meta, kind);
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

  void name_generated_workloads() {
    for (auto& p : pending_)
      if (p.workload.meta.name.empty()) name_generated(p.workload.meta, p.workload.source_kind);
    for (auto& job : out.unmanaged_jobs) {
      if (!job.meta.name.empty()) continue;
      name_generated(job.meta, "Job");
      unmanaged_names_.insert(job.meta.namespace_ + "/" + job.meta.name);
    }
  }

  // "ns/Kind/name" of each Workload's owners -> the Workload's index in pending_.
  std::map<std::string, std::size_t> owners_of_workloads() const {
    std::map<std::string, std::size_t> owner_to_workload;
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      const Workload& w = pending_[i].workload;
      if (w.source_kind != "Workload") continue;
      for (const auto& o : w.meta.owners)
        owner_to_workload.emplace(w.meta.namespace_ + "/" + o.kind + "/" + o.name, i);
    }
    return owner_to_workload;
  }

  void explain_ignored_jobs() {
    const auto owner_to_workload = owners_of_workloads();
    for (const auto& ignored : ignored_) {
      Diagnostic& w = out.warnings[ignored.warning];
      if (auto it = owner_to_workload.find(ignored.key); it != owner_to_workload.end()) {
        const Workload& workload = pending_[it->second].workload;
        w.message +=
            fmt::format("; its Workload {}/{} ({}:{}) stands for it", workload.meta.namespace_,
                        workload.meta.name, workload.meta.pos.file, workload.meta.pos.line);
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
      }
    }
  }

  // A dump of Jobs and Workloads holds each job twice: the Job, and the
  // Workload Kueue created for it (ownerReferences names the Job). Kueue
  // queues the Workload only, so it stands for its owner, with its status;
  // the owner is dropped with one note naming both.
  void drop_owners_of_workloads() {
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

  // Kueue manages Pods and Jobs only where integrations.frameworks lists them
  // ("pod", "batch/job"); its default lists batch/job only. The shipped
  // manifests' kueue-manager-config lists both, and JobSets (read_jobsets).
  void leave_unmanaged_kinds() {
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

  std::vector<PendingWorkload> pending_;
  std::vector<KubePriorityClass> kube_priority_classes_;
  struct DeferredJobSet {
    YamlNode object;
    std::string api_version;
    std::int64_t load_index = 0;
  };
  std::vector<DeferredJobSet> jobsets_;
  std::vector<std::string> frameworks_ = {"batch/job"};
  std::map<std::string, SourcePos> seen_;
  std::set<std::string> unmanaged_names_;  // "ns/name" of Jobs Kueue does not manage
  struct IgnoredObject {
    std::string key;  // "ns/Kind/name"
    std::string kind;
    bool queued = false;      // has the queue-name label: Kueue manages it
    std::size_t warning = 0;  // its warning in out.warnings
    bool readable = false;    // a kind kmc reads, left out for want of a Configuration
  };
  std::vector<IgnoredObject> ignored_;
  std::optional<SourcePos> config_pos_;
  std::int64_t load_index_ = 0;
};

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

}  // namespace

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
