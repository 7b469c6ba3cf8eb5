// What `kmc admit` prints: per workload its state, ClusterQueue, flavors and
// the pending reason in Kueue's words; per ClusterQueue its usage and counts.
// The JSON form is a contract (issue 3); the text form is for people.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace kmc::engine {

struct WorkloadReport {
  std::string name, cluster_queue, state, message;
  std::map<std::string, std::map<std::string, std::string>>
      flavors;  // pod set -> resource -> flavor
  std::map<std::string, std::int32_t> counts;
  bool preempted = false;
};
struct ClusterQueueReport {
  std::string name;
  std::map<std::string, std::map<std::string, std::string>>
      usage;  // flavor -> resource -> quantity
  int pending = 0, admitted = 0;
  bool active = true;
};
struct AdmitReport {
  std::vector<WorkloadReport> workloads;
  std::vector<ClusterQueueReport> cluster_queues;
  long cycles = 0;
};

std::string workload_state(const WorkloadInfo& w);
AdmitReport make_report(const Engine& e, long cycles);
nlohmann::json to_json(const AdmitReport& r);
std::string to_text(const AdmitReport& r);

}  // namespace kmc::engine
