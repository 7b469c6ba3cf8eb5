// Fair sharing (kueue-semantics.md §4.7), table-driven: DRS values with
// weights (0 included), the tournament across cohorts, fair preemption.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/drs.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;
namespace model = kmc::model;

namespace {

model::Quantity weight_milli(std::int64_t milli) {
  return model::Quantity{milli};
}

Cluster fair_cluster() {
  Cluster c;
  c.m.configuration.fair_sharing.enable = true;
  c.flavor("default");
  return c;
}

// Cohort "co" of "a" (weight as given) and "b", 10 cpu each: a borrows what it uses past 10.
Cluster cohort_of_two(std::int64_t a_weight_milli) {
  Cluster c = fair_cluster();
  c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})}).fair_sharing_weight =
      weight_milli(a_weight_milli);
  c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  return c;
}

int node(const Engine& e, const std::string& cq) {
  return e.cluster_queues[static_cast<size_t>(e.cq_index(cq))].node;
}

std::string preempted_reason(const Engine& e, const std::string& name) {
  const model::Condition* c = e.find("ns/" + name)->condition("Preempted");
  return c == nullptr ? "" : c->reason;
}

}  // namespace

TEST_CASE("DRS: borrowed over lendable, per resource, divided by the weight", "[engine][fair]") {
  struct Row {
    const char* name;
    std::int64_t weight_milli;
    std::int64_t usage_cpu;  // on cq "a" (nominal 10 cpu); the cohort's subtree holds 20
    double want_share;       // PreciseWeightedShare
    bool want_borrowing;
  };
  const Row rows[] = {
      {"within nominal", 1000, 10, 0, false},
      {"borrows 5 of 20, weight 1", 1000, 15, 250, true},
      {"weight 2 halves it", 2000, 15, 125, true},
      {"weight 0.5 doubles it", 500, 15, 500, true},
      {"weight 0 borrowing is infinite", 0, 15, INFINITY, true},
      {"weight 0 within nominal is 0", 0, 8, 0, false},
      {"borrows 1 milli-cpu: tiny but borrowing (no rounding to 0)", 1000, 10, 0.05, true},
  };
  for (const Row& r : rows) {
    CAPTURE(r.name);
    const Cluster c = cohort_of_two(r.weight_milli);
    Engine e(c.m);
    const Amount usage =
        std::string(r.name).starts_with("borrows 1 milli") ? 10001 : r.usage_cpu * 1000;
    e.tree.add_usage(node(e, "a"), e.frs.find("default", "cpu"), usage);
    const Drs d = dominant_resource_share(e, e.tree, node(e, "a"));
    CHECK(d.borrowing == r.want_borrowing);
    CHECK(d.zero_weight_borrows() == (r.weight_milli == 0 && r.want_borrowing));
    if (std::isinf(r.want_share)) {
      CHECK(std::isinf(d.precise_weighted_share()));
    } else {
      CHECK(d.precise_weighted_share() == Approx(r.want_share));
    }
  }
}

TEST_CASE("DRS: dominant resource, flavors summed per resource, roots never borrow",
          "[engine][fair]") {
  Cluster c = fair_cluster();
  c.flavor("spot");
  c.cq("a", "co",
       {group({"cpu", "memory"}, {{"default", {{"cpu", 4}, {"memory", 10}}},
                                  {"spot", {{"cpu", 4}, {"memory", 10}}}})});
  c.cq("b", "co",
       {group({"cpu", "memory"}, {{"default", {{"cpu", 4}, {"memory", 10}}},
                                  {"spot", {{"cpu", 4}, {"memory", 10}}}})});
  c.cq("alone", "", {group({"cpu"}, {{"default", {{"cpu", 1}}}})});
  Engine e(c.m);
  const int a = node(e, "a");
  // cpu: borrows 1 on each flavor = 2 of 16 lendable -> 125; memory: 2 of 40 -> 50.
  e.tree.add_usage(a, e.frs.find("default", "cpu"), 5000);
  e.tree.add_usage(a, e.frs.find("spot", "cpu"), 5000);
  e.tree.add_usage(a, e.frs.find("default", "memory"), 12);
  Drs d = dominant_resource_share(e, e.tree, a);
  CHECK(d.dominant_resource == "cpu");
  CHECK(d.precise_weighted_share() == Approx(125));
  CHECK(d.borrowed_frs.size() == 3);
  CHECK(d.borrowing_on(FrUsage{{e.frs.find("spot", "memory"), 1}}) == false);
  CHECK(d.borrowing_on(FrUsage{{e.frs.find("spot", "cpu"), 1}}));
  // The cohort (a root) and a ClusterQueue without cohort are never borrowing.
  CHECK_FALSE(dominant_resource_share(e, e.tree, e.tree.node(a).parent).borrowing);
  e.tree.add_usage(node(e, "alone"), e.frs.find("default", "cpu"), 5000);
  CHECK_FALSE(dominant_resource_share(e, e.tree, node(e, "alone")).borrowing);
}

