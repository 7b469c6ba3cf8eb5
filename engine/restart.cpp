// Kueue's manager restarting (a crash, a rollout, a lost leader lease).
// Everything Kueue keeps only in memory is gone and rebuilt from the API
// objects: the cache from the Workloads' status.admission (unchanged here,
// since a reservation is written there), the queues from the Workloads that
// wait. So nothing is parked as inadmissible any more, no preemptor is kept
// sticky at its queue's head (#7157 keeps it in the queue manager only), no
// scheduling hash is remembered as bulk-moved, and the scheduler is not
// waiting for PodsReady. Timers that Kueue writes into status
// (requeueState.requeueAt) survive. An admission patch in flight lands first.
#include <fmt/format.h>

#include "engine/controllers.hpp"

namespace kmc::engine {

namespace {

// Before #15154: the pod informer replays every pod as a create, and the pod
// reconciler's Load finds a group with pods (all of them terminating) and no
// Workload, so it builds one from the pods as they are now: ungated, with the
// node selector the ungater wrote. #15154 finalizes such a group instead.
void readopt_terminating_pod_groups(Engine& e) {
  std::vector<int> groups;
  for (const auto& w : e.workloads)
    if (w.deleted && w.readopted_from < 0 && w.pods_terminating && pod_group(w.obj)) {
      const WorkloadInfo* live = e.find(w.key);
      if (live == nullptr || live->deleted) groups.push_back(w.id);
    }
  for (int id : groups) {
    model::Workload obj = e.workloads[static_cast<std::size_t>(id)].obj;
    // A new Workload: no status, and active (the original may have been deactivated).
    obj.admission.reset();
    obj.conditions.clear();
    obj.admission_checks.clear();
    obj.active = true;
    const int fresh = e.create_workload(std::move(obj));
    WorkloadInfo& w = e.workloads[static_cast<std::size_t>(fresh)];
    w.readopted_from = id;
    e.log_line(fmt::format("{} re-adopted from its terminating pods as a new Workload", w.key));
  }
}

}  // namespace

void restart_kueue(Engine& e) {
  // A patch in flight reached the API server before the new manager reads it.
  for (auto& w : e.workloads) {
    land_admission_write(e, w);
    w.preemption_expected = false;  // preemptionExpectations live in memory
  }
  e.queues = e.make_queues();
  for (auto& cq : e.cluster_queues) restart_cluster_queue(cq);
  e.pods_ready_held.reset();
  // The LocalQueues' Create events list their workloads (AddLocalQueue) and
  // push them into the heaps (AddFromLocalQueue), backoff or not; a Workload's
  // own Create event then finds it there already.
  for (const auto& w : e.workloads) e.push_from_local_queue(w);
  e.log_line("Kueue restarted: its queues were rebuilt from the pending Workloads");
  if (e.options.readopt_terminating_pod_groups) readopt_terminating_pod_groups(e);
}

}  // namespace kmc::engine
