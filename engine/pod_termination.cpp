// The Pod integration's quota release (kueue-semantics.md §4.6;
// pkg/controller/jobs/pod/pod_controller.go). The job reconciler unsets an
// evicted workload's reservation once `!job.IsActive()`. A batch/v1 Job is
// inactive as soon as its pods are terminating (the Job controller does not
// count them), so its quota goes at eviction. So does a single plain Pod's:
// (*Pod).IsActive looks at a group's pods only and is false for a lone Pod. A
// pod group is active while any of its pods is Running, and a terminating pod
// runs until its grace period ends and the kubelet confirms it gone.
// FastQuotaReleaseInPodIntegration (KEP-6143) counts a pod with a deletionTimestamp as inactive at
// once.
//
// With EngineOptions::pod_termination_on_event the environment says when that
// happens (ev::PodsTerminated), or that it never will (ev::PodsStuckTerminating:
// the node's kubelet is gone, K13), until the FailureRecoveryPolicy
// PodTermination controller (#7312) fails the stuck pods (ev::StuckPodsFailed).
// Whether that controller runs is the environment's: a Kueue before #7312 never
// sends the event.
#include <fmt/format.h>

#include <algorithm>

#include "engine/controllers.hpp"

namespace kmc::engine {

bool pod_group(const model::Workload& w) {
  const auto it = w.meta.annotations.find("kueue.x-k8s.io/is-group-workload");
  return (it != w.meta.annotations.end() && it->second == "true") ||
         w.meta.labels.contains("kueue.x-k8s.io/pod-group-name");
}

bool holds_quota_until_pods_terminate(const Engine& e, const WorkloadInfo& w) {
  return e.options.pod_termination_on_event && pod_group(w.obj) &&
         !e.gate("FastQuotaReleaseInPodIntegration");
}

void pods_terminated(Engine& e, WorkloadInfo& w) {
  // A stuck pod does not terminate: the kubelet that would report it is gone.
  if (!w.pods_terminating || w.pods_stuck) return;
  w.pods_terminating = false;
  e.log_line(fmt::format("{}'s pods terminated", w.key));
  if (w.deleted) {
    // Its Workload is gone already. One re-adopted from these pods has none
    // left: the pod reconciler finds no pod of the group and finalizes it.
    for (auto& o : e.workloads)
      if (o.readopted_from == w.id && !o.deleted) {
        delete_workload(e, o);
        e.log_line(fmt::format("{} (re-adopted) finalized: its pod group has no pods", o.key));
      }
    return;
  }
  release_quota_after_stop(e, w);
}

void pods_stuck_terminating(Engine& e, WorkloadInfo& w) {
  if (!w.pods_terminating || w.pods_stuck) return;
  w.pods_stuck = true;
  e.log_line(fmt::format("{}'s pods are stuck terminating (kubelet lost)", w.key));
  // The node lifecycle controller marks the lost node's pods NotReady, and
  // generatePodsReadyCondition follows: WaitForRecovery while the workload is
  // still Admitted. blockAdmission then waits on it while the cache holds it.
  if (pods_ready_enabled(e) && w.pods_ready && !w.deleted) {
    w.pods_ready = false;
    w.set_condition("PodsReady", false, w.is_admitted() ? "WaitForRecovery" : "WaitForStart",
                    "At least one pod has failed, waiting for recovery", e.now());
  }
}

void stuck_pods_failed(Engine& e, WorkloadInfo& w) {
  if (!w.pods_stuck) return;
  w.pods_stuck = false;
  w.pods_terminating = false;
  e.log_line(fmt::format("the PodTermination controller failed {}'s stuck pods", w.key));
  release_quota_after_stop(e, w);
}

}  // namespace kmc::engine
