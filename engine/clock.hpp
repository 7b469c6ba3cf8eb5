// The virtual clock and the event queue.
//
// Everything the environment does (a workload created, pods becoming ready, a
// job finishing, an autoscaler answering, an admission check changing) and
// every delayed reaction of a controller (backoff expiry, the inadmissible
// requeue batch period, the PodsReady timeout) is an Event at a virtual time.
// Events at the same time run in the order they were posted, so a run is a
// pure function of its inputs.
#pragma once

#include <cstdint>
#include <optional>
#include <queue>
#include <string>
#include <variant>
#include <vector>

#include "engine/workload_info.hpp"
#include "model/kueue_objects.hpp"

namespace kmc::engine {

namespace ev {
struct WorkloadCreated {
  model::Workload workload;
  std::int64_t runtime_ms = -1;  // overrides workload.runtime_s when set (sub-second runtimes)
};
struct WorkloadDeleted {
  std::string key;
};
struct JobFinished {
  std::string key;
  std::int64_t admission_epoch = -1;
};  // -1: whatever run is current
struct JobStopped {
  std::string key;
};  // the job's pods are gone after an eviction
// The Pod integration (pod_termination.cpp), with EngineOptions::pod_termination_on_event:
// an evicted workload's terminating pods are gone (the kubelet confirmed it).
struct PodsTerminated {
  std::string key;
};
// The node of an evicted workload's terminating pods lost its kubelet: they keep
// their deletionTimestamp and phase Running, and never terminate by themselves.
struct PodsStuckTerminating {
  std::string key;
};
// The FailureRecoveryPolicy PodTermination controller (#7312) sets pods stuck
// terminating on an unreachable node Failed: the job is inactive.
struct StuckPodsFailed {
  std::string key;
};
struct PodsReady {
  std::string key;
};
// A pod of a running job failed or lost readiness after PodsReady was True.
struct PodsNotReady {
  std::string key;
};
struct PodsReadyTimeout {
  std::string key;
  std::int64_t admission_epoch;
};
struct BackoffExpired {
  std::string key;
};
struct RequeueInadmissible {
  int root_node;
};  // the cohort tree's root, or a standalone CQ's node
struct AdmissionCheckUpdate {
  std::string key, check;
  model::CheckState state;
  std::optional<std::int32_t> requeue_after_seconds;
  std::string message;
};
// spec.stopPolicy of a ClusterQueue or a LocalQueue edited by a user.
struct ClusterQueueStopPolicy {
  std::string name;
  model::StopPolicy policy;
};
struct LocalQueueStopPolicy {
  std::string namespace_, name;
  model::StopPolicy policy;
};
// A ProvisioningRequest condition set to True by the autoscaler.
struct ProvisioningRequestCondition {
  std::string key, check, condition;
};
}  // namespace ev

using Event = std::variant<
    ev::WorkloadCreated, ev::WorkloadDeleted, ev::JobFinished, ev::JobStopped, ev::PodsReady,
    ev::PodsNotReady, ev::PodsReadyTimeout, ev::BackoffExpired, ev::RequeueInadmissible,
    ev::AdmissionCheckUpdate, ev::ProvisioningRequestCondition, ev::ClusterQueueStopPolicy,
    ev::LocalQueueStopPolicy, ev::PodsTerminated, ev::PodsStuckTerminating, ev::StuckPodsFailed>;

std::string describe(const Event& e);

class EventQueue {
 public:
  void post(TimeMs at, Event e);
  bool empty() const { return heap_.empty(); }
  TimeMs next_time() const { return heap_.top().at; }
  // The event pop() would return, left in the queue (replay decides whether it is due).
  const Event& next_event() const { return heap_.top().event; }
  // Pops the earliest event (FIFO among equal times).
  std::pair<TimeMs, Event> pop();
  size_t size() const { return heap_.size(); }

 private:
  struct Item {
    TimeMs at;
    std::uint64_t seq;
    Event event;
    bool operator>(const Item& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace kmc::engine
