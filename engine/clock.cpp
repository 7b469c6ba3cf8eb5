#include "engine/clock.hpp"

#include <fmt/format.h>

namespace kmc::engine {

void EventQueue::post(TimeMs at, Event e) {
  heap_.push(Item{at, seq_++, std::move(e)});
}

std::pair<TimeMs, Event> EventQueue::pop() {
  Item top = heap_.top();
  heap_.pop();
  return {top.at, std::move(top.event)};
}

std::string describe(const Event& e) {
  struct V {
    std::string operator()(const ev::WorkloadCreated& x) const {
      return fmt::format("WorkloadCreated {}/{}", x.workload.meta.namespace_, x.workload.meta.name);
    }
    std::string operator()(const ev::WorkloadDeleted& x) const {
      return "WorkloadDeleted " + x.key;
    }
    std::string operator()(const ev::JobFinished& x) const { return "JobFinished " + x.key; }
    std::string operator()(const ev::JobStopped& x) const { return "JobStopped " + x.key; }
    std::string operator()(const ev::PodsTerminated& x) const { return "PodsTerminated " + x.key; }
    std::string operator()(const ev::PodsStuckTerminating& x) const {
      return "PodsStuckTerminating " + x.key;
    }
    std::string operator()(const ev::StuckPodsFailed& x) const {
      return "StuckPodsFailed " + x.key;
    }
    std::string operator()(const ev::PodsReady& x) const { return "PodsReady " + x.key; }
    std::string operator()(const ev::PodsNotReady& x) const { return "PodsNotReady " + x.key; }
    std::string operator()(const ev::PodsReadyTimeout& x) const {
      return "PodsReadyTimeout " + x.key;
    }
    std::string operator()(const ev::BackoffExpired& x) const { return "BackoffExpired " + x.key; }
    std::string operator()(const ev::RequeueInadmissible& x) const {
      return fmt::format("RequeueInadmissible node {}", x.root_node);
    }
    std::string operator()(const ev::AdmissionCheckUpdate& x) const {
      return fmt::format("AdmissionCheckUpdate {} {} {}", x.key, x.check,
                         static_cast<int>(x.state));
    }
    std::string operator()(const ev::ProvisioningRequestCondition& x) const {
      return fmt::format("ProvisioningRequest {} {} {}=True", x.key, x.check, x.condition);
    }
    std::string operator()(const ev::ClusterQueueStopPolicy& x) const {
      return fmt::format("ClusterQueueStopPolicy {} {}", x.name, static_cast<int>(x.policy));
    }
    std::string operator()(const ev::LocalQueueStopPolicy& x) const {
      return fmt::format("LocalQueueStopPolicy {}/{} {}", x.namespace_, x.name,
                         static_cast<int>(x.policy));
    }
  };
  return std::visit(V{}, e);
}

}  // namespace kmc::engine
