// `kmc simulate`: Kueue's scheduler-performance generator format
// (test/performance/scheduler/runner/generator) replayed on the engine's
// virtual clock, summarised as Kueue's recorder does: usage per ClusterQueue
// class (CPU used over time / nominal quota over the run) and average time to
// admission per workload class.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace kmc::engine {

struct GeneratorWorkload {
  std::string class_name;
  std::int64_t runtime_ms = 0;
  std::int32_t priority = 0;
  std::string request = "1";
};
struct GeneratorWorkloadsSet {
  int count = 0;
  std::int64_t creation_interval_ms = 0;
  std::vector<GeneratorWorkload> workloads;
};
struct GeneratorQueuesSet {
  std::string class_name;
  int count = 0;
  std::string nominal_quota, borrowing_limit;
  std::string reclaim_within_cohort = "Never", within_cluster_queue = "Never";
  std::vector<GeneratorWorkloadsSet> workloads_sets;
};
struct GeneratorCohortSet {
  std::string class_name;
  int count = 0;
  std::vector<GeneratorQueuesSet> queues_sets;
};
struct GeneratorConfig {
  std::string flavor = "rf";
  std::vector<GeneratorCohortSet> cohorts;
};

// Throws model::InputError naming file, line and field.
GeneratorConfig load_generator(const std::string& path);

struct ClassUsage {
  double usage_percent = 0;
  std::int64_t nominal_milli = 0;
  int queues = 0;
};
struct ClassAdmission {
  int count = 0;
  std::int64_t avg_time_to_admission_ms = 0;
  std::int64_t avg_time_to_finish_ms = 0;
};
struct SimulationSummary {
  std::map<std::string, ClassUsage> cluster_queue_classes;
  std::map<std::string, ClassAdmission> workload_classes;
  std::int64_t workloads = 0, finished = 0, evictions = 0;
  std::int64_t virtual_ms = 0;
  long cycles = 0;
  std::uint64_t seed = 0;
};

// Progress: (virtual ms, workloads finished, workloads total).
using Progress = std::function<void(std::int64_t, std::int64_t, std::int64_t)>;
SimulationSummary simulate(const GeneratorConfig& config, std::uint64_t seed,
                           const Progress& progress = {});

}  // namespace kmc::engine
