#include "engine/report.hpp"

#include <fmt/format.h>

namespace kmc::engine {

std::string workload_state(const WorkloadInfo& w) {
  if (w.is_finished()) return "Finished";
  if (w.is_evicted() && w.has_quota_reservation()) return "Evicted";
  if (w.is_admitted()) return "Admitted";
  if (w.has_quota_reservation()) return "QuotaReserved";
  return "Pending";
}

namespace {

WorkloadReport report_workload(const Engine& e, const WorkloadInfo& w) {
  WorkloadReport r;
  r.name = w.key;
  if (w.cluster_queue >= 0)
    r.cluster_queue = e.cluster_queues[static_cast<size_t>(w.cluster_queue)].name;
  r.state = workload_state(w);
  r.preempted = w.preempted_ever;
  if (w.obj.admission) {
    for (const auto& psa : w.obj.admission->pod_set_assignments) {
      r.flavors[psa.name] = psa.flavors;
      r.counts[psa.name] = psa.count;
    }
  }
  if (r.state == "Pending") {
    r.message = w.pending_message;
  } else if (const model::Condition* c =
                 w.condition(r.state == "Evicted" ? "Evicted" : "QuotaReserved")) {
    r.message = c->message;
  }
  if (r.state == "QuotaReserved") {
    for (const auto& s : w.obj.admission_checks) {
      if (s.state != model::CheckState::Ready) {
        r.message += fmt::format("; admission check {} is {}", s.name,
                                 s.state == model::CheckState::Pending ? "Pending" : "not Ready");
      }
    }
  }
  return r;
}

}  // namespace

AdmitReport make_report(const Engine& e, long cycles) {
  AdmitReport out;
  out.cycles = cycles;
  for (const WorkloadInfo& w : e.workloads) {
    if (!w.deleted) out.workloads.push_back(report_workload(e, w));
  }
  for (size_t i = 0; i < e.cluster_queues.size(); ++i) {
    const ClusterQueueInfo& cq = e.cluster_queues[i];
    ClusterQueueReport r;
    r.name = cq.name;
    r.active = cq.active;
    for (const auto& g : cq.groups) {
      for (const auto& f : g.flavors) {
        for (const auto& res : g.covered) {
          const FrId fr = e.frs.find(f, res);
          r.usage[f][res] = format_amount(res, fr >= 0 ? e.tree.usage(cq.node, fr) : 0);
        }
      }
    }
    for (const WorkloadInfo& w : e.workloads) {
      if (w.cluster_queue != static_cast<int>(i) || w.deleted) continue;
      if (w.has_quota_reservation() && w.is_admitted() && !w.is_finished()) r.admitted++;
      if (w.admissible()) r.pending++;
    }
    out.cluster_queues.push_back(std::move(r));
  }
  return out;
}

nlohmann::json to_json(const AdmitReport& r) {
  nlohmann::json j;
  j["workloads"] = nlohmann::json::array();
  for (const auto& w : r.workloads) {
    j["workloads"].push_back({{"name", w.name},
                              {"clusterQueue", w.cluster_queue},
                              {"state", w.state},
                              {"flavors", w.flavors},
                              {"counts", w.counts},
                              {"preempted", w.preempted},
                              {"message", w.message}});
  }
  j["clusterQueues"] = nlohmann::json::array();
  for (const auto& q : r.cluster_queues) {
    j["clusterQueues"].push_back({{"name", q.name},
                                  {"usage", q.usage},
                                  {"pending", q.pending},
                                  {"admitted", q.admitted},
                                  {"active", q.active}});
  }
  j["cycles"] = r.cycles;
  return j;
}

std::string to_text(const AdmitReport& r) {
  std::string out = fmt::format("Workloads ({} scheduling cycles)\n", r.cycles);
  for (const auto& w : r.workloads) {
    out += fmt::format("  {}  {}  clusterQueue={}{}\n", w.name, w.state,
                       w.cluster_queue.empty() ? "-" : w.cluster_queue,
                       w.preempted ? "  (preempted)" : "");
    for (const auto& [ps, flavors] : w.flavors) {
      std::string fl;
      for (const auto& [res, f] : flavors) fl += fmt::format(" {}={}", res, f);
      out += fmt::format("    pod set {} x{}:{}\n", ps, w.counts.at(ps), fl);
    }
    if (!w.message.empty()) out += fmt::format("    {}\n", w.message);
  }
  out += "ClusterQueues\n";
  for (const auto& q : r.cluster_queues) {
    out += fmt::format("  {}{}  admitted={} pending={}\n", q.name, q.active ? "" : " (inactive)",
                       q.admitted, q.pending);
    for (const auto& [f, res] : q.usage) {
      for (const auto& [name, v] : res) out += fmt::format("    usage {} {} = {}\n", f, name, v);
    }
  }
  std::string preempted;
  for (const auto& w : r.workloads) {
    if (w.preempted) preempted += " " + w.name;
  }
  out += "Preempted:" + (preempted.empty() ? std::string(" none") : preempted) + "\n";
  return out;
}

}  // namespace kmc::engine

namespace kmc::engine {

// The whole state for people and diffs: clock, queued events, workloads, queues.
std::string Engine::dump() const {
  std::string out = fmt::format("now: {}ms, scheduling cycle {}, {} events queued\n", now_ms,
                                scheduling_cycle, events.size());
  // A stalled engine must say why it is stalled (kueue-semantics §8 item 6).
  if (pods_ready_blocked())
    out += "scheduler blocked: waiting for every quota-holding workload to be PodsReady\n";
  EventQueue copy = events;
  while (!copy.empty()) {
    auto [at, ev] = copy.pop();
    out += fmt::format("  at {}ms: {}\n", at, describe(ev));
  }
  return out + to_text(make_report(*this, cycles_run));
}

}  // namespace kmc::engine
