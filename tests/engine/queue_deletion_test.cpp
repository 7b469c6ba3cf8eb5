// A ClusterQueue deleted while the cluster runs (clusterqueue_controller.go):
// terminating while workloads hold quota in it (inactive: no admissions, no
// spec updates), then gone, its quota out of its cohort; nothing is evicted.
#include <catch2/catch.hpp>

#include "engine/controllers.hpp"
#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;

TEST_CASE("a deleted ClusterQueue terminates until its workloads are gone, then leaves its cohort",
          "[engine][cq-deletion]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("job", "b", 0, {{"cpu", 4}}).runtime_s = 10;
  c.wl("borrower", "a", 0, {{"cpu", 6}});
  Engine e(c.m);
  e.run(-1, 5000);
  REQUIRE(state_of(e, "job") == "Admitted");
  REQUIRE(state_of(e, "borrower") == "Admitted");  // borrows from b's quota
  REQUIRE(delete_cluster_queue(e, "b"));
  CHECK_FALSE(delete_cluster_queue(e, "b"));
  CHECK_FALSE(delete_cluster_queue(e, "nosuch"));
  CHECK_FALSE(finalize_cluster_queue(e, "b"));  // not terminating in the cache yet
  REQUIRE(terminate_cluster_queue(e, "b"));
  CHECK_FALSE(terminate_cluster_queue(e, "b"));
  CHECK_FALSE(terminate_cluster_queue(e, "a"));  // not deleted
  // Terminating: no admissions, though b has quota free, and spec updates ignored.
  e.create_workload(make_workload("late", "b", 0, {{"cpu", 2}}));
  e.run(-1, 6000);
  CHECK(state_of(e, "late") == "Pending");
  CHECK_FALSE(update_quotas(e, "b", false,
                            {{"default", "cpu", Amount{20'000}, std::nullopt, std::nullopt}}));
  CHECK_FALSE(finalize_cluster_queue(e, "b"));  // job holds quota in it
  CHECK_FALSE(finalize_cluster_queue(e, "a"));  // not deleted
  const int co = e.cohort_nodes.at("co");
  const FrId fr = e.frs.find("default", "cpu");
  CHECK(e.tree.subtree_quota(co, fr) == 10'000);  // still counts while terminating
  e.run(-1, 20'000);
  REQUIRE(state_of(e, "job") == "Finished");
  REQUIRE(finalize_cluster_queue(e, "b"));
  CHECK_FALSE(finalize_cluster_queue(e, "b"));
  CHECK(e.tree.subtree_quota(co, fr) == 0);
  CHECK(e.tree.usage(co, fr) == 6'000);          // above what the cohort has now
  CHECK(state_of(e, "borrower") == "Admitted");  // and nothing is evicted for it
  e.create_workload(make_workload("next", "a", 0, {{"cpu", 1}}));
  e.run(-1, 30'000);
  CHECK(state_of(e, "next") == "Pending");
  CHECK(state_of(e, "late") == "Pending");  // its ClusterQueue is gone
}

TEST_CASE("a restart's cache has a terminating ClusterQueue active until it is reconciled again",
          "[engine][cq-deletion][restart]") {
  Cluster c;
  c.flavor("default");
  c.cq("b", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("job", "b", 0, {{"cpu", 4}}).runtime_s = 10;
  Engine e(c.m);
  e.run(-1, 1000);
  REQUIRE(delete_cluster_queue(e, "b"));
  REQUIRE(terminate_cluster_queue(e, "b"));
  e.create_workload(make_workload("late", "b", 0, {{"cpu", 2}}));
  e.run(-1, 2000);
  CHECK(state_of(e, "late") == "Pending");
  restart_kueue(e);
  e.run(-1, 3000);
  CHECK(state_of(e, "late") == "Admitted");  // before the controller's reconcile
  REQUIRE(terminate_cluster_queue(e, "b"));
}

TEST_CASE("a deleted Cohort leaves an implicit cohort without quota; nothing is evicted",
          "[engine][cq-deletion]") {
  Cluster c;
  c.flavor("default");
  c.cohort("root");
  c.cohort("co", "root").resource_groups = {group({"cpu"}, {{"default", {{"cpu", 10}}}})};
  c.cohort("leaf", "root").resource_groups = {group({"cpu"}, {{"default", {{"cpu", 4}}}})};
  c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.wl("borrower", "a", 0, {{"cpu", 6}});
  Engine e(c.m);
  e.run(-1, 5000);
  REQUIRE(state_of(e, "borrower") == "Admitted");
  CHECK_FALSE(delete_cohort(e, "nosuch"));
  const int root = e.cohort_nodes.at("root");
  const FrId fr = e.frs.find("default", "cpu");
  CHECK(e.tree.subtree_quota(root, fr) == 14'000);
  REQUIRE(delete_cohort(e, "leaf"));  // no children: its 4 leave root's
  CHECK(e.tree.subtree_quota(root, fr) == 10'000);
  CHECK(state_of(e, "borrower") == "Admitted");
  e.create_workload(make_workload("next", "a", 0, {{"cpu", 5}}));
  e.run(-1, 10'000);
  CHECK(state_of(e, "next") == "Pending");  // 6 + 5 > 10
}

TEST_CASE("a deleted Cohort with a parent and children leaves its subtree a tree of its own",
          "[engine][cq-deletion]") {
  // The sweep holds 6 cpu, 4 borrowed from b through root, so b's 8-cpu job does not fit.
  Cluster c = subtree_borrowing_from_root();
  Engine e(c.m);
  e.run(-1, 1000);
  REQUIRE(state_of(e, "sweep") == "Admitted");
  e.create_workload(make_workload("job", "b", 0, {{"cpu", 8}}));
  e.run(-1, 2000);
  REQUIRE(state_of(e, "job") == "Pending");
  const int root = e.cohort_nodes.at("root"), co = e.cohort_nodes.at("co");
  const FrId fr = e.frs.find("default", "cpu");
  REQUIRE(delete_cohort(e, "co"));
  CHECK_FALSE(e.tree.has_parent(co));
  CHECK(e.tree.root_of(e.cluster_queues[0].node) == co);
  // root keeps b's 8 and none of the sweep's usage; co's tree has a's 2, used 6.
  CHECK(e.tree.subtree_quota(root, fr) == 8'000);
  CHECK(e.tree.usage(root, fr) == 0);
  CHECK(e.tree.subtree_quota(co, fr) == 2'000);
  CHECK(state_of(e, "sweep") == "Admitted");  // above its tree's quota now, and kept
  // Nothing requeued the parked job (DeleteCohort notifies no one); a new one,
  // of another shape (an equal one would be parked with it: equivalence
  // hashing), is looked at and fits.
  e.run(-1, 3000);
  CHECK(state_of(e, "job") == "Pending");
  e.create_workload(make_workload("next", "b", 0, {{"cpu", 7}}));
  e.run(-1, 4000);
  CHECK(state_of(e, "next") == "Admitted");
}

TEST_CASE(
    "a deleted ClusterQueue created again once it is gone: its manifest's, its workloads pushed",
    "[engine][cq-deletion][creation]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("job", "b", 0, {{"cpu", 4}}).runtime_s = 10;
  Engine e(c.m);
  e.run(-1, 1000);
  REQUIRE(state_of(e, "job") == "Admitted");
  // An edit to the old object, which its re-creation does not keep.
  REQUIRE(update_quotas(e, "b", false,
                        {{"default", "cpu", Amount{4'000}, std::nullopt, std::nullopt}}));
  REQUIRE(delete_cluster_queue(e, "b"));
  REQUIRE(terminate_cluster_queue(e, "b"));
  CHECK_FALSE(create_cluster_queue(e, "b"));  // the old object is still there
  e.create_workload(make_workload("late", "b", 0, {{"cpu", 8}}));
  e.run(-1, 20'000);
  REQUIRE(state_of(e, "job") == "Finished");
  REQUIRE(finalize_cluster_queue(e, "b"));
  e.run(-1, 21'000);
  CHECK(state_of(e, "late") == "Pending");
  REQUIRE(create_cluster_queue(e, "b"));
  CHECK_FALSE(create_cluster_queue(e, "b"));  // exists
  const int co = e.cohort_nodes.at("co");
  const FrId fr = e.frs.find("default", "cpu");
  CHECK(e.tree.subtree_quota(co, fr) == 10'000);  // the manifest's 10, not the edit's 4
  e.run(-1, 22'000);
  CHECK(state_of(e, "late") == "Admitted");
  // Deleted again: terminating as before.
  REQUIRE(delete_cluster_queue(e, "b"));
  REQUIRE(terminate_cluster_queue(e, "b"));
}

// WorkloadReconciler.Delete: QueueAssociatedInadmissibleWorkloadsAfter for every
// deleted Workload, a pending one too: its tree's parked workloads are requeued.
TEST_CASE("deleting a pending workload requeues its tree's parked workloads",
          "[engine][deletions]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 1}}}})});
  c.wl("running", "a", 0, {{"cpu", 1}});
  c.wl("parked", "a", 0, {{"cpu", 1}});
  Engine e(c.m);
  e.run();
  REQUIRE(state_of(e, "running") == "Admitted");
  REQUIRE(state_of(e, "parked") == "Pending");
  REQUIRE(e.pending_requeue_roots.empty());
  delete_workload(e, *e.find("ns/parked"));
  CHECK(e.pending_requeue_roots.size() == 1);
}
