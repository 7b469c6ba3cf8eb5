// Candidates reserved at the same time (preemption/common/ordering.go
// CandidatesOrdering): Kueue's quotaReservationTime has whole seconds, and a tie
// falls to the UIDs, random in a cluster, so either victim is a Kueue run. The
// engine takes the model's order (its `rank`; tests/protocols/admission_preemption_tie_test.cpp):
// the later reservation first and, among workloads a dump shows reserved in one
// second, the later created. A replay of a model trace must agree on the victim.
#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;

TEST_CASE("preemption ties: of two loaded in the same second, the later created goes first",
          "[engine][preemption][ties]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 2}}}})}).preemption.within_cluster_queue =
      kmc::model::WithinClusterQueuePolicy::LowerPriority;
  loaded_admitted(c.wl("w1", "a", 0, {{"cpu", 1}}), "a", "default", 100);
  loaded_admitted(c.wl("w2", "a", 0, {{"cpu", 1}}), "a", "default", 100);
  c.wl("urgent", "a", 10, {{"cpu", 1}});
  Engine e(c.m);
  CHECK(e.schedule().preempted == 1);
  CHECK(e.find("ns/w2")->is_evicted());
  CHECK_FALSE(e.find("ns/w1")->is_evicted());
}

TEST_CASE("preemption ties: of two reserved at one instant, the later reservation goes first",
          "[engine][preemption][ties]") {
  // Two cycles of one instant reserve w1, then w2: the same quotaReservationTime.
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 2}}}})}).preemption.within_cluster_queue =
      kmc::model::WithinClusterQueuePolicy::LowerPriority;
  c.wl("w1", "a", 0, {{"cpu", 1}});
  c.wl("w2", "a", 0, {{"cpu", 1}});
  Engine e(c.m);
  e.run(-1, 0);
  REQUIRE(state_of(e, "w1") == "Admitted");
  REQUIRE(state_of(e, "w2") == "Admitted");
  e.create_workload(make_workload("urgent", "a", 10, {{"cpu", 1}}));
  CHECK(e.schedule().preempted == 1);
  CHECK(e.find("ns/w2")->is_evicted());
  CHECK_FALSE(e.find("ns/w1")->is_evicted());
}
