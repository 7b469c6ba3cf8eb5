// The engine's view of one Workload: the API object (conditions, admission,
// check states) plus what Kueue's workload.Info derives from it (requests in
// Kueue's integer units, quota usage, the flavor-scan progress).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/amount.hpp"
#include "model/kueue_objects.hpp"

namespace kmc::engine {

using TimeMs = std::int64_t;

struct PodSetRequest {
  std::string name;
  std::int32_t count = 1;
  std::optional<std::int32_t> min_count;
  std::map<std::string, Amount> per_pod;  // Kueue integer units
};

// AssignmentClusterQueueState: where the flavor scan stopped, per pod set and resource.
struct LastAssignment {
  std::vector<std::map<std::string, int>> last_tried_flavor_idx;  // -1: scan finished
  std::int64_t cluster_queue_generation = 0;
  std::int64_t scheduling_cycle = 0;
  bool pending_flavors() const;
  int next_flavor_to_try(size_t pod_set, const std::string& resource) const;
};

// workload.Ordering: what GetQueueOrderTimestamp reads besides the workload,
// from the Configuration and the feature gates.
struct QueueOrdering {
  // waitForPodsReady.requeuingStrategy.timestamp Eviction (the default).
  bool pods_ready_by_eviction = true;
  // The PrioritySortingWithinCohort gate (on by default).
  bool priority_sorting_within_cohort = true;
};

struct WorkloadInfo {
  int id = -1;
  std::string key;  // NAMESPACE/NAME
  std::int64_t uid = 0;
  // Its place among reservations (higher: later), for candidates reserved at the
  // same time: Kueue's whole-second quotaReservationTime then falls to the UID,
  // random in a cluster, so any order is a Kueue run. kmc takes the model's (its
  // `rank`): the later reservation first, and among loaded ones of one second,
  // the later created. -1: holds no quota.
  std::int64_t reservation_seq = -1;
  model::Workload obj;
  int cluster_queue = -1;  // index into Engine::cluster_queues; -1: LocalQueue or CQ missing
  std::vector<PodSetRequest> pod_sets;
  TimeMs created_ms = 0;
  std::map<std::string, TimeMs> condition_ms;  // transition time per condition type, in ms

  // While QuotaReserved: the usage the cache counts, and per pod set flavors.
  FrUsage usage;
  // While the scheduler's admission patch is in flight (EngineOptions::
  // admission_write_failures): obj is the cache's assumed copy, and this is the
  // object as the API server still has it, which no controller has seen change.
  struct ApiObject {
    model::Workload obj;
    std::map<std::string, TimeMs> condition_ms;
  };
  std::optional<ApiObject> admission_in_flight;
  std::optional<LastAssignment> last_assignment;
  // NominationMapping: during an overlap recompute, the flavors chosen at nomination.
  std::vector<std::map<std::string, std::string>> nomination_mapping;
  TimeMs runtime_ms = 0;                   // how long the job runs once started; 0: until told
  std::map<std::string, TimeMs> check_ms;  // admission check state lastTransitionTime
  // A Rejected check's failed attempts, its retryCount + 1, kept when the
  // deactivation's eviction resets the count (Kueue keeps no such record;
  // replay compares it with the MultiKueue model's attempts).
  std::map<std::string, std::int32_t> rejected_attempts;
  std::optional<TimeMs> requeue_at_ms;
  std::int32_t requeue_count = 0;
  // The scheduler's preemptionExpectations wait to observe an eviction of it
  // that its late admission patch overwrote (before #11502): preemptors count
  // it preempted and issue nothing, until a restart forgets it.
  bool preemption_expected = false;
  bool preempted_ever = false;  // for reports: a cycle chose it as a victim
  bool job_active = false;      // the job's pods run (started and not stopped)
  // The Job object exists in this cluster. A MultiKueue remote Workload has
  // none until the manager selects its cluster: reconcileGroup syncs the job
  // to the winning worker only (workload.go, step 6b).
  bool job_exists = true;
  // A MultiKueue workload on the manager: its Job's status, which SyncJob copies from the Job on
  // mirrored_from (MultiKueueBatchJobWithManagedBy), says pods are active. It is the last status
  // the manager saw: a lost worker's Job stays active in it, and an evicted workload keeps its
  // quota until it reads inactive (evict_workload; multikueue_controller.cpp).
  bool mirrored_job_active = false;
  std::string mirrored_from;
  bool pods_ready = false;
  // The Pod integration, evicted with EngineOptions::pod_termination_on_event: its
  // pods have a deletionTimestamp and still run, so the job is active and the
  // quota held (pod_termination.cpp); stuck: their kubelet is gone.
  bool pods_terminating = false;
  bool pods_stuck = false;
  bool deleted = false;
  // Built by a restarted Kueue before #15154 from the terminating pods of the
  // deleted pod group workloads[readopted_from] (K12). Its pods carry the
  // node selector the ungater wrote, for a node whose kubelet is gone: no
  // flavor can place them (flavor_assigner.cpp). -1: an ordinary Workload.
  int readopted_from = -1;
  // computeSchedulingHash, fixed at creation; empty: SchedulingHashUnknown (the gate is off).
  std::string scheduling_hash;
  std::string pending_message;  // the QuotaReserved=False message, Kueue's words
  std::int64_t first_admitted_ms = -1;

  const model::Condition* condition(const std::string& type) const;
  bool is_true(const std::string& type) const;
  bool has_quota_reservation() const { return is_true("QuotaReserved"); }
  bool is_admitted() const { return is_true("Admitted"); }
  bool is_evicted() const { return is_true("Evicted"); }
  bool is_finished() const { return is_true("Finished"); }
  // HasActiveQuotaReservation: counted in the cache.
  bool counts_in_cache() const { return has_quota_reservation() && !is_finished() && obj.active; }
  // IsAdmissible: may sit in a queue.
  bool admissible() const {
    return !is_finished() && obj.active && !has_quota_reservation() && !deleted;
  }
  std::int64_t priority() const { return obj.priority; }
  TimeMs queue_order_ms(const QueueOrdering& o) const;
  TimeMs quota_reserved_ms(TimeMs now) const;

  void set_condition(const std::string& type, bool status, const std::string& reason,
                     const std::string& message, TimeMs now);
};

}  // namespace kmc::engine
