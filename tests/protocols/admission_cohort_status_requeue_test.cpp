// A ClusterQueue's status update requeues its cohort tree where a Cohort object
// sits above it, below the root: clusterqueue_controller.go notifies the Cohort
// controller on every Update event, status-only ones too, and reconciling an
// existing Cohort object requeues the root's tree (AddOrUpdateCohort,
// notifyCohort). Implicit cohorts have no object to reconcile.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using namespace ka_check::steps;

TEST_CASE("a ClusterQueue's status change under a Cohort object requeues its parked workloads",
          "[admission][requeue][cohort-object]") {
  // cq0 {cpu: 1}: w0 reserves, w1 is parked (NoFit); w2 arrives, and under a Cohort object
  // cq0's pendingWorkloads change requeues w1. Then w2, too big, is parked, and w0's admission
  // through its check (admittedWorkloads) requeues both.
  for (const bool cohort_object : {false, true}) {
    DYNAMIC_SECTION("Cohort object above: " << cohort_object) {
      auto p = ka_check::queue_of_one(3, 1);
      p.cqs[0].cohort_object_above = cohort_object;
      p.workloads[2].arrives = true;
      p.workloads[2].req = {2};
      p.finish();
      ka_check::Walk step(p);
      auto& s = step.s;
      step(kSchedule);
      REQUIRE(s.phase[0] == ka::kAdmitted);
      step(kSchedule);
      REQUIRE(s.phase[1] == ka::kInadmissible);
      step(ka::Action{ka::kArrive, 2});
      CHECK(s.phase[1] == (cohort_object ? ka::kPending : ka::kInadmissible));
    }
  }
}