TEST_CASE("CompareDRS: weight-0 borrowers after every finite share, then by unweighted ratio",
          "[engine][fair]") {
  Drs finite_high{1.0, 900, "cpu", true, {}, {}};
  Drs zero_small{0.0, 10, "cpu", true, {}, {}};
  Drs zero_big{0.0, 20, "cpu", true, {}, {}};
  Drs zero_not_borrowing{0.0, 0, "", false, {}, {}};
  CHECK(compare_drs(finite_high, zero_small) < 0);
  CHECK(compare_drs(zero_small, finite_high) > 0);
  CHECK(compare_drs(zero_small, zero_big) < 0);
  CHECK(compare_drs(zero_not_borrowing, finite_high) < 0);
  CHECK(compare_drs(Drs{2.0, 300, "cpu", true, {}, {}}, Drs{1.0, 150, "cpu", true, {}, {}}) == 0);
  // Borrowing with nothing lendable: ratio 0, yet borrowing (IsBorrowing, #9738). Its share is
  // still 0, weight 0 or not: PreciseWeightedShare and zeroWeightBorrows read the ratio (IsZero).
  Drs zero_ratio{0.0, 0, "", true, {}, {}};
  CHECK_FALSE(zero_ratio.zero_weight_borrows());
  CHECK(zero_ratio.precise_weighted_share() == 0);
  CHECK(compare_drs(zero_ratio, finite_high) < 0);
}

TEST_CASE("tournament: the lower share after admission goes first; weight 0 goes last",
          "[engine][fair]") {
  // One cycle, two borrowers, room for one: classical order would take the older "wa".
  struct Row {
    const char* name;
    std::int64_t weight_a_milli, weight_b_milli;
    bool fair_sharing;
    const char* want_admitted;
  };
  const Row rows[] = {
      {"classical: FIFO", 1000, 2000, false, "wa"},
      {"b weight 2: DRS 300 < 600", 1000, 2000, true, "wb"},
      {"equal weights: FIFO tiebreak", 1000, 1000, true, "wa"},
      {"a weight 0: infinite share loses", 0, 1000, true, "wb"},
      {"both weight 0: unweighted ratio, then FIFO", 0, 0, true, "wa"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.name);
    Cluster c = fair_cluster();
    c.m.configuration.fair_sharing.enable = r.fair_sharing;
    c.cq("lender", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
    c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 0}}}})}).fair_sharing_weight =
        weight_milli(r.weight_a_milli);
    c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 0}}}})}).fair_sharing_weight =
        weight_milli(r.weight_b_milli);
    c.wl("wa", "a", 0, {{"cpu", 6}});
    c.wl("wb", "b", 0, {{"cpu", 6}});
    Engine e(c.m);
    CHECK(e.schedule().admitted == 1);
    CHECK(state_of(e, r.want_admitted) == "Admitted");
  }
}

