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

TEST_CASE("a created Cohort gets its quota and parent, and requeues its new tree",
          "[engine][queue-creation]") {
  // root {} over b {cpu: 4}; team (parent root, cpu: 1 of its own) over a
  // {cpu: 0}, absent until created: an implicit cohort without quota or parent.
  Cluster c;
  c.flavor("default");
  c.cohort("root");
  c.cohort("team", "root").resource_groups = {group({"cpu"}, {{"default", {{"cpu", 1}}}})};
  c.cq("a", "team", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.cq("b", "root", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
  c.wl("borrower", "a", 0, {{"cpu", 3}});
  Engine e(c.m);
  const int root = e.cohort_nodes.at("root"), team = e.cohort_nodes.at("team");
  const FrId fr = e.frs.find("default", "cpu");
  REQUIRE(cohort_absent(e, "team"));
  CHECK_FALSE(cohort_absent(e, "team"));  // absent already
  CHECK_FALSE(cohort_absent(e, "nosuch"));
  CHECK_FALSE(e.tree.has_parent(team));
  CHECK(e.tree.subtree_quota(team, fr) == 0);
  e.run(-1, 5000);
  CHECK(state_of(e, "borrower") == "Pending");  // team has nothing to lend: parked
  REQUIRE(create_cohort(e, "team"));
  CHECK_FALSE(create_cohort(e, "team"));  // created already
  CHECK(e.tree.node(team).parent == root);
  CHECK(e.tree.subtree_quota(team, fr) == 1'000);
  CHECK(e.tree.subtree_quota(root, fr) == 5'000);
  e.run(-1, 10'000);
  // Requeued (AddOrUpdateCohort notifies the new tree's root), it borrows
  // team's 1 cpu and 2 of b's through root.
  CHECK(state_of(e, "borrower") == "Admitted");
  CHECK(e.tree.usage(root, fr) == 3'000);
}

TEST_CASE("a deleted Cohort created again is grafted back", "[engine][queue-creation]") {
  Cluster c;
  c.flavor("default");
  c.cohort("root");
  c.cohort("team", "root");
  c.cq("a", "team", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.cq("b", "root", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
  c.wl("borrower", "a", 0, {{"cpu", 3}});
  Engine e(c.m);
  REQUIRE(delete_cohort(e, "team"));
  e.run(-1, 5000);
  CHECK(state_of(e, "borrower") == "Pending");
  REQUIRE(create_cohort(e, "team"));
  e.run(-1, 10'000);
  CHECK(state_of(e, "borrower") == "Admitted");
}
