// The reference admission engine: one Kueue cluster, concrete and
// deterministic (DESIGN.md "The engine and replay").
//
// Engine holds what Kueue keeps in its cache and queue manager: the cohort
// tree with usage (QuotaTree), the ClusterQueues, the Workloads with their
// conditions, the pending queues, and a virtual clock with its event queue.
// The scheduler (scheduler.cpp) and the controllers (workload_controller.cpp,
// admission_checks.cpp) are free functions over it, one concept per file.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/clock.hpp"
#include "engine/queue_manager.hpp"
#include "engine/quota_tree.hpp"
#include "engine/workload_info.hpp"
#include "model/kueue_objects.hpp"

namespace kmc::engine {

struct Entry;  // a scheduling cycle's entry (scheduler.hpp)

struct ResourceGroupInfo {
  std::vector<std::string> covered;
  std::vector<std::string> flavors;  // preference order
};

struct ClusterQueueInfo {
  std::string name;
  model::ClusterQueue spec;
  int node = -1;  // in the QuotaTree
  std::vector<ResourceGroupInfo> groups;
  std::map<std::string, int> group_of;  // resource -> group
  bool active = true;
  std::string inactive_reason;
  // Deleted: a deletionTimestamp (deleting), held by the resource-in-use
  // finalizer until no workload holds quota in it; the cache has it
  // terminating once the controller reconciles that; then gone (removed).
  bool deleting = false, terminating = false, removed = false;
  // Not created yet (queue_creation.cpp): in no cache and no queue manager.
  // `created_active` and `created_reason`: its status once it is.
  bool absent = false, created_active = true;
  std::string created_reason;
  std::int64_t allocatable_generation = 1;
  double fair_weight = 1.0;
  bool covers(const std::string& resource) const { return group_of.contains(resource); }
};

// One scheduling cycle's view: usage deep-copied, quotas shared by value.
struct Snapshot {
  QuotaTree tree;
  std::vector<std::set<int>> workloads;  // per ClusterQueue: ids holding quota
  void add_workload(int cq_node, int cq, const WorkloadInfo& w);
  void remove_workload(int cq_node, int cq, const WorkloadInfo& w);
};

struct EngineOptions {
  // The job's pods become ready as soon as it starts (no PodsReady events needed).
  bool pods_ready_on_start = true;
  // A loaded Admitted workload's pods are as its PodsReady condition says, where it has one (a
  // cluster's dump, kmc admit). False: as pods_ready_on_start says, as a replay's model takes
  // them.
  bool pods_ready_as_loaded = false;
  // Virtual delay between an eviction and the job reporting inactive.
  TimeMs job_stop_delay_ms = 0;
  // The Pod integration's IsActive counts Running pods, terminating ones too: an
  // evicted pod group holds its quota until ev::PodsTerminated
  // (unless FastQuotaReleaseInPodIntegration). Off: it stops after job_stop_delay_ms.
  bool pod_termination_on_event = false;
  // A BestEffortFIFO queue keeps a preemptor at its head while its victims stop
  // (#7157, v0.15); false: Kueue before it, where a preemptor may lose its place.
  bool sticky_preemptor_head = true;
  // Fair sharing's dominant resource share in integers, as before #6617
  // (v0.13.3/v0.14.0): a queue borrowing under 1/1000 of what its parent can
  // lend has share 0 and counts as not borrowing (K01). False: today's exact share.
  bool integer_drs = false;
  // processEntry re-checks each entry against what earlier entries of the cycle
  // took or preempted (#805, v0.3.2/v0.4.0). False: Kueue before it, where an
  // entry acts on its nomination, so two preemptors may count one victim (K05).
  bool recheck_in_cycle = true;
  // Several preemptions per cohort and cycle (#2641, the MultiplePreemptions gate,
  // v0.8; always on since v0.10). False: Kueue before it, where an entry that
  // preempted (an in-flight preemption included) or was admitted made every
  // later preemptor of its cohort skip the cycle (K11).
  bool multiple_preemptions = true;
  // Before #15154 (Kueue 0.18/0.19 patches): a restart replays a deleted pod
  // group's still-terminating pods as new and builds a Workload for them (K12).
  bool readopt_terminating_pod_groups = false;
  // Admission patches that may still fail: while some may, an admission's patch
  // is in flight (WorkloadInfo::admission_in_flight) until land_admission_write()
  // or fail_admission_write() says how it ended; 0: every patch lands with the cycle.
  int admission_write_failures = 0;
  // Admission patches that may still land late, after a later cycle's eviction
  // of the workload, overwriting its Evicted condition (kueue#11480); while some
  // may, an admission's patch is in flight as above.
  int late_admission_writes = 0;
  // #11502: the admission goroutine satisfies the workload's preemption
  // expectation once its patch landed. False: Kueue before it, where the
  // expectation an overwritten eviction left waits forever.
  bool satisfy_expectation_on_admission = true;
  // PodsReady timeouts a trace may still force (time_out_pods_ready); -1: no
  // bound. At 0 a job that starts has its pods ready at once, whatever
  // pods_ready_on_start says: late pods that no timeout can evict only delay.
  int pods_ready_timeouts_left = -1;
  // A Retry check's backoff ends at once: the workload controller evicts and
  // requeues the workload in the same step. Protocol multikueue takes a
  // worker's retry backoff as no time (its replays set this). False: Kueue's
  // requeueAfterSeconds, the reservation held until it passes.
  bool retry_backoff_at_once = false;
  // GetTargets chooses victims with the `pods` a ClusterQueue covering them
  // charges. False: Kueue as it is, whose TotalRequestsFor leaves them out, so
  // a preemptor short of pods alone never preempts enough (engine/scheduler.cpp).
  bool preemption_counts_pods = false;
  // The delaying workqueue's batchPeriod for inadmissible requeues (1s upstream).
  TimeMs inadmissible_batch_ms = 1000;
  // Safety bound on back-to-back cycles at one virtual instant.
  int max_cycles_per_instant = 100000;
};

struct CycleStats {
  int heads = 0, admitted = 0, preempted = 0, parked = 0, rescans = 0;
  std::vector<int> skipped;  // heads nominated, then skipped for what the cycle did before them
  // The goroutine woke from WaitForPodsReady: Kueue's loop goes on at once,
  // whether or not the entry it held was admitted.
  bool woke = false;
  bool idle() const {
    return !woke && admitted == 0 && preempted == 0 && parked == 0 && rescans == 0;
  }
};

struct EngineLogLine {
  TimeMs at;
  std::string text;
};

class Engine {
 public:
  explicit Engine(const model::ClusterManifests& manifests, EngineOptions options = {});

