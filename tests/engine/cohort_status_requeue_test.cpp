// A ClusterQueue's status update requeues its cohort tree where a Cohort object
// sits above it, below the root (clusterqueue_controller.go notifyWatchers,
// cohort_controller.go cohortCqHandler and AddOrUpdateCohort).
#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;

TEST_CASE("a ClusterQueue's status change under a Cohort object requeues its tree",
          "[engine][requeue][cohort-object]") {
  // clusterqueue_controller.go notifies the Cohort controller on every Update event, status-only
  // ones too; reconciling an existing Cohort object below the root requeues the root's tree.
  for (const bool cohort_object : {false, true}) {
    DYNAMIC_SECTION("Cohort object above: " << cohort_object) {
      Cluster c;
      c.flavor("default");
      if (cohort_object) {
        c.cohort("root");
        c.cohort("co", "root");
      }
      c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
      c.wl("big", "a", 0, {{"cpu", 8}});
      Engine e(c.m);
      e.run(-1, 5000);
      REQUIRE(e.queues.in_inadmissible(*e.find("ns/big")));
      REQUIRE(e.pending_requeue_roots.empty());
      e.create_workload(make_workload("small", "a", 0, {{"cpu", 1}}));  // pendingWorkloads
      CHECK(e.pending_requeue_roots.empty() != cohort_object);
      e.run(-1, e.now() + 500);
      REQUIRE(state_of(e, "small") == "Admitted");  // reservingWorkloads, admittedWorkloads
      CHECK(e.pending_requeue_roots.empty() != cohort_object);
      e.run(-1, e.now() + 1000);
      CHECK(e.pending_requeue_roots.empty());
      CHECK(e.queues.in_inadmissible(*e.find("ns/big")));  // popped again, and NoFit again
    }
  }
}
