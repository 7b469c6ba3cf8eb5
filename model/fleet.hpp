// The kmc file (kmc.yaml at the top of a scenario folder): what Kubernetes
// objects do not say. Which cluster is the manager, the workers' regions, the
// physical capacity behind each worker, how each worker's Cluster Autoscaler
// answers ProvisioningRequests, the manager's capacity snapshot, the
// environment's budgets, protocol options (the talk's fixes), and what to check.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/diagnostics.hpp"
#include "model/kueue_objects.hpp"
#include "model/quantity.hpp"

namespace kmc::model {

// flavor -> resource -> quantity
using FlavorResources = std::map<std::string, std::map<std::string, Quantity>>;

// How a worker's Cluster Autoscaler answers a ProvisioningRequest.
enum class AutoscalerAnswer {
  Provisions,        // accepts, then provisions as soon as physical capacity allows (else waits)
  Fails,             // accepts, then provisions if capacity allows now, else answers Failed
  AcceptsThenHangs,  // accepts, then never answers again (autoscaler#9490)
  Any,               // any of the above, chosen by the adversary at each step
};

struct WorkerSpec {
  std::string name;          // folder workers/<name>/ and the MultiKueueCluster name
  std::string region;        // for reports
  FlavorResources capacity;  // physical capacity obtainable on this cluster
  AutoscalerAnswer answer = AutoscalerAnswer::Provisions;
  SourcePos pos;
  SourcePos capacity_pos;  // where `capacity` is written, for flavor cross-checks
};

enum class DispatchPolicy {
  KueueDispatcher,   // use the Kueue Configuration's dispatcherName (AllAtOnce or Incremental)
  CapacitySnapshot,  // an external dispatcher that nominates by the manager's capacity snapshot
};

struct DispatcherSpec {
  DispatchPolicy policy = DispatchPolicy::KueueDispatcher;
  bool pin = true;  // CapacitySnapshot: nominate one worker and keep it until the check goes Retry
};

struct ProtocolOptions {
  bool provisioning_timeout =
      false;  // a ProvisioningRequest unanswered or Accepted too long counts as Failed
  // How a ProvisioningRequest timeout relates to the time a node takes to boot:
  // Either (any order), TimeoutFirst (too short: it always fires before a boot
  // completes), BootFirst (long enough: it fires only when no node is coming).
  std::string timeout_vs_boot = "Either";
  std::int32_t max_snapshot_staleness = -1;  // dispatch only on a snapshot at most this many
                                             // capacity changes old; -1: no bound
  std::string variant;  // a named historical or deliberately broken behaviour; empty: current Kueue
};

// kueue-admission: one (flavor, resource) quota of a ClusterQueue or Cohort as an edit
// sets it, with merge-patch semantics: a field left out keeps its value, a limit
// written as null (~) is removed.
struct QuotaChange {
  std::string flavor;
  ResourceName resource;
  std::optional<Quantity> nominal_quota;
  // Outer nullopt: unchanged; inner nullopt: removed (no limit).
  std::optional<std::optional<Quantity>> borrowing_limit, lending_limit;
  SourcePos pos;
};

// kueue-admission: an operator's edit of one queue during the run
// (environment.queueEdits): a ClusterQueue's stopPolicy and quotas, a
// LocalQueue's stopPolicy, or a Cohort's quotas.
struct QueueEdit {
  std::string cluster_queue;              // the ClusterQueue's name, or empty and
  std::string local_queue;                // a LocalQueue as "namespace/name", or empty and
  std::string cohort;                     // a Cohort's name
  std::optional<StopPolicy> stop_policy;  // nullopt: unchanged
  std::vector<QuotaChange> quotas;
  // `delete: true`: the ClusterQueue is deleted (it gets a deletionTimestamp and
  // terminates until Kueue's resource-in-use finalizer lets it go), or the Cohort
  // or the LocalQueue (at once: neither has a finalizer).
  bool deletes = false;
  // `create: true`: the ClusterQueue or LocalQueue of the manifests is absent
  // until this edit creates it, as the manifests give it.
  bool creates = false;
  SourcePos pos;
};

struct EnvironmentBudgets {
  std::int32_t spot_reclaims = 0;        // running jobs' nodes reclaimed
  std::int32_t capacity_losses = 0;      // idle capacity disappearing from a worker
  std::int32_t snapshot_refreshes = -1;  // -1: unlimited
  std::int32_t stuck_terminating = 0;  // kueue-admission: victims whose pods get stuck terminating
  // kueue-admission: times Kueue's manager restarts, losing what it keeps in memory only (the
  // inadmissible set, sticky heads); -1: unlimited.
  std::int32_t controller_restarts = 0;
  // kueue-admission: times an admitted job's pods are not all ready by waitForPodsReady's
  // timeout (they never start, or one fails and does not recover), so Kueue evicts it.
  std::int32_t pods_ready_timeouts = 0;
  // kueue-admission: times the scheduler's admission patch fails after it assumed the workload in
  // its cache (the API server rejects it, a conflict retries cannot resolve, a timeout).
  std::int32_t admission_write_failures = 0;
  // kueue-admission: times the scheduler's eviction patch of a preemption victim fails
  // (IssuePreemptions' error path): the victim keeps running, the preemptor retries.
  std::int32_t eviction_write_failures = 0;
  // kueue-admission: times the scheduler's asynchronous admission patch of a workload is still
  // in flight when a later cycle preempts that workload, and lands after the eviction's patch,
  // overwriting its Evicted condition (kubernetes-sigs/kueue#11480).
  std::int32_t late_admission_writes = 0;
  // kueue-admission, with waitForPodsReady.blockAdmission: times a pod of a running job whose
  // pods were all ready fails (PodsReady False, WaitForRecovery) until it recovers or its
  // recoveryTimeout evicts it.
  std::int32_t pod_failures = 0;
  SourcePos pod_failures_pos;
  // MultiKueue: times a worker's connection to the manager drops (a partition the worker does
  // not notice: it keeps running what it has); -1: unlimited.
  std::int32_t worker_disconnects = 0;
  // MultiKueue: times free capacity comes back to a worker's flavor (stock replenished, a spot
  // node returns), and times an autoscaler revokes a Provisioned request's capacity.
  std::int32_t capacity_returns = 0;
  // kueue-admission too: a Provisioned request of an Admitted workload is revoked.
  std::int32_t capacity_revocations = 0;
  SourcePos capacity_revocations_pos;
  // kueue-admission: Workloads ("namespace/name") that are created during the run instead of
  // being there from the start; they arrive in creationTimestamp order, one at a time, whenever
  // the environment chooses (or never).
  std::vector<std::string> arrivals;
  std::vector<SourcePos> arrival_pos;  // where each is written
  // kueue-admission: Workloads ("namespace/name") a user may delete during the run (the job
  // cancelled: its Workload and pods deleted), each at most once, whenever the environment
  // chooses (or never).
  std::vector<std::string> deletions;
  std::vector<SourcePos> deletion_pos;
  // kueue-admission: edits of queues' stopPolicy and quotas, applied one at a time in the listed
  // order, each whenever the environment chooses (or never, and then none after it).
  std::vector<QueueEdit> queue_edits;
  SourcePos queue_edits_pos;
};

struct CheckSpec {
  std::vector<std::string> properties;  // empty: every property of the protocol
  std::int32_t max_depth = -1;          // -1: no bound
  std::int64_t max_states = 10'000'000;
  double time_limit_s = 600;
  // maxMemory as written ("8G", checker::parse_size reads it); empty: the default bound.
  std::string max_memory;
  SourcePos max_memory_pos;
  SourcePos pos;
};

// Fairness of one action family for liveness checks ("fairness:" in kmc.yaml).
enum class FairnessKind { None, Weak, Strong };
struct FairnessSpec {
  std::string
      family;  // a family name of the protocol; checked against it when the protocol is built
  FairnessKind kind = FairnessKind::None;
  SourcePos pos;
};

// One lever of `kmc matrix` ("matrix:" in kmc.yaml): a knob and the values
// to try. The protocol that is built from the scenario interprets them.
struct Lever {
  std::string name;                 // provisioningClass, provisioningTimeout, pin, ...
  std::vector<std::string> values;  // as written
  SourcePos pos;
};

// A node of a single cluster, for protocols that place pods (kube-scheduler):
// what its status.allocatable offers.
struct NodeSpec {
  std::string name;
  std::map<std::string, Quantity> allocatable;  // resource -> quantity
  SourcePos pos;
};

// An expression as kmc.yaml writes it, with where it starts (model/expression.hpp compiles it).
struct ExpressionSpec {
  std::string text;
  SourcePos pos;
  int column = 0;  // 1-based column of the first character; 0: unknown
};

// A property the user writes in kmc.yaml ("properties:"), over the protocol's typed cells:
// `always` and `sometimes` a condition; `leadsTo` a premise and a goal, per entity of the axis
// `each` binds ("j: job"), or once.
struct UserPropertySpec {
  std::string name;
  std::string description;
  enum class Kind { Always, Sometimes, LeadsTo } kind = Kind::Always;
  ExpressionSpec holds;          // always, sometimes
  ExpressionSpec premise, goal;  // leadsTo
  std::string each_var, each_axis;
  SourcePos each_pos;
  SourcePos pos;
};

struct Fleet {
  // Which protocol checks this scenario (cli/protocols.cpp's table); checked against that table.
  std::string protocol = "multikueue";
  SourcePos protocol_pos;
  std::string manager = "manager";
  // The folder of the cluster the manifests describe: manager/ for
  // MultiKueue, `cluster:` (default cluster/) for a single-cluster protocol.
  std::string cluster_dir = "manager";
  std::vector<WorkerSpec> workers;
  std::vector<NodeSpec> nodes;  // kube-scheduler: the cluster's nodes
  // kueue-admission: how the cluster's Cluster Autoscaler answers ProvisioningRequests
  // (`autoscaler: {answer: ...}`; MultiKueue gives each worker its own).
  AutoscalerAnswer autoscaler = AutoscalerAnswer::Provisions;
  SourcePos autoscaler_pos;
  std::map<std::string, FlavorResources>
      snapshot;  // manager's initial view per worker; missing: the truth
  std::map<std::string, SourcePos> snapshot_pos;  // where each worker's snapshot entry is written
  DispatcherSpec dispatcher;
  ProtocolOptions options;
  EnvironmentBudgets environment;
  CheckSpec check;
  std::vector<FairnessSpec> fairness;  // overrides of the protocol's default fairness
  // What fairness is stated of ("fairness: {per: instance | family}"): each action instance
  // (TLA+'s WF(A(w)) for each w) or each family; Auto: per instance when there are at most 64.
  enum class FairnessUnit { Auto, Instance, Family } fairness_unit = FairnessUnit::Auto;
  SourcePos fairness_unit_pos;
  std::vector<Lever> matrix;                 // kmc matrix: every combination of these
  std::vector<UserPropertySpec> properties;  // the user's own, beside the protocol's
  SourcePos pos;
};

class YamlNode;
// kmc.yaml's `properties:` list (model/read_user_properties.cpp), for load_fleet.
std::vector<UserPropertySpec> read_user_properties(const YamlNode& list);

// Reads and validates a kmc.yaml (apiVersion kmc.dev/v1alpha1, kind Fleet).
// `path` is also how diagnostics name the file. Throws InputError.
Fleet load_fleet(const std::string& path);

}  // namespace kmc::model
