// Per-kind readers of Kubernetes/Kueue objects, shared by the manifest loader.
//
// Each reader gets the object's root node (apiVersion, kind, metadata, spec,
// status) and a context for warnings; it checks every key against Kueue's API
// (see KeyPolicy) and returns the typed object. Cross-object checks (names
// that must exist) happen after all files are read. Internal to model/.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "model/kueue_objects.hpp"
#include "model/yaml_node.hpp"

namespace kmc::model {

struct ReadContext {
  Warnings& warnings;
  std::string api_version;      // as written, e.g. "kueue.x-k8s.io/v1beta1"
  std::int64_t load_index = 0;  // creation order when no creationTimestamp is printed
  bool v1beta1() const { return api_version.ends_with("/v1beta1"); }
};

// metadata, plus the top-level keys of the object other than spec/status
// (`extra_top_level` for kinds such as WorkloadPriorityClass that keep fields there).
ObjectMeta read_meta(const YamlNode& object, ReadContext& ctx, bool namespaced,
                     std::initializer_list<std::string_view> extra_top_level = {});
std::int64_t parse_rfc3339_s(const YamlNode& node);

Labels read_labels(const YamlNode& node);
// A metav1.LabelSelector, refused where apimachinery's ValidateLabelSelector
// refuses it, as Kueue does (label_selector.cpp).
LabelSelector read_selector(const YamlNode& node, ReadContext& ctx);
std::vector<Toleration> read_tolerations(const YamlNode& node, ReadContext& ctx);
std::vector<ResourceGroup> read_resource_groups(const YamlNode& node, ReadContext& ctx);
StopPolicy read_stop_policy(const YamlNode& node);

ResourceFlavor read_resource_flavor(const YamlNode& object, ReadContext& ctx);
ClusterQueue read_cluster_queue(const YamlNode& object, ReadContext& ctx);
Cohort read_cohort(const YamlNode& object, ReadContext& ctx);
LocalQueue read_local_queue(const YamlNode& object, ReadContext& ctx);
WorkloadPriorityClass read_priority_class(const YamlNode& object, ReadContext& ctx);
Namespace read_namespace(const YamlNode& object, ReadContext& ctx);
AdmissionCheck read_admission_check(const YamlNode& object, ReadContext& ctx);
ProvisioningRequestConfig read_provisioning_config(const YamlNode& object, ReadContext& ctx);
MultiKueueConfig read_multikueue_config(const YamlNode& object, ReadContext& ctx);
MultiKueueCluster read_multikueue_cluster(const YamlNode& object, ReadContext& ctx);

inline constexpr const char* kQueueNameLabel = "kueue.x-k8s.io/queue-name";
// Set on the pod template by the Deployment, StatefulSet and LeaderWorkerSet
// webhooks: the pod webhook gates such a Pod whatever owns it.
inline constexpr const char* kSuspendedByParentAnnotation = "kueue.x-k8s.io/pod-suspending-parent";
inline constexpr const char* kPriorityBoostAnnotation = "kueue.x-k8s.io/priority-boost";
// What a maximum execution time (a Workload's spec.maximumExecutionTimeSeconds,
// a job's kueue.x-k8s.io/max-exec-time-seconds label) would change.
inline constexpr const char* kMaxExecutionTimeEffect =
    "admission may differ because Kueue deactivates a workload admitted for longer than this "
    "(MaximumExecutionTimeExceeded), freeing its quota; kmc lets it run until it finishes";

// A Kubernetes PriorityClass (scheduling.k8s.io/v1): the priority of a job
// whose pods name it in priorityClassName (ExtractPriority), or, globalDefault,
// of one whose pods name none.
struct KubePriorityClass {
  ObjectMeta meta;
  std::int32_t value = 0;
  bool global_default = false;
  SourcePos default_pos;  // where globalDefault is written
};
KubePriorityClass read_kube_priority_class(const YamlNode& object, ReadContext& ctx);

// An object's controller ownerReference (job_owner.cpp), of any kind: the
// job of a built-in integration holds that integration's name. Whether Kueue
// knows the kind (those, a ReplicaSet, an external framework's), and which job
// owns the object, are owner_chain.hpp's. An owner Kueue manages keeps
// LocalQueue defaulting off the Job or JobSet (IsOwnerManagedByKueueForObject).
struct JobOwner {
  std::string kind, name, uid;
  std::string framework;  // the built-in integration of its kind; empty for others
  std::string api_version;
};

// A Workload whose priority may still name a WorkloadPriorityClass that is
// defined in a later file.
struct PendingWorkload {
  Workload workload;
  bool priority_explicit = false;   // spec.priority was printed: Kueue copied it already
  std::string priority_class;       // WorkloadPriorityClass to resolve; empty: none
  std::optional<Diagnostic> where;  // the field naming the class, for "not found"
  // A Kubernetes PriorityClass the pods (or a Workload's priorityClassRef) name,
  // read where no WorkloadPriorityClass is named; and where.
  std::string kube_priority_class;
  std::optional<Diagnostic> kube_where;
  // The kueue.x-k8s.io/priority-boost annotation as written, and where. Read only once the
  // Configuration says whether the PriorityBoost gate is on: see apply_priority_boost.
  std::optional<std::string> priority_boost;
  std::optional<Diagnostic> boost_where;
  // A v1 Pod (read_pod.cpp): its group (empty: a lone Pod), the group's total
  // count it declares, whether it asks for fast admission, whether Kueue counts
  // it (neither Failed nor being deleted), and whether it has ended.
  std::string pod_group;
  std::int32_t pod_group_total = 0;
  bool pod_group_fast = false;
  bool pod_runnable = true;
  bool pod_succeeded = false;
  bool pod_done = false;  // a lone Pod that Kueue finishes or finalizes
  std::string pod_role;   // what Kueue's role hash reads of it
  // A Pod's or a Job's owning job: Kueue leaves it to that job's Workload
  // where the integration is enabled (the loader decides once all is read).
  std::optional<JobOwner> owner;
};
PendingWorkload read_workload(const YamlNode& object, ReadContext& ctx);
// Once every file is read: each job's priority from the class it names, or the
// globalDefault PriorityClass (resolve_priorities.cpp); a class not in the
// input, or a Workload naming one without spec.priority, is an InputError.
// `owner_managed`: whether Kueue manages the job's controller's kind, which
// keeps WorkloadPriorityClass defaulting off it.
void resolve_priorities(std::vector<PendingWorkload>& pending,
                        const std::vector<WorkloadPriorityClass>& classes,
                        const std::vector<KubePriorityClass>& kube_classes,
                        const FeatureGates& gates,
                        const std::function<bool(const std::optional<JobOwner>&)>& owner_managed);
// Once every file is read: with the PriorityBoost gate on, adds the annotation to the priority
// as Kueue's EffectivePriority does (an unparsable value is the webhook's rejection: an
// InputError); with it off, Kueue ignores the annotation and kmc says so.
void apply_priority_boost(PendingWorkload& p, const FeatureGates& gates, Warnings& warnings);
// What Kueue's job framework reads of any job's object (read_job.cpp): its
// metadata, the queue-name label, the priority (the WorkloadPriorityClass label,
// else the PriorityClass `pod_spec` names), and kmc's runtime annotation.
PendingWorkload read_job_object(const YamlNode& object, ReadContext& ctx, const char* kind,
                                const YamlNode& pod_spec);
// A batch/v1 Job with the queue-name label, converted as Kueue's job integration does.
PendingWorkload read_job(const YamlNode& object, ReadContext& ctx);
// A jobset.x-k8s.io JobSet with the queue-name label: one pod set per replicated job.
PendingWorkload read_jobset(const YamlNode& object, ReadContext& ctx);
// Kueue's MaxPodSets: a Workload holds at most this many pod sets (its CRD's
// MaxItems), so a job of more gets none.
inline constexpr std::size_t kMaxPodSets = 18;
// Of a batch/v1 JobSpec (a Job's, or a JobSet's replicated job's): the pods
// one Job runs at once, and the keys Kueue reads or may ignore.
std::int32_t job_pods_at_once(const YamlNode& job_spec);
void check_job_spec_keys(const YamlNode& job_spec, ReadContext& ctx);
// spec.managedBy of a job kind whose own controller is `own_controller`: a
// warning where another controller manages it (MultiKueue rejects it).
void read_managed_by(const YamlNode& spec, ReadContext& ctx, const char* kind,
                     const char* own_controller);
// Pod template -> per-pod requests (Kueue's PodRequests), node selector, tolerations.
void read_pod_template(const YamlNode& template_node, PodSet& pod_set, ReadContext& ctx);
// The same of a PodSpec (a template's, or a Pod's).
void read_pod_spec(const YamlNode& spec, PodSet& pod_set, ReadContext& ctx);
std::optional<JobOwner> job_owner(const YamlNode& object);
// The integration (its integrations.frameworks name) whose jobs are of this
// apiVersion and kind; nullopt for those no built-in integration serves.
std::optional<std::string> integration_of(const std::string& api_version, const std::string& kind);
// A v1 Pod with the queue-name label: a lone Pod's Workload, or a member of a
// group (PendingWorkload::pod_group), which group_pods turns into the group's.
PendingWorkload read_pod(const YamlNode& object, ReadContext& ctx);
// Once every file is read and named: each group's members -> the group's
// Workload, as Kueue builds it; lone Pods that have ended are left out.
void group_pods(std::vector<PendingWorkload>& pending, Warnings& warnings);

// The Configuration's excludeResourcePrefixes and transformations applied to
// each pod set's per-pod requests, as Kueue does before counting quota.
void apply_resource_settings(const ResourceSettings& settings, Workload& workload);

// A kind integrations.externalFrameworks lists, as an ownerReference names it.
struct ExternalFramework {
  std::string api_version, kind;
};

// What the Configuration says about which jobs Kueue manages; the loader
// reads jobs by it (job_integrations.cpp).
struct JobIntegrationSettings {
  // integrations.frameworks: the job kinds Kueue manages.
  std::vector<std::string> frameworks = {"batch/job"};
  // integrations.externalFrameworks: kinds whose own controllers make their
  // Workloads; Kueue's job webhooks and reconcilers take them as managed owners.
  std::vector<ExternalFramework> external_frameworks;
  // Configuration.namespace: where Kueue runs, which its installs keep its
  // webhooks out of, as they do kube-system.
  std::string kueue_namespace = "kueue-system";
  // managedJobsNamespaceSelector: the namespaces whose jobs Kueue's job
  // reconcilers, pod webhook and LocalQueue defaulting act on; defaulted
  // (SetDefaults_Configuration) to all but kube-system and kueue_namespace.
  LabelSelector managed_jobs_namespace_selector = {
      .present = true,
      .match_labels = {},
      .match_expressions = {
          {"kubernetes.io/metadata.name", "NotIn", {"kube-system", "kueue-system"}}}};
  std::optional<SourcePos> selector_pos;  // where written; none: the default
};

// `integrations`, where given, gets what says which jobs Kueue manages.
KueueConfiguration read_configuration(const YamlNode& object, ReadContext& ctx,
                                      JobIntegrationSettings* integrations = nullptr);
// The Configuration inside ConfigMap kueue-manager-config; nullopt for other ConfigMaps.
std::optional<KueueConfiguration> read_config_map(const YamlNode& object, ReadContext& ctx,
                                                  JobIntegrationSettings* integrations = nullptr);

}  // namespace kmc::model