  // Inputs from the environment.
  void post(TimeMs at, Event e) { events.post(at, std::move(e)); }
  int create_workload(model::Workload w);  // at now(), as the API server would
  // One scheduling cycle at now().
  CycleStats schedule();
  // schedule(), once the goroutine asleep in WaitForPodsReady is woken.
  CycleStats admit_held_entry();
  // Runs cycles at now() until one changes nothing, then the next instant's events.
  // Returns false when neither events nor progress remain.
  bool step();
  // Runs until idle or `cycles_max` cycles (-1: no bound); returns cycles run.
  long run(long cycles_max = -1, TimeMs until_ms = -1);

  TimeMs now() const { return now_ms; }
  bool gate(const std::string& name) const;
  // The feature gates the engine reads through gate(): kmc admit warns about any other set away
  // from its default (model::unread_gates).
  static bool reads_gate(const std::string& name);
  QueueOrdering ordering() const;  // what orders waiting workloads besides themselves
  // Empty heaps, one per ClusterQueue, ordered as the Configuration says: at start and after a
  // restart alike (manager.go builds its queue manager from the configured workloadOrdering).
  QueueManager make_queues() const;
  const WorkloadInfo* find(const std::string& key) const;
  WorkloadInfo* find(const std::string& key);
  int cq_index(const std::string& name) const;
  std::string dump() const;  // the whole state, for people and for diffs

