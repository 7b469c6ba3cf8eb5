#include "engine/workload_info.hpp"

namespace kmc::engine {

bool LastAssignment::pending_flavors() const {
  for (const auto& ps : last_tried_flavor_idx) {
    for (const auto& [res, idx] : ps) {
      if (idx != -1) return true;
    }
  }
  return false;
}

int LastAssignment::next_flavor_to_try(size_t pod_set, const std::string& resource) const {
  if (pod_set >= last_tried_flavor_idx.size()) return 0;
  auto it = last_tried_flavor_idx[pod_set].find(resource);
  return it == last_tried_flavor_idx[pod_set].end() ? 0 : it->second + 1;
}

const model::Condition* WorkloadInfo::condition(const std::string& type) const {
  for (const auto& c : obj.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool WorkloadInfo::is_true(const std::string& type) const {
  const model::Condition* c = condition(type);
  return c != nullptr && c->status == "True";
}

// workload.Ordering.GetQueueOrderTimestamp: the creation time, except for a
// workload a PodsReady timeout evicted (requeuingStrategy.timestamp Eviction)
// or an admission check evicted, which waits from the eviction; and, with
// PrioritySortingWithinCohort off, one preempted to reclaim quota while it
// borrowed, which waits from just after the preemption.
TimeMs WorkloadInfo::queue_order_ms(const QueueOrdering& o) const {
  if (const model::Condition* c = condition("Evicted"); c != nullptr && c->status == "True") {
    if ((c->reason == "PodsReadyTimeout" && o.pods_ready_by_eviction) ||
        c->reason == "AdmissionCheck") {
      auto it = condition_ms.find("Evicted");
      if (it != condition_ms.end()) return it->second;
    }
  }
  if (!o.priority_sorting_within_cohort) {
    if (const model::Condition* c = condition("Preempted");
        c != nullptr && c->status == "True" && c->reason == "InCohortReclaimWhileBorrowing") {
      auto it = condition_ms.find("Preempted");
      if (it != condition_ms.end()) return it->second + 1;
    }
  }
  return created_ms;
}

// quotaReservationTime: a missing condition counts as now.
TimeMs WorkloadInfo::quota_reserved_ms(TimeMs now) const {
  if (!has_quota_reservation()) return now;
  auto it = condition_ms.find("QuotaReserved");
  return it == condition_ms.end() ? now : it->second;
}

void WorkloadInfo::set_condition(const std::string& type, bool status, const std::string& reason,
                                 const std::string& message, TimeMs now) {
  const std::string s = status ? "True" : "False";
  for (auto& c : obj.conditions) {
    if (c.type != type) continue;
    if (c.status != s) {
      c.last_transition_s = now / 1000;
      condition_ms[type] = now;
    }
    c.status = s;
    c.reason = reason;
    c.message = message;
    return;
  }
  obj.conditions.push_back(model::Condition{type, s, reason, message, now / 1000});
  condition_ms[type] = now;
}

}  // namespace kmc::engine
