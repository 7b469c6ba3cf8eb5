// checker/confirm.hpp: the one place that decides whether a path still
// violates a property, for replay tokens, the shrinker, the matrix and the corpus.
#include "checker/confirm.hpp"

#include <catch2/catch.hpp>

#include "checker/bfs.hpp"
#include "checker/fixtures.hpp"

using kmc::checker::Bfs;
using kmc::checker::confirm_violation;
using kmc::checker::Fairness;
using kmc::checker::FairnessPlan;
using kmc::checker::Path;
using kmc::checker::Shape;
using kmc::checker::Verdict;

namespace {

FairnessPlan plan(Fairness run) {
  return FairnessPlan{{run, Fairness::None, Fairness::Weak}, false};
}

// Run, Requeue, Tick, Tick: states wait (premise), run (goal), wait again,
// wait on the other tick, and return to state 2. The goal follows the first
// premise but never the second: a violation, unless fairness forbids the loop.
const Path kPremiseGoalPremiseLoop{0, {0, 0, 1, 0}};

}  // namespace

TEST_CASE("confirm: premise, goal, premise, loop is a violation when the loop is fair",
          "[checker][confirm]") {
  fixtures::Requeue p;
  const auto prop = p.properties()[0];
  const auto states = Bfs<fixtures::Requeue>::replay(p, kPremiseGoalPremiseLoop);
  REQUIRE(states.size() == 5);
  REQUIRE(states[4] == states[2]);
  REQUIRE(states[1].job == 1);  // the goal held once, after the first premise
  SECTION("no fairness: the loop may go on forever") {
    const auto c = confirm_violation(p, prop, 0, plan(Fairness::None), kPremiseGoalPremiseLoop);
    REQUIRE(c);
    CHECK(c->shape == Shape::Loop);
    CHECK(c->loop == 2u);
  }
  SECTION("weak fairness: Run is disabled on odd ticks, so the loop is fair") {
    const auto c = confirm_violation(p, prop, 0, plan(Fairness::Weak), kPremiseGoalPremiseLoop);
    REQUIRE(c);
    CHECK(c->shape == Shape::Loop);
  }
  SECTION("strong fairness: Run is enabled on even ticks and never taken, so the loop is unfair") {
    CHECK_FALSE(confirm_violation(p, prop, 0, plan(Fairness::Strong), kPremiseGoalPremiseLoop));
  }
  SECTION("a lasso must close where it is expected to (the shrinker keeps each step on its side)") {
    CHECK(confirm_violation(p, prop, 0, plan(Fairness::None), kPremiseGoalPremiseLoop, 2));
    CHECK_FALSE(confirm_violation(p, prop, 0, plan(Fairness::None), kPremiseGoalPremiseLoop, 3));
  }
}

TEST_CASE("confirm: the search agrees with the confirmation under each fairness",
          "[checker][confirm]") {
  fixtures::Requeue p;
  const auto prop = p.properties()[0];
  for (const Fairness run : {Fairness::None, Fairness::Weak, Fairness::Strong}) {
    kmc::checker::CheckOptions o;
    o.fairness = plan(run).fairness;
    const auto r = Bfs(p, o).run();
    INFO("run fairness " << kmc::checker::to_string(run));
    if (run == Fairness::Strong) {
      CHECK(r.verdict == Verdict::Verified);
      continue;
    }
    REQUIRE(r.violation);
    const auto c =
        confirm_violation(p, prop, 0, o.fairness_plan(), r.violation->path, r.violation->loop);
    REQUIRE(c);
    CHECK(c->shape == r.violation->shape);
  }
}

TEST_CASE("confirm: a goal reached on the loop itself is no violation", "[checker][confirm]") {
  fixtures::Requeue p;
  p.intermittent = false;
  const auto prop = p.properties()[0];
  // Run, Requeue, Run, Requeue: back at state 2, and the loop runs the job on every turn.
  const Path run_requeue_forever{0, {0, 0, 0, 0}};
  const auto states = Bfs<fixtures::Requeue>::replay(p, run_requeue_forever);
  REQUIRE(states[4] == states[2]);
  CHECK_FALSE(confirm_violation(p, prop, 0, plan(Fairness::None), run_requeue_forever));
}

TEST_CASE("confirm: safety and stuck paths", "[checker][confirm]") {
  fixtures::Counters counters;
  counters.bad_sum = 2;
  const auto bad = counters.properties()[0];
  CHECK(confirm_violation(counters, bad, -1, {}, Path{0, {0, 0}})->shape == Shape::Reached);
  CHECK_FALSE(confirm_violation(counters, bad, -1, {}, Path{0, {0}}));
  CHECK_FALSE(confirm_violation(counters, counters.properties()[1], -1, {},
                                Path{0, {0}}));  // Sometimes: a search's

  fixtures::Trap trap;
  const auto stuck = trap.properties()[0];
  CHECK(confirm_violation(trap, stuck, 0, {}, Path{0, {0}})->shape == Shape::Stuck);  // ToTrap
  CHECK_FALSE(confirm_violation(trap, stuck, 0, {}, Path{0, {1}}));  // ToGood: it can still run
  CHECK_THROWS_AS(confirm_violation(trap, stuck, 0, {}, Path{0, {7}}), std::out_of_range);
}

TEST_CASE("cycle fairness: weak needs a step or a disabled state, strong a step or never enabled",
          "[checker][confirm]") {
  using kmc::checker::cycle_is_fair;
  const std::vector<Fairness> weak_run{Fairness::Weak, Fairness::None},
      strong_run{Fairness::Strong, Fairness::None};
  // unit 0 (run) enabled in both cycle states, never taken: unfair either way
  CHECK_FALSE(cycle_is_fair({1, 1}, {0b11, 0b11}, weak_run));
  CHECK_FALSE(cycle_is_fair({1, 1}, {0b11, 0b11}, strong_run));
  // run disabled in one state: weakly fair, strongly unfair (it is enabled infinitely often)
  CHECK(cycle_is_fair({1, 1}, {0b11, 0b10}, weak_run));
  CHECK_FALSE(cycle_is_fair({1, 1}, {0b11, 0b10}, strong_run));
  // run never enabled: fair both ways; taken: fair both ways
  CHECK(cycle_is_fair({1}, {0b10}, strong_run));
  CHECK(cycle_is_fair({0, 1}, {0b11, 0b11}, strong_run));
  // a stutter (no step) is fair where no fair unit is enabled
  CHECK(cycle_is_fair({}, {0b10}, weak_run));
  CHECK_FALSE(cycle_is_fair({}, {0b01}, weak_run));
  CHECK(cycle_is_fair({}, {0b11}, {Fairness::None, Fairness::None}));
}

TEST_CASE("leads-to fails on a lasso only when the goal never follows a premise",
          "[checker][confirm]") {
  using kmc::checker::goal_never_follows;
  CHECK(goal_never_follows({1, 0, 0}, {0, 0, 0}, 1));
  CHECK_FALSE(goal_never_follows({1, 0, 0}, {0, 1, 0}, 2));  // the goal followed the premise
  CHECK(goal_never_follows({1, 0, 1}, {0, 1, 0}, 2));        // a later premise is not followed
  CHECK_FALSE(goal_never_follows({0, 1, 0}, {0, 0, 1}, 1));  // the loop reaches the goal forever
  CHECK_FALSE(goal_never_follows({0, 0, 0}, {0, 0, 0}, 0));  // no premise
}