TEST_CASE("tournament across two child cohorts of one root", "[engine][fair]") {
  // root: lender (12 cpu) + left{a1, a2} + right{b1}; a1 already borrows 4.
  // Pop 1 at root: right (4/12) beats left (8/12) -> b1. Pop 2: in left, a2 (4/12)
  // beats a1 (8/12) -> a2. Then no room for a1's second workload.
  Cluster c = fair_cluster();
  c.cohort("root");
  c.cohort("left", "root");
  c.cohort("right", "root");
  c.cq("lender", "root", {group({"cpu"}, {{"default", {{"cpu", 12}}}})});
  c.cq("a1", "left", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.cq("a2", "left", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.cq("b1", "right", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.wl("a1-running", "a1", 0, {{"cpu", 4}});
  Engine e(c.m);
  e.run();
  REQUIRE(state_of(e, "a1-running") == "Admitted");
  e.create_workload(make_workload("a1-new", "a1", 0, {{"cpu", 4}}));
  e.create_workload(make_workload("a2-new", "a2", 0, {{"cpu", 4}}));
  e.create_workload(make_workload("b1-new", "b1", 0, {{"cpu", 4}}));
  const CycleStats s = e.schedule();
  CHECK(s.heads == 3);
  CHECK(s.admitted == 2);
  CHECK(state_of(e, "b1-new") == "Admitted");
  CHECK(state_of(e, "a2-new") == "Admitted");
  CHECK(state_of(e, "a1-new") == "Pending");
  SECTION("a heavier left cohort wins the root round") {
    c.m.cohorts[1].fair_sharing_weight = weight_milli(3000);  // left: 8/12/3 < 4/12
    Engine e2(c.m);
    e2.run();
    e2.create_workload(make_workload("a1-new", "a1", 0, {{"cpu", 4}}));
    e2.create_workload(make_workload("b1-new", "b1", 0, {{"cpu", 4}}));
    e2.create_workload(make_workload("b1-more", "b1", 0, {{"cpu", 4}}));
    e2.schedule();
    CHECK(state_of(e2, "a1-new") == "Admitted");
    CHECK(state_of(e2, "b1-new") == "Admitted");
  }
}

TEST_CASE("tournament: FairSharingPrioritizeNonBorrowing puts a non-borrowing entry first",
          "[engine][fair]") {
  // "a" borrows memory heavily (DRS 18/20 -> 900) but its new entry only needs cpu
  // within nominal; "b" would borrow 4 of 24 lendable cpu (167). The lender's cpu
  // is in use, so only a's 4 cpu are free: room for one entry.
  Cluster c = fair_cluster();
  c.cq("lender", "co", {group({"cpu", "memory"}, {{"default", {{"cpu", 20}, {"memory", 0}}}})});
  c.cq("a", "co", {group({"cpu", "memory"}, {{"default", {{"cpu", 4}, {"memory", 0}}}})});
  c.cq("b", "co", {group({"cpu", "memory"}, {{"default", {{"cpu", 0}, {"memory", 20}}}})});
  c.wl("l-run", "lender", 0, {{"cpu", 20}});
  c.wl("a-mem", "a", 0, {{"memory", 18}});
  Engine base(c.m);
  base.run();
  REQUIRE(state_of(base, "a-mem") == "Admitted");
  for (bool gate : {true, false}) {
    CAPTURE(gate);
    Cluster g = c;
    g.m.configuration.feature_gates.gates["FairSharingPrioritizeNonBorrowing"] = gate;
    Engine e(g.m);
    e.run();
    e.create_workload(make_workload("b-cpu", "b", 0, {{"cpu", 4}}));
    e.create_workload(make_workload("a-cpu", "a", 0, {{"cpu", 4}}));
    CHECK(e.schedule().admitted == 1);
    CHECK(state_of(e, gate ? "a-cpu" : "b-cpu") == "Admitted");
  }
}

TEST_CASE("fair preemption: strategies S2-a, S2-b and the within-nominal bypass",
          "[engine][fair]") {
  // Cohort of 12 cpu: a (4), b (4), lender (4, idle). b holds two 4-cpu
  // workloads (borrows 4: DRS 333); a holds 4 and asks for 2 more (DRS 167 after).
  struct Row {
    const char* name;
    std::vector<std::string> strategies;
    std::int64_t incoming_cpu;
    bool within_nominal_gate;
    const char* want_reason;  // "" = no preemption
  };
  const Row rows[] = {
      {"S2-a alone: 167 <= 0 fails", {"LessThanOrEqualToFinalShare"}, 2, true, ""},
      {"default [S2-a, S2-b]: 167 < 333 passes S2-b", {}, 2, true, "InCohortFairSharing"},
      {"S2-b alone", {"LessThanInitialShare"}, 2, true, "InCohortFairSharing"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.name);
    Cluster c = fair_cluster();
    c.m.configuration.fair_sharing.preemption_strategies = r.strategies;
    c.m.configuration.feature_gates.gates["FairSharingPreemptWithinNominal"] =
        r.within_nominal_gate;
    c.cq("lender", "co", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
    auto& a = c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
    a.preemption.reclaim_within_cohort = model::ReclaimWithinCohortPolicy::Any;
    c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
    c.wl("b1", "b", 0, {{"cpu", 4}});
    c.wl("b2", "b", 0, {{"cpu", 4}});
    c.wl("a1", "a", 0, {{"cpu", 4}});
    Engine e(c.m);
    e.run();
    REQUIRE(state_of(e, "b2") == "Admitted");
    REQUIRE(state_of(e, "a1") == "Admitted");
    e.create_workload(make_workload("incoming", "a", 0, {{"cpu", r.incoming_cpu}}));
    const CycleStats s = e.schedule();
    if (std::string(r.want_reason).empty()) {
      CHECK(s.preempted == 0);
      continue;
    }
    CHECK(s.preempted == 1);
    // Equal priorities and reservation times (one instant): the later reservation first.
    CHECK(preempted_reason(e, "b2") == r.want_reason);
    CHECK(state_of(e, "b1") == "Admitted");
  }
}

TEST_CASE("fair preemption: a preemptor within nominal reclaims regardless of shares",
          "[engine][fair]") {
  // b borrows 8 with four 2-cpu workloads; a asks for its whole nominal (4).
  for (bool gate : {true, false}) {
    CAPTURE(gate);
    Cluster c = fair_cluster();
    c.m.configuration.feature_gates.gates["FairSharingPreemptWithinNominal"] = gate;
    c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 4}}}})})
        .preemption.reclaim_within_cohort = model::ReclaimWithinCohortPolicy::Any;
    c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
    for (int i = 1; i <= 4; ++i) c.wl("b" + std::to_string(i), "b", 0, {{"cpu", 2}});
    Engine e(c.m);
    e.run();
    e.create_workload(make_workload("incoming", "a", 0, {{"cpu", 4}}));
    CHECK(e.schedule().preempted == 2);
    const char* want = gate ? "InCohortReclamation" : "InCohortFairSharing";
    // Equal priorities and reservation times (one instant): the later reservations first.
    CHECK(preempted_reason(e, "b4") == want);
    CHECK(preempted_reason(e, "b3") == want);
    CHECK(state_of(e, "b2") == "Admitted");
    // Once the victims' jobs stop, the preemptor is admitted.
    e.run();
    CHECK(state_of(e, "incoming") == "Admitted");
  }
}

