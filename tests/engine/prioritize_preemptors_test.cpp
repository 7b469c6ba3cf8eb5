// PrioritizePreemptorWorkloads (alpha, Kueue 0.20, #13662): a ClusterQueue's
// preemptor, waiting for its victims to stop, goes first in the cycle and,
// with no candidates left to preempt, keeps the quota it could use even where
// its ClusterQueue can always reclaim, so a borrower of another queue does not
// take it meanwhile (scheduler.go reserveCapacityForUnreclaimablePreempt).
// tests/protocols/admission_prioritize_preemptors_test.cpp has the model's side.
#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;

namespace {

// Cohort "co": "a" with 10 cpu (can always reclaim) and "b" with none, borrowing.
// "keep" (priority 100, 8 cpu) holds "a"; "high" (priority 10, 9 cpu) cannot
// preempt it, yet is "a"'s preemptor (its victims going, say) when "borrower"
// (2 cpu, in "b") comes.
Engine racing(bool gate, bool strict) {
  Cluster c;
  c.flavor("default");
  auto& a = c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  a.preemption.within_cluster_queue = kmc::model::WithinClusterQueuePolicy::LowerPriority;
  a.preemption.reclaim_within_cohort = kmc::model::ReclaimWithinCohortPolicy::Any;
  if (strict) a.queueing_strategy = kmc::model::QueueingStrategy::StrictFIFO;
  c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.wl("keep", "a", 100, {{"cpu", 8}});
  c.m.configuration.feature_gates.gates["PrioritizePreemptorWorkloads"] = gate;
  Engine e(c.m);
  e.run();
  REQUIRE(state_of(e, "keep") == "Admitted");
  e.create_workload(make_workload("high", "a", 10, {{"cpu", 9}}));
  e.queues.requeue(*e.find("ns/high"), RequeueReason::PendingPreemption, e.now(), e.workloads);
  e.create_workload(make_workload("borrower", "b", 0, {{"cpu", 2}}));
  e.schedule();  // one cycle with both heads
  return e;
}

}  // namespace

TEST_CASE("prioritize preemptors: off, a borrower takes what the preemptor would use",
          "[engine][preemption]") {
  const Engine e = racing(false, false);
  CHECK(state_of(e, "borrower") == "Admitted");
  CHECK(e.queues.sticky(0) == e.find("ns/high")->id);
}

TEST_CASE("prioritize preemptors: on, the preemptor keeps it, in either queueing strategy",
          "[engine][preemption]") {
  for (const bool strict : {false, true}) {
    INFO("StrictFIFO " << strict);
    Engine e = racing(true, strict);
    CHECK(state_of(e, "borrower") == "Pending");
    CHECK(e.queues.preemptor(0) == e.find("ns/high")->id);
    // A StrictFIFO queue tracks its preemptor but keeps no sticky head.
    CHECK(e.queues.sticky(0) == (strict ? -1 : e.find("ns/high")->id));
    // A BestEffortFIFO queue parks its preemptor with no candidates
    // (inadmissible): the next cycle has the borrower alone. A StrictFIFO
    // queue keeps it at its head, reserving in every cycle.
    e.run();
    CHECK(state_of(e, "borrower") == (strict ? "Pending" : "Admitted"));
  }
}
