// Quota arithmetic (kueue-semantics.md §3), including its worked examples.
#include "engine/quota_tree.hpp"

#include <catch2/catch.hpp>

#include "engine/amount.hpp"

using namespace kmc::engine;

TEST_CASE("Amount saturates like resources.Amount", "[engine][quota]") {
  CHECK(amount_add(kUnlimited, 5) == kUnlimited);
  CHECK(amount_sub(kUnlimited, 5) == kUnlimited);
  CHECK(amount_sub(5, kUnlimited) == kAmountMin);
  CHECK(amount_sub(kUnlimited, kUnlimited) == 0);
  CHECK(amount_add(kUnlimited - 1, 10) == kUnlimited);
}

namespace {
// Root C with children A and B, one (flavor, resource).
struct Flat {
  QuotaTree t;
  int a, b, c;
  Flat(Amount qa, std::optional<Amount> bla, std::optional<Amount> lla, Amount qb) {
    c = t.add_node("C", false);
    a = t.add_node("A", true);
    b = t.add_node("B", true);
    t.set_parent(a, c);
    t.set_parent(b, c);
    t.set_quota(a, 0, qa, bla, lla);
    t.set_quota(b, 0, qb, std::nullopt, std::nullopt);
    t.finalize(1);
  }
};
}  // namespace

TEST_CASE("lending limit worked example: A{Q=10,LL=4}, B{Q=0}", "[engine][quota]") {
  Flat f(10, std::nullopt, 4, 0);
  CHECK(f.t.local_quota(f.a, 0) == 6);
  CHECK(f.t.subtree_quota(f.c, 0) == 4);
  f.t.add_usage(f.a, 0, 3);
  CHECK(f.t.available(f.a, 0) == 7);
  CHECK(f.t.available(f.b, 0) == 4);
  f.t.add_usage(f.a, 0, 5);  // U_A = 8: C carries 2 from A
  CHECK(f.t.usage(f.c, 0) == 2);
  CHECK(f.t.available(f.b, 0) == 2);
  CHECK(f.t.potential_available(f.b, 0) == 4);
  f.t.remove_usage(f.a, 0, 8);
  CHECK(f.t.usage(f.c, 0) == 0);
  CHECK(f.t.usage(f.a, 0) == 0);
}

TEST_CASE("borrowing limit worked example: A{Q=10,BL=2}, B{Q=10}", "[engine][quota]") {
  Flat f(10, 2, std::nullopt, 10);
  CHECK(f.t.potential_available(f.a, 0) == 12);
  CHECK(f.t.available(f.a, 0) == 12);
  f.t.add_usage(f.b, 0, 9);
  CHECK(f.t.available(f.a, 0) == 11);
  CHECK(f.t.lowest_subtree_that_fits(f.a, 0, 10) == std::pair{0, true});
  CHECK(f.t.lowest_subtree_that_fits(f.a, 0, 11) == std::pair{1, false});
}

TEST_CASE("height of cohorts and the borrowing level in a two-level tree", "[engine][quota]") {
  QuotaTree t;
  const int root = t.add_node("root", false), left = t.add_node("left", false);
  const int a = t.add_node("a", true), b = t.add_node("b", true), r = t.add_node("r", true);
  t.set_parent(left, root);
  t.set_parent(a, left);
  t.set_parent(b, left);
  t.set_parent(r, root);
  t.set_quota(a, 0, 4, std::nullopt, std::nullopt);
  t.set_quota(b, 0, 4, std::nullopt, std::nullopt);
  t.set_quota(r, 0, 8, std::nullopt, std::nullopt);
  t.finalize(1);
  CHECK(t.node(left).height == 1);
  CHECK(t.node(root).height == 2);
  CHECK(t.lowest_subtree_that_fits(a, 0, 4).first == 0);
  CHECK(t.lowest_subtree_that_fits(a, 0, 8) == std::pair{1, true});    // fits in "left"
  CHECK(t.lowest_subtree_that_fits(a, 0, 12) == std::pair{2, false});  // needs the root
}