  // State (public: the engine is a value to inspect).
  model::ClusterManifests manifests;
  EngineOptions options;
  FrTable frs;
  QuotaTree tree;
  std::vector<ClusterQueueInfo> cluster_queues;
  std::map<std::string, int> cohort_nodes;
  std::vector<double> fair_weights;  // per QuotaTree node: spec.fairSharing.weight
  std::vector<WorkloadInfo> workloads;
  std::vector<std::set<int>> cq_workloads;  // the cache: per ClusterQueue, ids holding quota
  std::map<std::string, int> workload_ids;
  QueueManager queues;
  EventQueue events;
  TimeMs now_ms = 0;
  std::int64_t scheduling_cycle = 0;
  std::int64_t next_uid = 1;
  std::int64_t next_reservation_seq = 0;
  std::set<int> pending_requeue_roots;  // RequeueInadmissible events posted, not yet run
  std::vector<EngineLogLine> log;
  long cycles_run = 0;
  // waitForPodsReady.blockAdmission: a Fit entry found a not-ready workload, so
  // Kueue's scheduling goroutine sleeps in cache.WaitForPodsReady inside that
  // entry's processEntry. No cycle runs until every workload holding quota is
  // PodsReady; then the goroutine admits the entry it holds, as its cycle
  // planned it (cycle.cpp). Shared by copies of the engine, never changed.
  std::shared_ptr<const Entry> pods_ready_held;
  bool pods_ready_blocked() const { return pods_ready_held != nullptr; }
  // A fault a trace replays: the scheduler's next eviction patch of this
  // workload (by id) fails, as IssuePreemptions' error path has it; the
  // victim keeps running. Reset to -1 once it failed.
  int fail_next_eviction = -1;
  // The same for a late admission patch: the scheduler's next eviction of this
  // workload, whose admission patch is in flight, is overwritten by that patch
  // (kueue#11480). Reset to -1 once it was.
  int overwrite_next_eviction = -1;
  // Replay of kmc.yaml's environment.queueEdits: how many the trace has applied
  // (the next is the operator's next edit).
  int queue_edits_applied = 0;

  // Helpers shared by the scheduler and the controllers.
  Snapshot make_snapshot() const;
  void log_line(std::string text) { log.push_back({now_ms, std::move(text)}); }
  void cache_add(WorkloadInfo& w);     // usage starts counting
  void cache_remove(WorkloadInfo& w);  // usage released
  // The same without the requeue of the inadmissible workloads its release
  // would trigger: a forgotten assumption, which no API event reports.
  void cache_forget(WorkloadInfo& w);
  void notify_requeue_inadmissible(int cq);  // QueueAssociatedInadmissibleWorkloadsAfter
  // The same for w's tree, where its LocalQueue (or a Cohort object above) lets Kueue find it.
  void requeue_associated_inadmissible(const WorkloadInfo& w);
  // Whether ClusterQueue cq's namespaceSelector selects w's namespace (its
  // Namespace's labels; the name label alone where the input has none).
  bool namespace_selected(int cq, const WorkloadInfo& w) const;
  void notify_requeue_tree(int node);  // the same for the tree of a quota tree node
  void handle(const Event& e);
  // PushOrUpdate unless the workload's LocalQueue is stopped (Kueue removes a
  // stopped LocalQueue from the queue manager, so its workloads are not queued).
  void enqueue(const WorkloadInfo& w);
  // AddFromLocalQueue, where a LocalQueue is added or resumed, a ClusterQueue
  // created or Kueue restarted: PushActiveIfNotPresent, backoff or not.
  void push_from_local_queue(const WorkloadInfo& w);
  bool local_queue_stopped(const WorkloadInfo& w) const;
  bool cohort_object_above(int cq) const;
  // ClusterQueue cq's status changed (a workload created, reserving or admitted): under a Cohort
  // object other than the root, the Cohort controller requeues the whole tree.
  void status_changed(int cq);
  // The LocalQueues that do not exist ("namespace/name"): deleted during the
  // run, or not created yet (queue_creation.cpp). Their workloads are in no
  // queue, and the workload controller finds the queue missing.
  std::set<std::string> deleted_local_queues;
  bool local_queue_deleted(const WorkloadInfo& w) const {
    return deleted_local_queues.contains(w.obj.meta.namespace_ + "/" + w.obj.queue_name);
  }
  // blockAdmission is on and some workload holding quota is not PodsReady.
  bool waiting_for_pods_ready() const;
  // Cohorts of the manifests that do not exist: deleted during the run, or
  // not created yet (queue_creation.cpp). Each is an implicit cohort.
  std::set<std::string> absent_cohorts;
  // The quotas a spec's resource groups give tree node `node` (a ClusterQueue
  // or a Cohort), into the tree (refresh() is the caller's).
  void set_spec_quotas(int node, const std::vector<model::ResourceGroup>& groups);
  void set_spec_quotas(const ClusterQueueInfo& cq) {
    set_spec_quotas(cq.node, cq.spec.resource_groups);
  }

 private:
  void build_quota_tree();
  void build_cluster_queue(const model::ClusterQueue& cq);
  void load_workload_requests(WorkloadInfo& w) const;
  void adopt_admission(WorkloadInfo& w);
  bool progress_pending_ = false;
};

}  // namespace kmc::engine
