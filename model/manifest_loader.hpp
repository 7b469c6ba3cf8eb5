// The manifest loader (internal to model/), in three parts:
// manifest_loader.cpp reads every object, names it and checks it is unique;
// job_integrations.cpp decides which jobs Kueue manages (its integrations,
// jobs owned by other jobs, LocalQueue defaulting); pod_integration.cpp which
// Pods the pod integration gates and never admits.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/manifest_readers.hpp"
#include "model/owner_chain.hpp"

namespace kmc::model {

class ManifestLoader {
 public:
  ClusterManifests out;

  void load_file(const std::string& path);

  // `kubectl get -o yaml ... | kmc admit -`: standard input, shown as <stdin>.
  void load_stdin();

  void finish();

 private:
  void load_document(const YamlNode& document);

  // Concepts are named with the kind they belong to ("ClusterQueue.spec.admissionScope"):
  // check_keys knows the path, only the loader knows whose.
  void load_object(const YamlNode& object);

  void load_object_of_any_kind(const YamlNode& object);

  // A job of an integration kmc does not read (JobSet, RayJob, a Pod, ...)
  // is only missing from the answer when Kueue queues it (it has the
  // queue-name label) and its Workload is not in the input: finish() tells.
  void ignore(const YamlNode& object, const std::string& kind, std::string message);

  void load_kueue_object(const YamlNode& object, const std::string& kind, ReadContext& ctx);

  void load_job(const YamlNode& object, ReadContext& ctx);

  void load_pod(const YamlNode& object, ReadContext& ctx);
  void load_unlabelled(const YamlNode& object, ReadContext& ctx, const std::string& kind);

  // Whether Kueue enables the integration: integrations.frameworks lists it,
  // or, for pod, pod_integration_implicit.
  bool listed(const std::string& framework) const;
  bool pod_integration_implicit() const;
  // Pods Kueue's pod reconciler skips (Pod.Skip): one the cluster has that
  // the webhook never gated runs without Kueue; one it gates (its parent did
  // not label it, or the pod integration is implicit only and no parent
  // suspended it) is never admitted: left out, with an answer-changing warning.
  void leave_pods_the_reconciler_skips();

  // A Job, JobSet or Pod with a queued ancestor (owner_chain.hpp) is that
  // ancestor's part: left out, with a warning. A Pod its parent suspends
  // (kueue.x-k8s.io/pod-suspending-parent) is the pod integration's anyway.
  void leave_parts_to_their_jobs();

  // `self`: "ns/Kind/name" of the object whose controller is `owner`.
  OwnerWalk queued_ancestor(const std::string& self, const std::string& ns,
                            const std::optional<JobOwner>& owner, const SourcePos& at);

  // The webhooks leave LocalQueue defaulting off a job that another job owns:
  // the Job and JobSet ones when Kueue manages its controller, the pod one
  // when it has a queued ancestor (FindAncestorJobManagedByKueue).
  bool owner_keeps_defaulting_off(const std::string& framework, const std::string& ns,
                                  const std::optional<JobOwner>& owner, const SourcePos& at);
  // Whether the controller is of an enabled integration's kind or an external
  // framework's (IsOwnerManagedByKueueForObject).
  bool owner_managed(const std::optional<JobOwner>& owner) const;

  // A JobSet is read once the Configuration, which may come later in load
  // order, says whether Kueue manages JobSets: without the integration Kueue
  // leaves it alone, however it is written.
  void load_jobset(const YamlNode& object, ReadContext& ctx);

  void read_jobsets();

  static std::string namespace_of(const YamlNode& object);

  // LocalQueue defaulting (ApplyDefaultLocalQueue; the pod webhook's own): the
  // webhook of an enabled integration (`framework`) labels a job that names no
  // queue, on create, with its namespace's LocalQueue "default" where one that
  // is not stopped exists, unless its owner is Kueue's (a JobSet's Jobs) or
  // Kueue does not manage its namespace (namespace_management).
  bool default_local_queue_exists(const std::string& ns) const;
  bool default_local_queue_applies(const std::string& ns, const std::optional<JobOwner>& owner,
                                   const std::string& framework, const SourcePos& at);

  enum class NamespaceManagement {
    Managed,     // Kueue's webhooks and job reconcilers act on its jobs
    NoWebhook,   // kube-system and Kueue's own: Kueue's installs keep its webhooks out
    Unselected,  // managedJobsNamespaceSelector does not select it: the job webhooks
                 // still run, the job reconcilers and the pod webhook leave it alone
  };
  // Where the selector reads a label of a namespace the input has no Namespace
  // object for, the answer may change: a warning at `at`, once per namespace.
  NamespaceManagement namespace_management(const std::string& ns, const SourcePos& at);

  // A job naming a queue where Kueue does not manage jobs: it runs without
  // Kueue (no webhook, or a Pod left ungated), or never (suspended by the job
  // webhook, never reconciled into a Workload).
  void leave_unmanaged_namespaces();

  void give_default_local_queue(PendingWorkload& job, const std::string& kind);

  // Once every LocalQueue is read: each Job without a queue name is Kueue's
  // through its namespace's LocalQueue "default", or left to the scheduler alone.
  void default_local_queues();

