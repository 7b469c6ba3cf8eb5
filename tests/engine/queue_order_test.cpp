// workload.Ordering.GetQueueOrderTimestamp (workload.go): the time a waiting
// workload is ordered by within its priority, in the ClusterQueue heap, the
// scheduler's entry order, fair sharing's tournament and the
// LowerOrNewerEqualPriority preemption policy.
#include <catch2/catch.hpp>

#include "engine/workload_info.hpp"

using namespace kmc::engine;

namespace {

constexpr TimeMs kCreated = 1'000, kEvicted = 50'000;

// A workload created at kCreated with condition `type` True for `reason` since kEvicted.
WorkloadInfo with(const std::string& type, const std::string& reason) {
  WorkloadInfo w;
  w.created_ms = kCreated;
  if (!type.empty()) w.set_condition(type, true, reason, "", kEvicted);
  return w;
}

}  // namespace

TEST_CASE("the queue-order timestamp follows the eviction's reason and the Configuration",
          "[engine][queue-order]") {
  const QueueOrdering defaults;
  const QueueOrdering by_creation{.pods_ready_by_eviction = false};
  const QueueOrdering no_priority_sorting{.priority_sorting_within_cohort = false};
  struct Row {
    const char* type;
    const char* reason;
    TimeMs by_default, with_creation, without_priority_sorting;
  };
  const Row rows[] = {
      {"", "", kCreated, kCreated, kCreated},
      // requeuingStrategy.timestamp decides for a PodsReady timeout only.
      {"Evicted", "PodsReadyTimeout", kEvicted, kCreated, kEvicted},
      {"Evicted", "AdmissionCheck", kEvicted, kEvicted, kEvicted},
      {"Evicted", "Preempted", kCreated, kCreated, kCreated},
      // With PrioritySortingWithinCohort off, a workload preempted to reclaim
      // quota while it borrowed goes just behind its preemptor.
      {"Preempted", "InCohortReclaimWhileBorrowing", kCreated, kCreated, kEvicted + 1},
      {"Preempted", "InClusterQueue", kCreated, kCreated, kCreated},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.type << " " << row.reason) {
      const WorkloadInfo w = with(row.type, row.reason);
      CHECK(w.queue_order_ms(defaults) == row.by_default);
      CHECK(w.queue_order_ms(by_creation) == row.with_creation);
      CHECK(w.queue_order_ms(no_priority_sorting) == row.without_priority_sorting);
    }
  }
}

TEST_CASE("a condition no longer True orders by creation again", "[engine][queue-order]") {
  WorkloadInfo w = with("Evicted", "PodsReadyTimeout");
  w.set_condition("Evicted", false, "QuotaReserved", "", kEvicted + 10);
  CHECK(w.queue_order_ms(QueueOrdering{}) == kCreated);
}
