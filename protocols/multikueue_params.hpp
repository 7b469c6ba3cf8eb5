// The MultiKueue protocol's parameters, compiled from a Scenario: plain
// numbers and names, indexed densely, so guards and updates do no lookups.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/assert.hpp"
#include "model/fleet.hpp"
#include "model/scenario.hpp"

namespace kmc::protocols {

enum class ProvisioningClass { BestEffortAtomicScaleUp, CheckCapacity, QueuedProvisioning, Other };
enum class Dispatcher { AllAtOnce, Incremental, CapacitySnapshot };

// One ClusterQueue, on the manager (cluster = -1) or on a worker.
struct CqParams {
  int cluster = -1;
  std::string name;
  std::vector<std::string> flavors;  // preference order (one resource group)
  std::vector<int>
      flavor_slot;  // per flavor: index into the worker's capacity slots (-1 on the manager)
  std::vector<std::int64_t> nominal;  // [flavor * R + r]; -1: the flavor does not cover r
  bool strict_fifo = false;
  bool provisioning = false;  // has a ProvisioningRequest admission check
  ProvisioningClass provisioning_class = ProvisioningClass::Other;
  // check-capacity without parameters.noRetry "true": a request that finds no
  // room is never Failed, only Provisioned once room appears (model/provisioning_class.hpp).
  bool retries_later = false;
  int backoff_limit = 3;  // retryStrategy.backoffLimitCount
};

struct MkParams {
  std::vector<std::string> resources;  // R
  std::vector<std::string> jobs;       // "namespace/name", in queue order (priority, then creation)
  std::vector<std::int64_t> request;   // [j * R + r], total for all pods, in Kueue units
  std::vector<int> manager_cq;         // per job: index into cqs
  // Per job: its WorkloadPriorityClass value (or PriorityClass, 0 without). Empty: all equal.
  std::vector<std::int64_t> priority;
  std::vector<std::string> workers;         // W, in kmc.yaml order
  std::vector<std::vector<int>> worker_cq;  // [w][j]: index into cqs, -1: no LocalQueue for j there
  std::vector<CqParams> cqs;                // manager's first, then each worker's
  // Per place (the manager, then each worker) and job: the ClusterQueue the job queues in there
  // leaves its namespace out of its namespaceSelector. That cluster's scheduler never admits it
  // (ValidateAdmissibility, NamespaceMismatch) and parks it when it pops it, so it blocks no
  // head behind it, StrictFIFO or not. [(w + 1) * J + j], w = -1 the manager; empty: none.
  std::vector<bool> namespace_mismatch;
  bool mismatched(int w, int j) const {
    return !namespace_mismatch.empty() && namespace_mismatch[(w + 1) * J() + j];
  }
  int flavors_max = 1;  // F: the widest flavor list (state arrays are [cq][F][R])
  std::vector<std::vector<std::string>> worker_flavors;  // capacity slots per worker
  int slots_max = 1;                                     // S: the most capacity slots of a worker
  std::vector<std::int64_t> capacity0;                   // [w][S][R] physical capacity at start
  std::vector<std::int64_t> snapshot0;                   // [w][S][R] the manager's view at start
  std::vector<model::AutoscalerAnswer> answer;           // per worker
  std::vector<int> dispatch_order;  // MultiKueueConfig order, as worker indices
  // Per worker: waitForPodsReady is on, so a job whose pods lose readiness is
  // evicted after recoveryTimeout and requeued. Empty: on everywhere (the v1beta2 default).
  std::vector<bool> pods_ready_eviction;
  bool evicts_on_pods_not_ready(int w) const {
    return pods_ready_eviction.empty() || pods_ready_eviction[w];
  }

  Dispatcher dispatcher = Dispatcher::AllAtOnce;
  int step_size = 3;
  bool pin = true;
  int max_staleness = -1;
  bool wait_for_admitted = true;              // MultiKueueWaitForWorkloadAdmitted (#8592)
  bool redispatch_on_worker_eviction = true;  // MultiKueueRedoAdmissionOnEvictionInWorker (#8477)
  // MultiKueueBatchJobWithManagedBy (beta v0.15, GA v0.17): the manager's Job is managed by
  // MultiKueue, which copies the remote Job's status into it, so an evicted workload keeps its
  // quota while that status says pods are active. Off (Kueue before v0.15): the manager's Job
  // stays suspended, reads inactive, and the reservation goes at once.
  bool mirror_job_status = true;
  bool provisioning_timeout = false;
  enum class TimeoutVsBoot {
    Either,
    TimeoutFirst,
    BootFirst
  } timeout_vs_boot = TimeoutVsBoot::Either;
  bool broken_worker_ignores_quota = false;  // deliberately broken: must be caught
  bool broken_keep_losers = false;           // deliberately broken: must be caught
  int spot_reclaims = 0, capacity_losses = 0, snapshot_refreshes = -1;
  // Connection faults (workerDisconnects): the state tracks each worker's connection only when
  // some may drop, so a fleet without them keeps its states, traces and replay tokens.
  int worker_disconnects = 0;
  bool connection_faults() const { return worker_disconnects != 0; }
  // Capacity coming back, and Provisioned capacity revoked; appended like the connection faults.
  int capacity_returns = 0, capacity_revocations = 0;
  model::Warnings warnings;  // what the scenario says that this protocol does not model
  // kmc.yaml's own properties, checked beside the protocol's (model/user_properties.hpp); they
  // change no behaviour, so identity() leaves them out.
  std::vector<model::UserPropertySpec> user_properties;

  int J() const { return static_cast<int>(jobs.size()); }
  std::int64_t priority_of(int j) const { return priority.empty() ? 0 : priority[j]; }
  // Job j queues in ClusterQueue cq: its manager's, or its LocalQueue's on cq's worker. Where
  // two or more jobs do, the state keeps their queue order (multikueue_rules_queue.hpp). The
  // rules ask this on every step, so it computes and allocates nothing.
  bool queues_in(int cq, int j) const {
    const int w = cqs[cq].cluster;
    return (w < 0 ? manager_cq[j] : worker_cq[w][j]) == cq;
  }
  std::vector<int> queue_members(int cq) const {
    std::vector<int> out;
    for (int j = 0; j < J(); ++j)
      if (queues_in(cq, j)) out.push_back(j);
    return out;
  }
  int W() const { return static_cast<int>(workers.size()); }
  int R() const { return static_cast<int>(resources.size()); }
  std::int64_t req(int j, int r) const { return request[j * R() + r]; }
  // Flat offsets into the state's [job][worker] and [cq][flavor][resource] fields, shared by the
  // rules' instance, the invariants and their symbolic form.
  int jw(int j, int w) const {
    KMC_ASSERT(0 <= j && j < J() && 0 <= w && w < W());
    return j * W() + w;
  }
  int u(int cq, int f, int r) const {
    KMC_ASSERT(0 <= cq && cq < static_cast<int>(cqs.size()) && 0 <= f && f < flavors_max);
    KMC_ASSERT(0 <= r && r < R());
    return (cq * flavors_max + f) * R() + r;
  }
};

// The most jobs one scenario may hold: per-job properties keep one bit per job
// (eventually-runs two) in a 64-bit word per state (checker/bfs.hpp).
inline constexpr std::size_t kMaxJobs = 32;

// Named variants (fleet options.variant): historical Kueue behaviours and
// deliberately broken ones that the invariants must catch.
const std::vector<std::string>& multikueue_variants();

// Throws model::InputError (file, line, field) for what the protocol cannot model.
MkParams compile_multikueue(const model::Scenario& scenario);

}  // namespace kmc::protocols
