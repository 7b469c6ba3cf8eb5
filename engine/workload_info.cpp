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

// workload.Ordering.GetQueueOrderTimestamp with requeuingStrategy.timestamp=Eviction.
TimeMs WorkloadInfo::queue_order_ms() const {
  if (const model::Condition* c = condition("Evicted"); c != nullptr && c->status == "True") {
    if (c->reason == "PodsReadyTimeout" || c->reason == "AdmissionCheck") {
      auto it = condition_ms.find("Evicted");
      if (it != condition_ms.end()) return it->second;
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