TEST_CASE("fair preemption: the most unfair cohort is entered first (almost-LCA shares)",
          "[engine][fair]") {
  // root: lender (8) + left{a (4), a2 (0)} + right{b (0)}. a2 borrows 2, b borrows 6.
  // a asks for 6 (2 short). From the root, right (6/12 = 500) outranks left
  // (8/12 = 333 with the incoming workload): a victim comes from b, not from a2,
  // and S2-a holds at the almost-LCAs: left 333 <= right-after 333.
  Cluster c = fair_cluster();
  c.cohort("root");
  c.cohort("left", "root");
  c.cohort("right", "root");
  c.cq("lender", "root", {group({"cpu"}, {{"default", {{"cpu", 8}}}})});
  c.cq("a", "left", {group({"cpu"}, {{"default", {{"cpu", 4}}}})})
      .preemption.reclaim_within_cohort = model::ReclaimWithinCohortPolicy::Any;
  c.cq("a2", "left", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.cq("b", "right", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.wl("a2-run", "a2", 0, {{"cpu", 2}});
  for (int i = 1; i <= 3; ++i) c.wl("b" + std::to_string(i), "b", 0, {{"cpu", 2}});
  Engine e(c.m);
  e.run();
  REQUIRE(state_of(e, "b3") == "Admitted");
  e.create_workload(make_workload("incoming", "a", 0, {{"cpu", 6}}));
  CHECK(e.schedule().preempted == 1);
  CHECK(preempted_reason(e, "b3") == "InCohortFairSharing");  // the latest reservation
  CHECK(state_of(e, "a2-run") == "Admitted");
  e.run();
  CHECK(state_of(e, "incoming") == "Admitted");
}

TEST_CASE("DRS before #6617 (integer_drs): integer divisions, a tiny borrower counts as lending",
          "[engine][fair]") {
  struct Row {
    const char* name;
    std::int64_t weight_milli;
    Amount usage_milli;  // on cq "a" (nominal 10 cpu); 20 cpu lendable in the cohort
    double want_share;   // ratio = b*1000/lendable, then ratio*1000/weight, each truncated
    bool want_borrowing;
  };
  const Row rows[] = {
      {"borrows 1 milli-cpu of 20000: share 0, not borrowing (K01)", 1000, 10001, 0, false},
      {"borrows 5 of 20, weight 1", 1000, 15000, 250, true},
      {"weight 3 truncates 250000/3000", 3000, 15000, 83, true},
      {"weight 0 borrowing: the largest share", 0, 15000, 9223372036854775807.0, true},
      {"weight 0 with share 0: not borrowing", 0, 10001, 0, false},
  };
  for (const Row& r : rows) {
    CAPTURE(r.name);
    const Cluster c = cohort_of_two(r.weight_milli);
    EngineOptions o;
    o.integer_drs = true;
    Engine e(c.m, o);
    e.tree.add_usage(node(e, "a"), e.frs.find("default", "cpu"), r.usage_milli);
    const Drs d = dominant_resource_share(e, e.tree, node(e, "a"));
    CHECK(d.borrowing == r.want_borrowing);
    CHECK_FALSE(d.zero_weight_borrows());
    CHECK(d.precise_weighted_share() == Approx(r.want_share));
    // Today's exact share for the same usage borrows whenever usage exceeds the quota.
    Engine today(c.m);
    today.tree.add_usage(node(today, "a"), today.frs.find("default", "cpu"), r.usage_milli);
    CHECK(dominant_resource_share(today, today.tree, node(today, "a")).borrowing);
  }
}
