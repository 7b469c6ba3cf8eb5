// Kueue's manager restarting (a crash, a rollout, a lost leader lease).
// Everything Kueue keeps only in memory is gone and rebuilt from the API
// objects: the cache from the Workloads' status.admission (unchanged here,
// since a reservation is written there), the queues from the Workloads that
// wait. So nothing is parked as inadmissible any more, no preemptor is kept
// sticky at its queue's head (#7157 keeps it in the queue manager only), no
// scheduling hash is remembered as bulk-moved, and the scheduler is not
// waiting for PodsReady. Timers that Kueue writes into status
// (requeueState.requeueAt) survive.
#include "engine/controllers.hpp"

namespace kmc::engine {

void restart_kueue(Engine& e) {
  QueueManager fresh;
  fresh.set_sticky_head(e.options.sticky_preemptor_head);
  for (const auto& cq : e.cluster_queues)
    fresh.add_cluster_queue(cq.spec.queueing_strategy == model::QueueingStrategy::StrictFIFO);
  e.queues = std::move(fresh);
  e.pods_ready_blocked = false;
  for (const auto& w : e.workloads)
    if (w.admissible() && w.cluster_queue >= 0) e.enqueue(w);
  e.log_line("Kueue restarted: its queues were rebuilt from the pending Workloads");
}

}  // namespace kmc::engine
