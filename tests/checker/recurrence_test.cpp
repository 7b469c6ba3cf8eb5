#include <catch2/catch.hpp>

#include "checker/bfs.hpp"
#include "checker/confirm.hpp"
#include "checker/fixtures.hpp"

using kmc::checker::Bfs;
using kmc::checker::CheckOptions;
using kmc::checker::Fairness;
using kmc::checker::Verdict;

namespace {

// Per unit: try, fail, run, tick.
CheckOptions with(Fairness run, Fairness tick = Fairness::None) {
  CheckOptions o;
  o.fairness = {Fairness::None, Fairness::None, run, tick};
  return o;
}

std::vector<std::string> taken(const fixtures::Retry& p, const kmc::checker::Path& path) {
  std::vector<std::string> names;
  for (const auto& a : kmc::checker::replay_actions(p, path)) names.push_back(p.action_name(a));
  return names;
}

}  // namespace

TEST_CASE("recurrence: a retry that recurs inside the premise is a lasso",
          "[checker][recurrence]") {
  fixtures::Retry p;
  auto r = Bfs(p, with(Fairness::None)).run();
  REQUIRE(r.verdict == Verdict::Violated);
  CHECK(r.violation->property == "no-endless-retry");
  CHECK(r.violation->kind == kmc::model::PropertyKind::RecurrenceFree);
  CHECK(r.violation->shape == kmc::checker::Shape::Loop);
  // From the initial state: Try, Fail, and back.
  CHECK(*r.violation->loop == 0);
  CHECK(taken(p, r.violation->path) == std::vector<std::string>{"Try", "Fail"});
  auto states = Bfs<fixtures::Retry>::replay(p, r.violation->path);
  CHECK(states.back() == states[*r.violation->loop]);
  CHECK(r.assumptions ==
        std::vector<std::string>{"try none", "fail none", "run none", "tick none"});
  // Stuck detection is not switched on for a recurrence: only the property asked for is reported.
  CHECK(r.properties.size() == 1);
}

TEST_CASE("recurrence: the loop meets every fairness requirement as well as retrying",
          "[checker][recurrence]") {
  fixtures::Retry p;
  auto r = Bfs(p, with(Fairness::None, Fairness::Weak)).run();
  REQUIRE(r.verdict == Verdict::Violated);
  CHECK(*r.violation->loop == 0);
  // The ticker is always enabled, so a weakly fair loop must tick; it ticks twice to come home.
  CHECK(taken(p, r.violation->path) == std::vector<std::string>{"Try", "Fail", "Tick", "Tick"});
  auto states = Bfs<fixtures::Retry>::replay(p, r.violation->path);
  CHECK(states.back() == states[*r.violation->loop]);
}

TEST_CASE(
    "recurrence: weak fairness of the way out, enabled throughout, excludes the endless retry",
    "[checker][recurrence]") {
  fixtures::Retry p;
  CHECK(Bfs(p, with(Fairness::Weak)).run().verdict == Verdict::Verified);
  CHECK(Bfs(p, with(Fairness::Strong, Fairness::Weak)).run().verdict == Verdict::Verified);
}

TEST_CASE(
    "recurrence: retries that start outside the premise do not count, nor do premise loops that "
    "retry nothing",
    "[checker][recurrence]") {
  fixtures::Retry p;
  p.premise_only_while_idle = true;
  // The premise holds forever on the ticker's loop, and the job retries forever
  // through a state outside it: neither alone is the violation.
  auto r = Bfs(p, with(Fairness::None, Fairness::Weak)).run();
  CHECK(r.verdict == Verdict::Verified);
}

TEST_CASE("recurrence: a premise that never holds is Vacuous, not verified, and fails no run",
          "[checker][recurrence][vacuous]") {
  fixtures::Retry p;
  p.premise_never = true;
  auto r = Bfs(p, with(Fairness::None)).run();
  REQUIRE(r.properties.size() == 1);
  CHECK(r.properties[0].verdict == Verdict::Vacuous);
  CHECK(!r.violation);
  CHECK(r.verdict == Verdict::Verified);
}

TEST_CASE("recurrence: a bound that stops the search says Incomplete when no lasso was found",
          "[checker][recurrence]") {
  fixtures::Retry p;
  auto o = with(Fairness::Weak);
  o.max_depth = 1;
  CHECK(Bfs(p, o).run().verdict == Verdict::Incomplete);
}

TEST_CASE("recurrence: a replayed lasso confirms, and a loop that retries nothing does not",
          "[checker][recurrence]") {
  fixtures::Retry p;
  auto r = Bfs(p, with(Fairness::None)).run();
  REQUIRE(r.violation);
  const auto prop = p.properties()[0];
  const auto states = Bfs<fixtures::Retry>::replay(p, r.violation->path);
  CHECK(kmc::checker::loop_start(p, states) == *r.violation->loop);
  const kmc::checker::FairnessPlan none{
      {Fairness::None, Fairness::None, Fairness::None, Fairness::None}, false};
  const auto confirmed = kmc::checker::confirm_violation(p, prop, 0, none, r.violation->path);
  REQUIRE(confirmed);
  CHECK(confirmed->shape == kmc::checker::Shape::Loop);
  CHECK(confirmed->loop == r.violation->loop);
  kmc::checker::Path ticks{0, {2, 2}};  // Tick, Tick: back home without retrying
  CHECK(!kmc::checker::confirm_violation(p, prop, 0, none, ticks));
}
