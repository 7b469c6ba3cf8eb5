// An operator edits quotas while the cluster runs (ClusterQueue and Cohort
// spec updates): the cache recomputes the cohort tree's SubtreeQuota and
// usage (updateCohortTreeResources), nothing is evicted, and the tree's
// inadmissible workloads are requeued (UpdateClusterQueue with specUpdated).
#include <catch2/catch.hpp>

#include "engine/controllers.hpp"
#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;

namespace {
QuotaUpdate cpu(std::optional<Amount> nominal,
                std::optional<std::optional<Amount>> lending = std::nullopt) {
  return {"default", "cpu", nominal ? std::optional<Amount>{*nominal * 1000} : std::nullopt,
          std::nullopt,
          lending ? std::optional<std::optional<Amount>>{**lending * 1000} : std::nullopt};
}
}  // namespace

TEST_CASE("a shrunk quota evicts nothing and admits nothing more; raised, it requeues",
          "[engine][quota-edits]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("big", "a", 0, {{"cpu", 8}});
  Engine e(c.m);
  e.run();
  REQUIRE(state_of(e, "big") == "Admitted");
  REQUIRE(update_quotas(e, "a", false, {cpu(4)}));
  e.create_workload(make_workload("small", "a", 0, {{"cpu", 1}}));
  e.run();
  CHECK(state_of(e, "big") == "Admitted");  // above its quota now, and kept
  CHECK(state_of(e, "small") == "Pending");
  REQUIRE(update_quotas(e, "a", false, {cpu(10)}));
  e.run();
  CHECK(state_of(e, "small") == "Admitted");
  CHECK_FALSE(update_quotas(e, "nosuch", false, {cpu(1)}));
  CHECK_FALSE(update_quotas(e, "a", true, {cpu(1)}));  // no Cohort "a"
}

