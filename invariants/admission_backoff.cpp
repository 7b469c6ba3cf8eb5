// I8: a workload waits out its backoff before it is back in its
// ClusterQueue's heap. Kueue evicts a workload whose pods were not ready in
// time (waitForPodsReady) or whose admission check asked for a retry, and
// keeps it out of the heaps until its requeueAt: backoffWaitingTimeExpired
// guards PushOrUpdate, requeueIfNotPresent and QueueInadmissibleWorkloads
// (kubernetes-sigs/kueue#2362, "Wait for Requeue condition before push to
// heap"). AddFromLocalQueue, which runs when a LocalQueue is added or resumed,
// a ClusterQueue is created or Kueue restarts, pushes with
// PushActiveIfNotPresent and reads no backoff: the workload may be admitted
// again at once, the backoff skipped. Registered where a restart or a queue
// edit can do that (AdmissionParams::may_push_in_backoff).
#include "invariants/admission_registry.hpp"

namespace kmc::invariants {

AdmissionProperty no_requeue_before_backoff(const AdmissionInstance& p) {
  const int W = p.params().W();
  return AdmissionProperty::always(
      "no-requeue-before-backoff",
      "no workload is back in its ClusterQueue's heap before its backoff ends",
      {.holds = [W](const AdmissionInstance::State& s) {
        for (int w = 0; w < W; ++w)
          if (s.phase[w] == protocols::ka::kQueuedInBackoff) return false;
        return true;
      }});
}

}  // namespace kmc::invariants
