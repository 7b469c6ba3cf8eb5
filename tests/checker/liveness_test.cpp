#include <catch2/catch.hpp>

#include "checker/bfs.hpp"
#include "checker/fixtures.hpp"

using kmc::checker::Bfs;
using kmc::checker::CheckOptions;
using kmc::checker::Fairness;
using kmc::checker::Verdict;

namespace {

CheckOptions with(Fairness run, Fairness tick = Fairness::None) {
  CheckOptions o;
  o.fairness = {run, tick};
  return o;
}

}  // namespace

TEST_CASE("liveness: without any fairness nothing has to happen at all", "[checker][liveness]") {
  fixtures::Spin p;
  auto r = Bfs(p, with(Fairness::None)).run();
  REQUIRE(r.verdict == Verdict::Violated);
  CHECK(r.violation->property == "job-gets-done");
  CHECK(r.violation->path.choices.empty());  // the first state stutters forever
  CHECK(*r.violation->loop == 0);
  CHECK(r.assumptions == std::vector<std::string>{"run none", "tick none"});
}

TEST_CASE("liveness: a fair ticker alone loops forever and the job never runs",
          "[checker][liveness]") {
  fixtures::Spin p;
  auto r = Bfs(p, with(Fairness::None, Fairness::Weak)).run();
  REQUIRE(r.verdict == Verdict::Violated);
  // The lasso: the initial state, then Tick, Tick back to it.
  CHECK(*r.violation->loop == 0);
  CHECK(r.violation->path.choices.size() == 2);
  auto states = Bfs<fixtures::Spin>::replay(p, r.violation->path);
  CHECK(states.back() == states[*r.violation->loop]);
  CHECK(r.violation->shape == kmc::checker::Shape::Loop);
}

TEST_CASE("liveness: weak fairness of Run excludes the unfair loop", "[checker][liveness]") {
  fixtures::Spin p;
  auto r = Bfs(p, with(Fairness::Weak)).run();
  CHECK(r.verdict == Verdict::Verified);
  CHECK(r.assumptions == std::vector<std::string>{"run weak", "tick none"});
}

TEST_CASE("liveness: an intermittently enabled Run needs strong fairness", "[checker][liveness]") {
  fixtures::Spin p;
  p.run_only_on_even_tick = true;
  auto weak = Bfs(p, with(Fairness::Weak, Fairness::Weak)).run();
  REQUIRE(weak.verdict == Verdict::Violated);  // Run is disabled at every odd tick: weakly fair
  auto states = Bfs<fixtures::Spin>::replay(p, weak.violation->path);
  CHECK(states.back() == states[*weak.violation->loop]);
  CHECK(Bfs(p, with(Fairness::Strong, Fairness::Weak)).run().verdict == Verdict::Verified);
}

TEST_CASE("liveness: a dead end is a behaviour that stutters forever", "[checker][liveness]") {
  fixtures::Spin p;
  p.dead_end = true;
  auto r = Bfs(p, with(Fairness::Weak, Fairness::Weak)).run();
  REQUIRE(r.verdict == Verdict::Violated);
  CHECK(r.violation->shape == kmc::checker::Shape::Stutter);
  CHECK(r.violation->path.choices.size() == 1);  // Park
  CHECK(*r.violation->loop == 1);
}

// Issue 12c: a premise that never holds is the property's own verdict, Vacuous, never Verified;
// it fails no run, so the run is Verified when nothing else fails.
TEST_CASE("liveness: a premise that never holds is Vacuous, not verified, and fails no run",
          "[checker][liveness][vacuous]") {
  fixtures::Spin p;
  p.premise_never = true;
  auto r = Bfs(p, with(Fairness::Weak)).run();
  REQUIRE(r.properties.size() == 1);
  CHECK(r.properties[0].verdict == Verdict::Vacuous);
  CHECK(std::string(kmc::checker::why(r.properties[0].verdict)) ==
        "the premise never holds, so the property says nothing");
  CHECK(!r.violation);
  CHECK(r.verdict == Verdict::Verified);
}

TEST_CASE("liveness: a vacuous property beside a violated one: the run is Violated by the other",
          "[checker][liveness][vacuous]") {
  fixtures::Spin p;
  p.premise_never = true;
  p.unreachable_goal = true;
  auto r = Bfs(p, with(Fairness::Weak)).run();
  REQUIRE(r.properties.size() == 2);
  CHECK(r.properties[0].name == "job-gets-done");
  CHECK(r.properties[0].verdict == Verdict::Vacuous);
  CHECK(r.properties[1].verdict == Verdict::Violated);
  REQUIRE(r.violation);
  CHECK(r.violation->property == "job-gets-parked-twice");
  CHECK(r.verdict == Verdict::Violated);
}

TEST_CASE("liveness: a premise unseen by a bounded search is Incomplete, never Vacuous",
          "[checker][liveness][vacuous]") {
  fixtures::Spin p;
  p.premise_never = true;
  auto o = with(Fairness::Weak);
  o.max_depth = 1;  // (1, 1) is at depth 2
  auto r = Bfs(p, o).run();
  REQUIRE(r.properties.size() == 1);
  CHECK(r.properties[0].verdict == Verdict::Incomplete);
  CHECK(r.verdict == Verdict::Incomplete);
}
