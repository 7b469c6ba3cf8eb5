// The cohort tree's quota arithmetic (protocols/kueue_admission/quota.hpp)
// on kueue-semantics.md §3.3's worked examples, whose numbers come from
// Kueue's resource-node code: lending limits keep part of a ClusterQueue's
// quota out of its cohort, borrowing limits cap what it takes from it.
#include <catch2/catch.hpp>

#include "protocols/kueue_admission/fair_sharing.hpp"
#include "protocols/kueue_admission/quota.hpp"

namespace ka = kmc::protocols::ka;

namespace {

// ClusterQueues A and B under cohort C, one flavor, one resource.
ka::AdmissionParams two_queues(std::int64_t qa, std::int64_t qb, std::int64_t bl_a,
                               std::int64_t ll_a) {
  ka::AdmissionParams p;
  p.resources = {"cpu"};
  p.flavors = {"default"};
  p.cohorts.push_back({"C", -1, {0}, {ka::kNoLimit}, {ka::kNoLimit}});
  for (auto [name, q, bl, ll] :
       {std::tuple{"A", qa, bl_a, ll_a}, std::tuple{"B", qb, ka::kNoLimit, ka::kNoLimit}}) {
    ka::CqParams c;
    c.quota = {name, 0, {q}, {bl}, {ll}};
    c.flavors = {0};
    c.covered = {0};
    p.cqs.push_back(c);
  }
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("quota: a lending limit keeps the rest of a queue's quota its own",
          "[admission][quota]") {
  // A {10, lendingLimit 4}, B {0}: A's local quota is 6, C's subtree quota 4.
  const auto p = two_queues(10, 0, ka::kNoLimit, 4);
  const ka::QuotaTree& t = *p.tree;
  CHECK(t.local_quota(0, 0) == 6);
  CHECK(t.subtree_quota(2, 0) == 4);
  // A uses 3: A may take 3 of its own and 4 from C (7); B may take the 4 A lends.
  ka::Snapshot s(t, std::vector<std::int64_t>{3, 0});
  CHECK(s.available(0, 0) == 7);
  CHECK(s.available(1, 0) == 4);
  // A uses 8: C carries the 2 above A's local quota, so B may take only 2.
  ka::Snapshot full(t, std::vector<std::int64_t>{8, 0});
  CHECK(full.usage(2, 0) == 2);
  CHECK(full.available(1, 0) == 2);
  CHECK(t.potential_available(1, 0) == 4);
  CHECK(t.potential_available(0, 0) == 10);
}

TEST_CASE("quota: a borrowing limit caps what a queue takes from its cohort",
          "[admission][quota]") {
  // A {10, borrowingLimit 2}, B {10}: A reaches at most 12, and min(20 - U_C, 12 - U_A).
  const auto p = two_queues(10, 10, 2, ka::kNoLimit);
  const ka::QuotaTree& t = *p.tree;
  CHECK(t.potential_available(0, 0) == 12);
  ka::Snapshot s(t, std::vector<std::int64_t>{0, 0});
  CHECK(s.available(0, 0) == 12);
  ka::Snapshot busy(t, std::vector<std::int64_t>{5, 9});
  CHECK(busy.available(0, 0) == 6);  // min(20 - 14, 12 - 5)
  CHECK(busy.available(1, 0) == 6);  // B has no limit: 20 - 14
  // Borrowing, and the height of the lowest subtree that fits.
  CHECK_FALSE(busy.borrowing_with(0, 0, 5));
  CHECK(busy.borrowing_with(0, 0, 6));
  CHECK(busy.lowest_fitting_height(0, 0, 5) == std::pair{0, true});
  CHECK(busy.lowest_fitting_height(0, 0, 6) == std::pair{1, false});
}

TEST_CASE("fair sharing: the dominant resource share, exact and as integers before #6617",
          "[admission][quota][fair-sharing]") {
  // K01's numbers: research {500, weight 1} borrows 1 of the 1500 its cohort could lend.
  auto p = two_queues(500, 1000, ka::kNoLimit, ka::kNoLimit);
  p.cqs[1].fair_weight_milli = 300'000;
  const ka::Snapshot s(*p.tree, std::vector<std::int64_t>{501, 500});
  const ka::Drs exact = ka::drs(p, s, 0, {});
  CHECK(exact.borrowing);
  CHECK(exact.ratio == Approx(1000.0 / 1500.0));
  CHECK(exact.weighted == Approx(1000.0 / 1500.0));
  CHECK_FALSE(ka::drs(p, s, 1, {}).borrowing);  // production is within its nominal quota
  p.integer_drs = true;
  const ka::Drs old = ka::drs(p, s, 0, {});
  CHECK(old.weighted == 0);    // 1*1000/1500 = 0 in integers
  CHECK_FALSE(old.borrowing);  // and so "not borrowing": pruned as a target
  // A weight of 0 makes any borrowing infinitely large, and such shares compare by ratio.
  p.integer_drs = false;
  p.cqs[0].fair_weight_milli = 0;
  const ka::Drs zero = ka::drs(p, s, 0, {});
  CHECK(ka::compare_drs(zero, exact) > 0);
  CHECK(ka::compare_drs(exact, zero) < 0);
}
