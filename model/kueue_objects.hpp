// Kueue's objects as kmc reads them from `kubectl get -o yaml` output.
//
// These are plain values with Kueue's field names (v1beta2 spelling; the
// loader maps v1beta1 spellings such as ClusterQueue.spec.cohort and
// spec.admissionChecks onto them). Both the model (protocols/) and the
// reference engine (engine/) read these types; neither adds behaviour here.
// Every object remembers where it was read, so later checks can still name
// file and line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/diagnostics.hpp"
#include "model/quantity.hpp"

namespace kmc::model {

using ResourceName = std::string;  // "cpu", "memory", "nvidia.com/gpu", "pods"
using ResourceList = std::map<ResourceName, Quantity>;
using Labels = std::map<std::string, std::string>;

struct OwnerReference {
  std::string kind, name;  // same namespace as the owned object
  std::string api_version;
};

struct ObjectMeta {
  std::string name;  // metadata.name, or one the loader gave an object with generateName only
  std::string generate_name;  // metadata.generateName as written; empty when not given
  std::string namespace_;     // empty for cluster-scoped objects
  Labels labels;
  Labels annotations;
  std::int64_t creation_order = 0;       // creationTimestamp as seconds when given, else load order
  std::vector<std::string> owner_kinds;  // metadata.ownerReferences[*].kind ("Job", "Pod", ...)
  std::vector<OwnerReference> owners;    // metadata.ownerReferences[*] with kind and name
  SourcePos pos;                         // where the object starts
};

struct Toleration {
  std::string key, op = "Equal", value, effect;
};
struct Taint {
  std::string key, value, effect;
};

struct ResourceFlavor {
  ObjectMeta meta;
  Labels node_labels;
  std::vector<Taint> node_taints;
  std::vector<Toleration> tolerations;
};

struct ResourceQuota {
  ResourceName name;
  Quantity nominal_quota;
  std::optional<Quantity> borrowing_limit;  // nil: unlimited
  std::optional<Quantity> lending_limit;    // nil: lend all
};
struct FlavorQuotas {
  std::string name;  // ResourceFlavor name; order inside a group is preference order
  std::vector<ResourceQuota> resources;
};
struct ResourceGroup {
  std::vector<ResourceName> covered_resources;
  std::vector<FlavorQuotas> flavors;
};

enum class QueueingStrategy { BestEffortFIFO, StrictFIFO };
enum class WithinClusterQueuePolicy { Never, LowerPriority, LowerOrNewerEqualPriority };
enum class ReclaimWithinCohortPolicy { Never, LowerPriority, Any };
enum class BorrowWithinCohortPolicy { Never, LowerPriority };
enum class WhenCanBorrow { MayStopSearch, TryNextFlavor };
enum class WhenCanPreempt { TryNextFlavor, MayStopSearch };
enum class FungibilityPreference { Unset, BorrowingOverPreemption, PreemptionOverBorrowing };
enum class StopPolicy { None, Hold, HoldAndDrain };
inline const char* stop_policy_name(StopPolicy p) {
  return p == StopPolicy::None ? "None" : p == StopPolicy::Hold ? "Hold" : "HoldAndDrain";
}

struct Preemption {
  WithinClusterQueuePolicy within_cluster_queue = WithinClusterQueuePolicy::Never;
  ReclaimWithinCohortPolicy reclaim_within_cohort = ReclaimWithinCohortPolicy::Never;
  BorrowWithinCohortPolicy borrow_within_cohort = BorrowWithinCohortPolicy::Never;
  std::optional<std::int32_t> max_priority_threshold;
};
struct FlavorFungibility {
  WhenCanBorrow when_can_borrow = WhenCanBorrow::MayStopSearch;
  WhenCanPreempt when_can_preempt = WhenCanPreempt::TryNextFlavor;
  FungibilityPreference preference = FungibilityPreference::Unset;
};
struct AdmissionCheckRule {
  std::string name;
  std::vector<std::string> on_flavors;  // empty: all flavors of the ClusterQueue
};
struct LabelSelector {
  bool present = false;  // nil selector selects nothing; {} selects everything
  Labels match_labels;
  struct Requirement {
    std::string key, op;  // In, NotIn, Exists, DoesNotExist
    std::vector<std::string> values;
  };
  std::vector<Requirement> match_expressions;
};

struct ClusterQueue {
  ObjectMeta meta;
  std::string cohort;  // v1beta2 spec.cohortName, v1beta1 spec.cohort
  std::vector<ResourceGroup> resource_groups;
  QueueingStrategy queueing_strategy = QueueingStrategy::BestEffortFIFO;
  LabelSelector namespace_selector;
  Preemption preemption;
  FlavorFungibility flavor_fungibility;
  std::vector<AdmissionCheckRule> admission_checks;  // v1beta1 admissionChecks become rules
  StopPolicy stop_policy = StopPolicy::None;
  Quantity fair_sharing_weight = Quantity::from_units(1);
};

struct Cohort {
  ObjectMeta meta;
  std::string parent;  // spec.parentName; empty: a root
  std::vector<ResourceGroup> resource_groups;
  Quantity fair_sharing_weight = Quantity::from_units(1);
};

struct LocalQueue {
  ObjectMeta meta;
  std::string cluster_queue;
  StopPolicy stop_policy = StopPolicy::None;
};

struct WorkloadPriorityClass {
  ObjectMeta meta;
  std::int32_t value = 0;
};

struct Namespace {
  ObjectMeta meta;
};

struct AdmissionCheck {
  ObjectMeta meta;
  std::string
      controller_name;  // kueue.x-k8s.io/provisioning-request, kueue.x-k8s.io/multikueue, ...
  struct Parameters {
    std::string api_group, kind, name;
  } parameters;
};
inline constexpr const char* kProvisioningController = "kueue.x-k8s.io/provisioning-request";
inline constexpr const char* kMultiKueueController = "kueue.x-k8s.io/multikueue";

struct RetryStrategy {  // ProvisioningRequestConfig CRD defaults
  std::int32_t backoff_limit_count = 3;
  std::int32_t backoff_base_seconds = 60;
  std::int32_t backoff_max_seconds = 1800;
};
struct ProvisioningRequestConfig {
  ObjectMeta meta;
  std::string provisioning_class_name;  // best-effort-atomic-scaleup.autoscaling.x-k8s.io, ...
  std::map<std::string, std::string> parameters;
  std::vector<ResourceName> managed_resources;  // empty: all
  RetryStrategy retry_strategy;
};

struct MultiKueueConfig {
  ObjectMeta meta;
  std::vector<std::string> clusters;  // ordered
  bool automated_quota = false;       // spec.quotaManagement: Automated
};
struct MultiKueueCluster {
  ObjectMeta meta;
  bool active = true;  // status condition Active, when printed; defaults to connected
};

struct PodSet {
  std::string name = "main";
  std::int32_t count = 1;
  std::optional<std::int32_t> min_count;  // PartialAdmission
  ResourceList requests;                  // per pod, after Kueue's PodRequests arithmetic
  Labels node_selector;
  std::vector<Toleration> tolerations;
};

enum class CheckState { Pending, Ready, Retry, Rejected };
struct AdmissionCheckState {
  std::string name;
  CheckState state = CheckState::Pending;
  std::int32_t retry_count = 0;
  std::optional<std::int32_t> requeue_after_seconds;
  std::string message;
};
struct Condition {
  std::string type, status, reason, message;
  std::int64_t last_transition_s = 0;
};
struct PodSetAssignment {
  std::string name;
  std::map<ResourceName, std::string> flavors;  // resource -> flavor
  ResourceList resource_usage;                  // total for count pods
  std::int32_t count = 0;
};
struct Admission {
  std::string cluster_queue;
  std::vector<PodSetAssignment> pod_set_assignments;
};

struct Workload {
  ObjectMeta meta;
  std::string queue_name;
  std::vector<PodSet> pod_sets;
  // Effective priority: spec.priority (or its priorityClassRef's value) plus, under the
  // PriorityBoost gate, the priority-boost annotation. 64 bits, as Kueue compares it.
  std::int64_t priority = 0;
  std::string priority_class_name;  // for reporting
  bool active = true;
  std::optional<std::int64_t> maximum_execution_time_s;
  std::int64_t runtime_s = 0;  // kmc: how long the job runs once started (0: unknown)
  // status
  std::vector<Condition> conditions;
  std::optional<Admission> admission;
  std::vector<AdmissionCheckState> admission_checks;
  std::string cluster_name;  // MultiKueue status.clusterName
  std::vector<std::string> nominated_cluster_names;
  std::string source_kind = "Workload";  // "Job" when converted from a batch/v1 Job
  // status.requeueState: the PodsReady timeouts so far (against backoffLimitCount)
  // and when its backoff ends (the workload controller requeues it then).
  std::int32_t requeue_count = 0;
  std::optional<std::int64_t> requeue_at_s;
};

struct FeatureGates {
  std::map<std::string, bool> gates;  // explicit settings only
  // Kueue's default at the reference commit for `name` (kueue-semantics.md §0), overridden by
  // gates.
  bool enabled(const std::string& name) const;
};

struct KueueConfiguration;
// The gates `config` sets away from their defaults that neither `reader` (protocol
// kueue-admission, the engine) nor the manifest loader reads: a warning each, which may change
// the answer (`--strict` refuses it), since Kueue's admission may then differ from what `reader`
// computes. `reads` says which gates the reader reads.
std::vector<Diagnostic> unread_gates(const KueueConfiguration& config, const std::string& reader,
                                     bool (*reads)(const std::string& gate));

// waitForPodsReady.requeuingStrategy.timestamp: what a workload a PodsReady
// timeout evicted waits in its queue by (workload.Ordering.GetQueueOrderTimestamp).
enum class RequeuingTimestamp { Eviction, Creation };

struct WaitForPodsReady {
  bool enable = true;  // enabled by default in the v1beta2 config API
  std::int64_t timeout_s = 30 * 60;
  bool block_admission = false;
  std::int64_t recovery_timeout_s = 30 * 60;
  std::int64_t backoff_base_s = 60;
  std::int64_t backoff_max_s = 3600;
  std::optional<std::int32_t> backoff_limit_count;  // nil: infinite
  RequeuingTimestamp requeuing_timestamp = RequeuingTimestamp::Eviction;
};

struct MultiKueueSettings {
  std::int64_t gc_interval_s = 60;
  std::string origin = "multikueue";
  std::int64_t worker_lost_timeout_s = 15 * 60;
  std::string dispatcher_name = "kueue.x-k8s.io/multikueue-dispatcher-all-at-once";
  std::int32_t incremental_step_size = 3;
};
inline constexpr const char* kDispatcherAllAtOnce =
    "kueue.x-k8s.io/multikueue-dispatcher-all-at-once";
inline constexpr const char* kDispatcherIncremental =
    "kueue.x-k8s.io/multikueue-dispatcher-incremental";

struct FairSharingSettings {
  bool enable = false;
  std::vector<std::string>
      preemption_strategies;  // LessThanOrEqualToFinalShare, LessThanInitialShare
};

// Configuration resources.transformations[*] (Kueue's ResourceTransformation):
// how a pod's request of `input` is counted against quota.
enum class TransformationStrategy { Retain, Replace };
struct TransformationOutput {
  ResourceName name;
  Quantity per_unit;  // per unit of input; negative: an allowance that cancels other outputs
  Diagnostic where;   // the output's field, for refusing a product kmc cannot count exactly
};
struct ResourceTransformation {
  ResourceName input;
  TransformationStrategy strategy = TransformationStrategy::Retain;  // Kueue's default
  ResourceName multiply_by;  // empty: outputs scale by the input quantity only
  std::vector<TransformationOutput> outputs;
};
struct ResourceSettings {
  std::vector<std::string> exclude_resource_prefixes;   // requests Kueue does not count at all
  std::vector<ResourceTransformation> transformations;  // at most one per input
};

struct KueueConfiguration {
  SourcePos pos;
  ResourceSettings resources;
  FeatureGates feature_gates;
  WaitForPodsReady wait_for_pods_ready;
  MultiKueueSettings multi_kueue;
  FairSharingSettings fair_sharing;
};

// Everything read from one cluster's folder of manifests.
struct ClusterManifests {
  std::string dir;
  std::vector<Namespace> namespaces;
  std::vector<ResourceFlavor> resource_flavors;
  std::vector<ClusterQueue> cluster_queues;
  std::vector<Cohort> cohorts;
  std::vector<LocalQueue> local_queues;
  std::vector<WorkloadPriorityClass> priority_classes;
  std::vector<AdmissionCheck> admission_checks;
  std::vector<ProvisioningRequestConfig> provisioning_request_configs;
  std::vector<MultiKueueConfig> multikueue_configs;
  std::vector<MultiKueueCluster> multikueue_clusters;
  std::vector<Workload> workloads;  // Workloads and Jobs converted as Kueue's job integration does
  std::vector<Workload> unmanaged_jobs;  // Jobs without a queue name: Kueue leaves them alone
  KueueConfiguration configuration;      // defaults when the folder has none
  Warnings warnings;

  const ClusterQueue* find_cluster_queue(const std::string& name) const;
  const LocalQueue* find_local_queue(const std::string& ns, const std::string& name) const;
  const AdmissionCheck* find_admission_check(const std::string& name) const;
  const ProvisioningRequestConfig* find_provisioning_config(const std::string& name) const;
  const ResourceFlavor* find_flavor(const std::string& name) const;
};

}  // namespace kmc::model
