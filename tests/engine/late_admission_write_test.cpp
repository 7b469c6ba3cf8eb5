// A late admission patch overwrites its workload's eviction
// (kubernetes-sigs/kueue#11480): the victim runs on. Since #11502 the
// preemption expectation is satisfied when the patch lands, so the next cycle
// evicts it again; before, the preemptor waits for an eviction it never sees.
#include <catch2/catch.hpp>

#include "engine/controllers.hpp"
#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;

namespace {

// cq "batch" {cpu: 0} borrows cq "team"'s {cpu: 1}; "sweep" is admitted by
// borrowing, its patch in flight, then "train" arrives in team and reclaims it.
Engine raced(bool fixed) {
  Cluster c;
  c.flavor("default");
  c.cq("team", "co", {group({"cpu"}, {{"default", {{"cpu", 1}}}})})
      .preemption.reclaim_within_cohort = kmc::model::ReclaimWithinCohortPolicy::Any;
  c.cq("batch", "co", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.wl("sweep", "batch", 0, {{"cpu", 1}});
  EngineOptions o;
  o.late_admission_writes = 1;
  o.satisfy_expectation_on_admission = fixed;
  Engine e(c.m, o);
  e.schedule();
  REQUIRE(state_of(e, "sweep") == "Admitted");
  e.create_workload(make_workload("train", "team", 0, {{"cpu", 1}}));
  WorkloadInfo& sweep = *const_cast<WorkloadInfo*>(e.find("ns/sweep"));
  REQUIRE(sweep.admission_in_flight);
  e.overwrite_next_eviction = sweep.id;
  e.schedule();
  CHECK(e.overwrite_next_eviction == -1);  // it was overwritten
  CHECK_FALSE(sweep.admission_in_flight);  // the late patch landed
  CHECK_FALSE(sweep.is_evicted());         // and dropped the Evicted condition
  CHECK(sweep.job_active);
  CHECK(e.options.late_admission_writes == 0);
  return e;
}

}  // namespace

TEST_CASE("engine: before #11502 a lost eviction leaves the preemptor waiting",
          "[engine][late-writes]") {
  Engine e = raced(false);
  e.run(-1, 60'000);  // cycles keep finding the expectation unsatisfied
  CHECK(state_of(e, "sweep") == "Admitted");
  CHECK(state_of(e, "train") == "Pending");
  restart_kueue(e);  // preemptionExpectations live in memory
  e.run(-1, 120'000);
  CHECK(state_of(e, "train") == "Admitted");
}

TEST_CASE("engine: since #11502 the next cycle evicts the victim again", "[engine][late-writes]") {
  Engine e = raced(true);
  e.run(-1, 60'000);
  CHECK(state_of(e, "train") == "Admitted");
  CHECK(state_of(e, "sweep") != "Admitted");
}