  std::string unmanaged_kind_message(const std::string& kind, const std::string& framework) const;

  // Duplicates are an error naming both places: Kubernetes keeps one object
  // per name, so a second one means two files disagree.
  void check_unique(const ObjectMeta& meta, const std::string& kind);

  // generateName + the first counter (1, 2, ...) that no other object of the
  // kind in that namespace has: deterministic in load order, and stable as
  // long as the input is. Kubernetes would append 5 random characters.
  void name_generated(ObjectMeta& meta, const std::string& kind);

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

  void add_workload(PendingWorkload w, const std::string& kind);

  void set_configuration(const YamlNode& object, KueueConfiguration config);

  void name_generated_workloads();

  // "ns/Kind/name" of each Workload's owners -> the Workload's index in pending_.
  std::map<std::string, std::size_t> owners_of_workloads() const;

  void explain_ignored_jobs();

  // A dump of Jobs and Workloads holds each job twice: the Job, and the
  // Workload Kueue created for it (ownerReferences names the Job). Kueue
  // queues the Workload only, so it stands for its owner, with its status;
  // the owner is dropped with one note naming both.
  void drop_owners_of_workloads();

  // Kueue manages Pods and Jobs only where integrations.frameworks lists them
  // ("pod", "batch/job"); its default lists batch/job only. The shipped
  // manifests' kueue-manager-config lists both, and JobSets (read_jobsets).
  void leave_unmanaged_kinds();

  std::vector<PendingWorkload> pending_;
  std::vector<KubePriorityClass> kube_priority_classes_;
  struct DeferredJobSet {
    YamlNode object;
    std::string api_version;
    std::int64_t load_index = 0;
  };
  std::vector<DeferredJobSet> jobsets_;
  // A Job or Pod without a queue name, until LocalQueue defaulting decides.
  struct Unlabelled {
    PendingWorkload job;
    std::size_t warning = 0;  // its "no queue-name label" warning in out.warnings
    bool creatable = false;   // not in the cluster yet (no uid): the webhooks run on it
    std::optional<Diagnostic> empty_label;  // `queue-name: ""`, where it is written
  };
  std::vector<Unlabelled> unlabelled_;
  // What a Job's (or another controller's) Pods will be created with, by its position.
  struct JobPods {
    std::string template_queue;                   // its pod template's queue-name label
    std::optional<SourcePos> template_queue_pos;  // where that label is written
    bool makes_no_pods = false;  // finished, finishing, suspended, scaled to 0 or being deleted
    bool suspended_by_parent = false;  // its template has pod-suspending-parent
  };
  std::map<std::string, JobPods> job_pods_;
  void note_job_pods(const YamlNode& object);
  // A Job Kueue leaves alone whose Pods the pod webhook queues: they are
  // Kueue's, one by one, but not in the input (an answer-changing warning).
  void explain_pods_of_unmanaged_job(const PendingWorkload& job);
  // What follows a warning on a queued object of an external framework's kind
  // whose Workload is not in the input.
  static std::string external_workload_missing(const std::string& kind);
  // The same for the other controllers of Pods Kueue has no integration for
  // here: a DaemonSet, a ReplicaSet, a Deployment or StatefulSet whose own
  // integration is not listed.
  struct PodController {
    std::string kind, ns, name;
    std::optional<JobOwner> owner;
    bool queued = false;  // names a queue itself
    SourcePos pos;
  };
  std::vector<PodController> pod_controllers_;
  void note_pod_controller(const YamlNode& object, const std::string& kind, const std::string& ns,
                           const std::string& name);
  void explain_pods_of_other_controllers();
  // The pod webhook's walk from a new Pod starts at its controller itself
  // (`queued`: it names a queue), whose own controller is `owner`.
  void explain_new_pods(const std::string& api_version, const std::string& kind,
                        const std::string& ns, const std::string& name,
                        const std::optional<JobOwner>& owner, bool queued, const SourcePos& pos);
  JobIntegrationSettings integrations_;
  std::set<std::string> namespaces_warned_;  // Namespaces missing that the selector reads
  std::map<std::string, SourcePos> seen_;
  std::set<std::string> unmanaged_names_;  // "ns/name" of Jobs Kueue does not manage
  struct IgnoredObject {
    std::string key;  // "ns/Kind/name"
    std::string api_version, kind, ns;
    bool queued = false;      // names a queue: Kueue manages it
    std::size_t warning = 0;  // its warning in out.warnings
    bool readable = false;    // a kind kmc reads, left out for want of a Configuration
    // What LocalQueue defaulting reads: the kind's integration, whether the
    // webhooks will see it created (no uid), its owner.
    std::optional<std::string> framework;
    bool creatable = false;
    std::optional<JobOwner> owner;
  };
  std::vector<IgnoredObject> ignored_;
  OwnerChains owner_chains_;
  std::set<const ChainObject*> deciding_defaults_;  // queued_ancestor's, against cycles
  std::optional<SourcePos> config_pos_;
  std::int64_t load_index_ = 0;
};

}  // namespace kmc::model
