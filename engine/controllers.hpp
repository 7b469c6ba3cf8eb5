// The controllers around the scheduler: the workload controller (admission
// check sync, check-based eviction, backoff, waitForPodsReady), the job
// reconciler as far as quota is concerned (start on Admitted, release quota
// when an evicted job stops, finish), and the admission-check controllers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/flavor_assigner.hpp"

namespace kmc::engine {

// Scheduler "assume": QuotaReserved (and Admitted when no check is pending).
void assume_workload(Engine& e, WorkloadInfo& w, const Assignment& a);
// workloadevict.Evict: Evicted=True; checks reset to Pending; the job is stopped.
void evict_workload(Engine& e, WorkloadInfo& w, const std::string& reason,
                    const std::string& message);
// DeactivationTarget, then spec.active=false: the workload controller's Update
// handler drops the workload from the queues and the cache at once (the cache
// keeps no ClusterQueue in use for an inactive workload) and requeues its
// tree's parked workloads; then the workload is evicted and its job stopped,
// holding nothing while its pods terminate.
void deactivate_workload(Engine& e, WorkloadInfo& w, const std::string& reason,
                         const std::string& message);
// The job reconciler's answer to an Evicted workload that holds quota: stop its
// job (a Pod group's pods terminate first); the quota goes when it reads inactive.
void stop_evicted_job(Engine& e, WorkloadInfo& w);
// Job reconciler, eviction step: the job is inactive, so the reservation goes.
void release_quota_after_stop(Engine& e, WorkloadInfo& w);
void finish_workload(Engine& e, WorkloadInfo& w, const std::string& reason);
void delete_workload(Engine& e, WorkloadInfo& w);
// A user deletes the job: its Workload goes (the cache drops it, so its quota
// is free at once), and a pod group's pods, deleted with it, run on until they
// terminate (ev::PodsTerminated) or forever if their kubelet is gone.
void delete_by_user(Engine& e, WorkloadInfo& w);
void start_job_if_admitted(Engine& e, WorkloadInfo& w);
// How w's admission patch, in flight since the cycle assumed it, ends, when a
// trace says so; false when none is in flight. Landed: the API server has the
// reservation, so the job starts if w is Admitted. Failed (scheduler.go
// admit's error path): the cache forgets w, which goes straight back to its
// heap as the API server still has it; nothing parked is requeued.
bool land_admission_write(Engine& e, WorkloadInfo& w);
bool fail_admission_write(Engine& e, WorkloadInfo& w);
// The workload controller's first pass after Kueue starts: a loaded workload that
// holds a reservation and has every admission check Ready (or none) is Admitted,
// and its job runs (SyncAdmittedCondition).
void reconcile_all_workloads(Engine& e);

// Kueue's manager restarts (restart.cpp): what it keeps in memory only is lost, and the
// queues are rebuilt from the pending Workloads.
void restart_kueue(Engine& e);

// The Pod integration's quota release (pod_termination.cpp).
// A pod group's Workload: annotated kueue.x-k8s.io/is-group-workload=true, as
// Kueue builds it, or labelled with a pod group name. A lone Pod's is not one.
bool pod_group(const model::Workload& w);
// Evicting w leaves its pods terminating, and its quota held, until an event says they are gone.
bool holds_quota_until_pods_terminate(const Engine& e, const WorkloadInfo& w);
void pods_terminated(Engine& e, WorkloadInfo& w);
void pods_stuck_terminating(Engine& e, WorkloadInfo& w);
void stuck_pods_failed(Engine& e, WorkloadInfo& w);

// An operator's edit of one (flavor, resource) quota of a ClusterQueue or Cohort
// (quota_edits.cpp): a field left nullopt keeps its value; a limit set to an
// inner nullopt is removed.
struct QuotaUpdate {
  std::string flavor, resource;
  std::optional<Amount> nominal;
  std::optional<std::optional<Amount>> borrowing_limit, lending_limit;
};
// The cache recomputes the cohort tree (updateCohortTreeResources), nothing is
// evicted, and the tree's parked workloads are requeued. False: no such
// ClusterQueue (cohort false) or Cohort, or a quota it does not have.
bool update_quotas(Engine& e, const std::string& name, bool cohort,
                   const std::vector<QuotaUpdate>& quotas);

// stopPolicy (stop_policy.cpp): reconcileOn{Local,Cluster}QueueActiveState.
void reconcile_stop_policy(Engine& e, WorkloadInfo& w);
// `reconcile` false: the workload controller's reconciles of the queue's
// workloads are left to the caller (replay drives them one by one).
void set_cluster_queue_stop_policy(Engine& e, const std::string& name, model::StopPolicy policy,
                                   bool reconcile = true);
void set_local_queue_stop_policy(Engine& e, const std::string& ns, const std::string& name,
                                 model::StopPolicy policy, bool reconcile = true);
// A LocalQueue's deletion (stop_policy.cpp): gone at once (no finalizer).
// False: no such LocalQueue, or deleted already.
bool delete_local_queue(Engine& e, const std::string& ns, const std::string& name,
                        bool reconcile = true);

// A ClusterQueue's deletion (queue_deletion.cpp). Deleting sets its
// deletionTimestamp (spec updates ignored from then on); the controller's
// reconcile marks it terminating (inactive; nothing requeued, its workloads
// run on). Finalizing
// removes the resource-in-use finalizer once no workload holds quota in it:
// its quota leaves the cohort tree. False: no such ClusterQueue, not
// terminating, already gone, or (finalize) some workload still holds quota.
bool delete_cluster_queue(Engine& e, const std::string& name);
// The controller's Reconcile of a deleting ClusterQueue (TerminateClusterQueue).
bool terminate_cluster_queue(Engine& e, const std::string& name);
bool finalize_cluster_queue(Engine& e, const std::string& name);
// A restart's cache adds a terminating ClusterQueue as its spec says.
void restart_cluster_queue(ClusterQueueInfo& cq);
// A Cohort's deletion (it has no finalizer): its ClusterQueues and child
// Cohorts keep it as an implicit cohort, without quota, limits or parent (a
// subtree of its own); nothing is requeued or evicted. False: no such Cohort,
// or absent already.
bool delete_cohort(Engine& e, const std::string& name);

// Queues created during the run (queue_creation.cpp). Before: absent, set
// right after the engine is built: a ClusterQueue in no cache (no quota in its
// cohort, no heads), a LocalQueue missing (its workloads in no queue).
// Creating one: AddClusterQueue (its quota joins the cohort, its LocalQueues'
// workloads are pushed, the tree's parked workloads requeued) or
// AddLocalQueue (its pending workloads pushed). A ClusterQueue gone after its
// deletion may be created again, from its manifest. False: no such queue, or
// neither absent nor gone.
bool cluster_queue_absent(Engine& e, const std::string& name);
bool local_queue_absent(Engine& e, const std::string& ns, const std::string& name);
bool create_cluster_queue(Engine& e, const std::string& name);
// A LocalQueue created again has its manifest's stopPolicy, whatever an edit
// had set before its deletion: `stop_policy`, where the caller has it.
bool create_local_queue(Engine& e, const std::string& ns, const std::string& name,
                        std::optional<model::StopPolicy> stop_policy = std::nullopt);
// A Cohort of the manifests absent from the start is an implicit one, as
// after its deletion. Creating it (AddOrUpdateCohort) gives it its manifest's
// quotas, weight and parent, and requeues the parked workloads of the tree it
// is in now. False: no such Cohort in the manifests, or not absent.
bool cohort_absent(Engine& e, const std::string& name);
bool create_cohort(Engine& e, const std::string& name);

// Admission checks (admission_checks.cpp).
std::vector<std::string> checks_for_workload(const Engine& e, const WorkloadInfo& w);
void sync_admission_checks(Engine& e, WorkloadInfo& w);
// SyncAdmittedCondition; true when Admitted became True.
bool sync_admitted(Engine& e, WorkloadInfo& w);
// The workload controller's reconcile after a check changed state.
void reconcile_checks(Engine& e, WorkloadInfo& w);
// A changed state's lastTransitionTime is `transition_ms` where the writer passes one (the
// ProvisioningRequest controller passes the stored one), else now.
void set_check_state(Engine& e, WorkloadInfo& w, const std::string& check, model::CheckState state,
                     std::optional<std::int32_t> requeue_after_s, const std::string& message,
                     std::optional<TimeMs> transition_ms = std::nullopt);
// The ProvisioningRequest check controller: map a PR condition to the check state.
void provisioning_condition(Engine& e, WorkloadInfo& w, const std::string& check,
                            const std::string& condition);
// Right after a reservation: a check whose PR is not needed is Ready at once.
void provisioning_on_reservation(Engine& e, WorkloadInfo& w);
// The n-th backoff of Kueue's requeuing (n from 1): base, doubling, capped at cap (0: none).
std::int64_t backoff_wait_s(std::int64_t base, std::int64_t cap, std::int32_t n);
std::int64_t provisioning_backoff_s(const model::RetryStrategy& s,
                                    std::int32_t retry_count_plus_one);

const char* to_string(model::CheckState s);

// The workload's requeueAt passes now: where time is abstract (a trace's
// replay), the timer fires when the trace says. False when w waits for no backoff.
bool expire_backoff(Engine& e, WorkloadInfo& w);
// w's pods are not all ready by waitForPodsReady's timeout (they never
// started, or one failed and did not recover), when a trace says so: Kueue
// evicts w for a requeue after a backoff, or deactivates it past
// backoffLimitCount. False when w is no running, admitted job or
// waitForPodsReady is off.
bool time_out_pods_ready(Engine& e, WorkloadInfo& w);
// waitForPodsReady is on: the job reconciler keeps Workloads' PodsReady condition.
bool pods_ready_enabled(const Engine& e);
// Reconcile's admittedNotReadyWorkload: the PodsReady timeout of an admitted workload whose pods
// are not ready, from its admission (WaitForStart) or its last lost pod (WaitForRecovery).
void post_pods_ready_timeout(Engine& e, WorkloadInfo& w);

}  // namespace kmc::engine
