// Queues created while the cluster runs (engine/queue_creation.cpp): absent
// until then, a ClusterQueue's quota in no cohort and a LocalQueue's workloads
// in no queue; AddClusterQueue and AddLocalQueue bring them in.
#include <catch2/catch.hpp>

#include "engine/controllers.hpp"
#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;

TEST_CASE("a created ClusterQueue's quota joins its cohort and requeues the parked borrower",
          "[engine][queue-creation]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 2}}}})});
  c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 2}}}})});
  c.wl("borrower", "a", 0, {{"cpu", 4}});
  Engine e(c.m);
  REQUIRE(cluster_queue_absent(e, "b"));
  CHECK_FALSE(cluster_queue_absent(e, "b"));  // absent already
  CHECK_FALSE(cluster_queue_absent(e, "nosuch"));
  e.run(-1, 5000);
  CHECK(state_of(e, "borrower") == "Pending");  // the cohort has a's 2 cpu only: parked
  REQUIRE(create_cluster_queue(e, "b"));
  CHECK_FALSE(create_cluster_queue(e, "b"));  // created already
  e.run(-1, 10'000);
  // Requeued (AddClusterQueue's notifyRetryInadmissible), it borrows b's 2 cpu.
  CHECK(state_of(e, "borrower") == "Admitted");
}

TEST_CASE("a created LocalQueue's pending workloads are queued", "[engine][queue-creation]") {
  Cluster c;
  c.flavor("default");
  c.cq("cq", "", {group({"cpu"}, {{"default", {{"cpu", 1}}}})});
  c.wl("waiting", "cq", 0, {{"cpu", 1}});
  Engine e(c.m);
  REQUIRE(local_queue_absent(e, "ns", "lq-cq"));
  CHECK_FALSE(local_queue_absent(e, "ns", "nosuch"));
  e.run(-1, 5000);
  CHECK(state_of(e, "waiting") == "Pending");  // quota free, no queue
  restart_kueue(e);                            // the rebuilt queues leave it out too
  e.run(-1, 10'000);
  CHECK(state_of(e, "waiting") == "Pending");
  REQUIRE(create_local_queue(e, "ns", "lq-cq"));
  CHECK_FALSE(create_local_queue(e, "ns", "lq-cq"));
  e.run(-1, 15'000);
  CHECK(state_of(e, "waiting") == "Admitted");
}
