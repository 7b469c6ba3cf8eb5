// The MultiKueue protocol's state and actions.
//
// The state is a struct of arrays over the value type V (std::int64_t for
// the explicit engine, sym::Int for the symbolic one); every field is a flat
// vector indexed by job, (job, worker), (cq, flavor, resource) or
// (worker, slot, resource). Usage is stored, as Kueue's cache stores it, so
// that "counted once" is a real check of every update and not true by construction.
#pragma once

#include <boost/hana.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace kmc::protocols {

// The manager's view of a job (its local Workload and MultiKueue check).
// kMgrEvicted only with connection faults: evicted after workerLostTimeout while its Job's status,
// mirrored from the lost worker, still says pods are active, so the jobframework keeps the quota
// reservation until that Job reads inactive (jobframework/reconciler.go: the reservation goes only
// when !job.IsActive()).
enum ManagerPhase : std::int64_t {
  kMgrPending,
  kMgrQuotaReserved,
  kMgrAdmitted,
  kMgrFinished,
  kMgrEvicted
};
// A remote Workload on one worker.
enum RemotePhase : std::int64_t {
  kRemoteNone,
  kRemotePending,
  kRemoteQuotaReserved,
  kRemoteAdmitted,
  kRemoteRunning,
  kRemoteFinished,
  kRemoteRejected
};
// The ProvisioningRequest of a remote that holds worker quota.
enum ProvPhase : std::int64_t { kProvNone, kProvRequested, kProvAccepted, kProvProvisioned };

const char* manager_phase_name(std::int64_t v);
const char* remote_phase_name(std::int64_t v);
const char* prov_phase_name(std::int64_t v);

enum Budget : int {
  kSpotReclaims,
  kCapacityLosses,
  kSnapshotRefreshes,
  kWorkerDisconnects,
  kCapacityReturns,
  kCapacityRevocations,
  kBudgets
};

template <class V>
struct MkState {
  BOOST_HANA_DEFINE_STRUCT(
      MkState, (std::vector<V>, phase),  // [j] ManagerPhase
      (std::vector<V>, cluster),         // [j] status.clusterName as a worker index, -1 unset
      (std::vector<V>, mgr_flavor),      // [j] flavor index reserved on the manager CQ, -1
      (std::vector<V>, nominated),       // [j][w] 0/1, status.nominatedClusterNames
      (std::vector<V>, remote),          // [j][w] RemotePhase
      (std::vector<V>, remote_flavor),   // [j][w] flavor index reserved on the worker CQ, -1
      (std::vector<V>, prov),            // [j][w] ProvPhase
      (std::vector<V>, attempts),        // [j][w] ProvisioningRequest attempts that failed
      (std::vector<V>, usage),           // [cq][F][R] quota usage, as Kueue's cache counts it
      (std::vector<V>, capacity),        // [w][S][R] free physical capacity
      (std::vector<V>, snapshot),        // [w][S][R] the manager's capacity view
      (std::vector<V>, staleness),       // [w] capacity changes since the last refresh, capped
      // [w] 1 while the manager reaches the worker (MultiKueueCluster Active), 0 while it does
      // not; always 1 where the scenario has no connection faults
      (std::vector<V>, connected),
      // [j][w] 1 once the manager created the Job object on w for the copy it selected there
      // (SyncJob): the worker then runs it whenever the copy is Admitted, even if the manager
      // has given up on w since. Kept only with connection faults (else always 0).
      (std::vector<V>, job_created),
      // [j] the worker whose Job the manager's Job status mirrors as active (SyncJob copies the
      // remote Job's status), -1: none. Recorded when the manager loses that worker, as the last
      // status it saw, and kept while the lost Job holds the manager's quota. Kept only with
      // connection faults (else always -1).
      (std::vector<V>, mirrored_active),
      (std::vector<V>, budget),  // [Budget] environment budget left (-1: unlimited)
      // Queue order within a ClusterQueue that two or more jobs share (else always 0): 1 for the
      // oldest queue-order timestamp among the jobs queued there, 2 for the next..., 0 for a job
      // not queued (multikueue_rules_queue.hpp). [j] on the manager: Pending, or evicted and
      // holding quota (kMgrEvicted), which keeps the eviction's time. [j][w] on worker w: a
      // Pending copy, ordered by its creation there, or by its last eviction.
      (std::vector<V>, queue_rank), (std::vector<V>, remote_rank));
  // Plain equality for the explicit engine; never instantiated for Z3 terms,
  // whose == builds a formula rather than answering.
  bool operator==(const MkState&) const = default;
};

enum class ActionKind : std::uint8_t {
  ReserveQuota,             // manager scheduler reserves manager-CQ quota
  Nominate,                 // dispatcher: AllAtOnce (all) or Incremental (first round)
  NominateNextRound,        // Incremental: the next stepSize clusters
  NominateWorker,           // capacity-snapshot dispatcher picks a worker
  Renominate,               // capacity-snapshot dispatcher drops rejected copies
  CreateRemoteWorkload,     // MultiKueue controller creates the copy on a nominated worker
  ReserveQuotaOnWorker,     // worker scheduler reserves worker-CQ quota
  ProvisioningAccepted,     // autoscaler
  ProvisioningProvisioned,  // autoscaler books capacity: check Ready, remote Admitted
  ProvisioningFailed,       // autoscaler: check Retry (or Rejected past the backoff limit)
  ProvisioningTimeout,      // kmc option: a long-Accepted request counts as Failed
  SelectWorker,             // MultiKueue controller: first QuotaReserved/Admitted copy wins
  JobStarted,               // the selected worker's pods run
  JobFinished,              // environment: the job completes
  SpotReclaim,              // environment: a running job's nodes are reclaimed
  CapacityLost,             // environment: a worker's idle capacity of one slot disappears
  RefreshSnapshot,          // manager refreshes its capacity view of one worker
  RetryDispatch,            // MultiKueue check Retry: evict on the manager, requeue, dispatch again
  // Connection faults (only where the scenario allows workerDisconnects):
  WorkerDisconnected,  // environment: the manager loses its connection to a worker
  WorkerReconnected,   // environment: the connection comes back
  WorkerLostTimeout,   // MultiKueue controller: the selected worker unreachable past
                       // workerLostTimeout; check Retry, copies left on it
  DeleteStaleRemote,   // MultiKueue controller: a copy it can see again and no longer wants
  FinishFromRemote,    // MultiKueue controller: a copy it can see again finished
  CapacityReturned,    // environment: a worker's flavor gets its free capacity back
  CapacityRevoked,     // autoscaler: a Provisioned request's capacity is taken back
  LostJobStopped,      // MultiKueue controller: the worker it gave up on is reachable again; its
                       // copy is deactivated, the Job reads inactive, the manager's quota goes
  EvictedCopyDeactivated,  // MultiKueue controller: a copy that the evicted workload was dispatched
                           // to again is Admitted; it is deactivated, its Job created suspended,
                           // and the manager's Job reads inactive: the manager's quota goes
  RecreateRemoteWorkload,  // MultiKueue controller: a copy its worker deactivated (Rejected) is
                           // out of sync; deleted, and created again on its nominated worker
};
const char* action_kind_name(ActionKind k);

struct MkAction {
  ActionKind kind;
  std::int16_t job = -1;
  std::int16_t worker = -1;
  std::int16_t slot = -1;
  std::int16_t id = -1;  // index among the protocol's candidates: the action instance, for fairness
  friend bool operator==(const MkAction&, const MkAction&) = default;
};

}  // namespace kmc::protocols
