// A LocalQueue deleted while the cluster runs: no finalizer, so it is gone at
// once (LocalQueueReconciler.Delete, Manager.DeleteLocalQueue); an Admitted
// workload runs on, pending ones leave the queues for good.
#include <catch2/catch.hpp>

#include "engine/controllers.hpp"
#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;

TEST_CASE("a deleted LocalQueue's pending workloads leave the queues; admitted ones run on",
          "[engine][lq-deletion]") {
  Cluster c;
  c.flavor("default");
  c.cq("cq", "", {group({"cpu"}, {{"default", {{"cpu", 1}}}})});
  c.wl("running", "cq", 0, {{"cpu", 1}}).runtime_s = 10;
  c.wl("waiting", "cq", 0, {{"cpu", 1}});
  Engine e(c.m);
  e.run(-1, 1000);
  REQUIRE(state_of(e, "running") == "Admitted");
  REQUIRE(state_of(e, "waiting") == "Pending");
  const std::string lq = "lq-cq";
  REQUIRE(delete_local_queue(e, "ns", lq));
  CHECK_FALSE(delete_local_queue(e, "ns", lq));  // gone already
  CHECK_FALSE(delete_local_queue(e, "ns", "nosuch"));
  CHECK(state_of(e, "running") == "Admitted");
  e.run(-1, 60'000);
  CHECK(state_of(e, "running") == "Finished");
  CHECK(state_of(e, "waiting") == "Pending");  // the freed quota is there, the queue is not
  restart_kueue(e);                            // the rebuilt queues leave it out too
  e.run(-1, 120'000);
  CHECK(state_of(e, "waiting") == "Pending");
}
