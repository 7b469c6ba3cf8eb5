// The fleet's clock: every cluster is brought to the same instant, the
// MultiKueue controllers react, and the clusters run again until nothing
// changes; only then does virtual time move to the next event or timer.
#include <fmt/format.h>

#include <algorithm>

#include "engine/multikueue.hpp"

namespace kmc::engine {

Fleet::Fleet(const model::ClusterManifests& m,
             const std::vector<std::pair<std::string, model::ClusterManifests>>& ws,
             EngineOptions options)
    : manager(m, options) {
  now_ms_ = manager.now();
  for (const auto& [name, wm] : ws) {
    auto [it, inserted] = workers.emplace(name, Engine(wm, options));
    now_ms_ = std::max(now_ms_, it->second.now());
  }
  for (const auto& c : m.multikueue_clusters) {
    if (!c.active) disconnected_since[c.meta.name] = now_ms_;
  }
  for (WorkloadInfo& w : manager.workloads) adopt_manager_workload(w);
}

// The local job is managedBy MultiKueue and never runs on the manager: only
// the remote copy runs for the workload's runtime.
void Fleet::adopt_manager_workload(WorkloadInfo& w) {
  remote_runtime_ms[w.key] = w.runtime_ms;
  w.runtime_ms = 0;
}

int Fleet::create_workload(model::Workload w) {
  manager.now_ms = now_ms_;
  const int id = manager.create_workload(std::move(w));
  adopt_manager_workload(manager.workloads[static_cast<size_t>(id)]);
  return id;
}

void Fleet::apply_connection_events() {
  while (!connection_events_.empty() && connection_events_.begin()->first <= now_ms_) {
    const ConnectionChange c = connection_events_.begin()->second;
    connection_events_.erase(connection_events_.begin());
    apply_connection(c);
  }
}

void Fleet::apply_connection(const ConnectionChange& c) {
  if (c.connected) {
    disconnected_since.erase(c.worker);
  } else if (!disconnected_since.contains(c.worker)) {
    // The manager's Jobs keep the status last copied from w (sync_job_status, every reconcile).
    disconnected_since[c.worker] = now_ms_;  // kept across failed reconnects
  }
  manager.log_line(fmt::format("worker {} {}", c.worker, c.connected ? "connected" : "lost"));
}

bool Fleet::reconcile_all() {
  bool changed = false;
  for (size_t i = 0; i < manager.workloads.size(); ++i) {
    WorkloadInfo& w = manager.workloads[i];
    if (w.deleted) continue;
    const std::string check = multikueue_check(manager, w);
    if (!check.empty()) changed = reconcile_multikueue(*this, w, check) || changed;
  }
  return changed;
}

void Fleet::settle() {
  for (int round = 0; round < 10000; ++round) {
    apply_connection_events();
    manager.now_ms = now_ms_;
    manager.run(-1, now_ms_);
    for (auto& [name, e] : workers) {
      e.now_ms = now_ms_;
      e.run(-1, now_ms_);
    }
    if (!reconcile_all()) return;
  }
}

TimeMs Fleet::next_due() const {
  TimeMs next = -1;
  auto consider = [&](TimeMs t) {
    if (t > now_ms_ && (next < 0 || t < next)) next = t;
  };
  if (!manager.events.empty()) consider(manager.events.next_time());
  for (const auto& [name, e] : workers) {
    if (!e.events.empty()) consider(e.events.next_time());
  }
  if (!connection_events_.empty()) consider(connection_events_.begin()->first);
  for (TimeMs t : timers) consider(t);
  return next;
}

bool Fleet::step(TimeMs until_ms) {
  settle();
  while (!timers.empty() && *timers.begin() <= now_ms_) timers.erase(timers.begin());
  const TimeMs next = next_due();
  if (next < 0 || (until_ms >= 0 && next > until_ms)) return false;
  now_ms_ = next;
  return true;
}

void Fleet::run(TimeMs until_ms) {
  while (step(until_ms)) {
  }
}

}  // namespace kmc::engine