TEST_CASE("a lending limit set during the run recomputes the cohort's quota and usage",
          "[engine][quota-edits]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("borrower", "b", 0, {{"cpu", 15}});
  Engine e(c.m);
  e.run();
  REQUIRE(state_of(e, "borrower") == "Admitted");
  const int co = e.cohort_nodes.at("co");
  const FrId fr = e.frs.find("default", "cpu");
  CHECK(e.tree.subtree_quota(co, fr) == 20'000);
  CHECK(e.tree.usage(co, fr) == 15'000);
  // a keeps 8 for itself: the cohort holds 2 + 10, and b's 15 all count there.
  REQUIRE(update_quotas(e, "a", false, {cpu(std::nullopt, std::optional<Amount>{2})}));
  CHECK(e.tree.subtree_quota(co, fr) == 12'000);
  CHECK(e.tree.usage(co, fr) == 15'000);
  // a's guaranteed 8 less the cohort's debt of 3 (available() adds a negative
  // parentAvailable): 5 fit, 6 do not.
  e.create_workload(make_workload("too-big", "a", 0, {{"cpu", 6}}));
  e.run();
  CHECK(state_of(e, "too-big") == "Pending");
  e.create_workload(make_workload("owner", "a", 0, {{"cpu", 5}}));
  e.run();
  CHECK(state_of(e, "owner") == "Admitted");
  CHECK(state_of(e, "borrower") == "Admitted");
  CHECK(e.tree.usage(co, fr) == 15'000);  // the owner's 5 stay in a's own quota
  // A Cohort's own quota: raising it by 6 pays the debt and lends 3, which the
  // parked too-big (a's local 3 and the cohort's 3) takes before the newer `more`.
  e.create_workload(make_workload("more", "b", 0, {{"cpu", 3}}));
  e.run();
  CHECK(state_of(e, "more") == "Pending");
  REQUIRE(update_quotas(e, "co", true, {cpu(6)}));
  CHECK(e.tree.subtree_quota(co, fr) == 18'000);
  CHECK(e.tree.usage(co, fr) == 15'000);
  e.run();
  CHECK(state_of(e, "too-big") == "Admitted");  // requeued by the Cohort's update
  CHECK(state_of(e, "more") == "Pending");
  CHECK(e.tree.usage(co, fr) == 18'000);
}

TEST_CASE("a quota edit that sets what is already set requeues nothing", "[engine][quota-edits]") {
  // Kueue's ClusterQueue and Cohort controllers act on a spec that changed
  // (Update: specUpdated, the Cohort predicate's DeepEqual); an apply of the
  // same spec gets no update event at all. b's job parked, then the Cohort
  // whose sweep borrowed from b is deleted: the job fits now, and only a real
  // change of b's spec requeues it.
  Cluster c = subtree_borrowing_from_root();
  Engine e(c.m);
  e.run(-1, 1000);
  e.create_workload(make_workload("job", "b", 0, {{"cpu", 8}}));
  e.run(-1, 2000);
  REQUIRE(state_of(e, "job") == "Pending");
  REQUIRE(delete_cohort(e, "co"));
  REQUIRE(update_quotas(e, "b", false, {cpu(8)}));
  e.run(-1, 3000);
  CHECK(state_of(e, "job") == "Pending");
  REQUIRE(update_quotas(e, "b", false, {cpu(9)}));
  e.run(-1, 4000);
  CHECK(state_of(e, "job") == "Admitted");
}

namespace {

// Cohort "co": a {cpu: 4, borrowingLimit 2} holding "held" (6 cpu), l {cpu: 4}
// (reclaiming from lower priorities where `reclaim`), and m {cpu: 0}; then an
// edit lowers a's borrowingLimit to 0, below what it uses.
Engine above_lowered_borrowing_limit(bool reclaim) {
  Cluster c;
  c.flavor("default");
  c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 4, 2}}}})});
  auto& l = c.cq("l", "co", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
  if (reclaim)
    l.preemption.reclaim_within_cohort = kmc::model::ReclaimWithinCohortPolicy::LowerPriority;
  c.cq("m", "co", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.wl("held", "a", 0, {{"cpu", 6}});
  Engine e(c.m);
  e.run();
  REQUIRE(state_of(e, "held") == "Admitted");
  REQUIRE(update_quotas(
      e, "a", false,
      {{"default", "cpu", std::nullopt,
        std::optional<std::optional<Amount>>{std::optional<Amount>{0}}, std::nullopt}}));
  return e;
}

}  // namespace

// quotaResourcesToReserve for a borrowing Preempt entry without candidates is
// min(request, nominal + borrowingLimit - usage), unclamped: a ClusterQueue
// whose borrowing limit an edit put below its usage reserves a negative amount,
// which addUsage subtracts from its own usage only (nothing bubbles up to the
// cohort). The engine used to assert there.
TEST_CASE("a preemptor reserving past a lowered borrowing limit lowers only its queue's usage",
          "[engine][quota-edits]") {
  Engine e = above_lowered_borrowing_limit(false);
  e.create_workload(make_workload("next", "a", 0, {{"cpu", 1}}));
  e.run();
  CHECK(state_of(e, "next") == "Pending");
  CHECK(state_of(e, "held") == "Admitted");
  const FrId fr = e.frs.find("default", "cpu");
  CHECK(e.tree.usage(e.cluster_queues[0].node, fr) == 6'000);  // the cache, not the snapshot
}

// The same negative reservation in a cycle that also preempts from that queue:
// a later entry's fits check removes the victim from the lowered usage, which
// goes below 0 in the cycle's snapshot, as in Kueue's (removeUsage checks
// nothing). The engine used to assert there too.
TEST_CASE("a victim removed from a queue whose reservation was negative goes below 0 in the cycle",
          "[engine][quota-edits]") {
  Engine e = above_lowered_borrowing_limit(true);
  // One cycle: the reclaimer (not borrowing) preempts held; next (borrowing, no
  // candidates) reserves -2 in a; third (borrowing, lower priority) is checked after.
  e.create_workload(make_workload("reclaimer", "l", 10, {{"cpu", 4}}));
  e.create_workload(make_workload("next", "a", 0, {{"cpu", 1}}));
  e.create_workload(make_workload("third", "m", -1, {{"cpu", 1}}));
  const CycleStats s = e.schedule();
  CHECK(s.preempted == 1);
  e.run();
  CHECK(state_of(e, "reclaimer") == "Admitted");
  CHECK(state_of(e, "held") == "Pending");
}
