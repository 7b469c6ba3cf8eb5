// The SMT engines (checker/smt_engines.hpp) against explicit search on the
// same MultiKueue instances (the SMT issue's cross-checks): bounded model
// checking finds the violation breadth-first search finds, at the same
// depth, on a path that replays on the explicit rules; what k-induction
// proves, explicit search verifies on the finite instance; and neither
// proves anything about a deliberately broken variant.
#include "checker/smt_engines.hpp"

#include <catch2/catch.hpp>

#include "checker/bfs.hpp"
#include "counterexamples/multikueue/symbolic.hpp"
#include "invariants/multikueue_registry.hpp"
#include "mk_fixtures.hpp"
#include "model/checked.hpp"

using kmc::checker::Bfs;
using kmc::checker::CheckOptions;
using kmc::checker::PropertyResult;
using kmc::checker::Result;
using kmc::checker::SmtEngine;
using kmc::checker::SmtLimits;
using kmc::checker::Verdict;
using kmc::protocols::MultiKueue;

namespace {

Result explicit_check(const MultiKueue& p, const std::string& property) {
  kmc::model::Checked<MultiKueue> checked{p, kmc::invariants::multikueue_properties(p)};
  CheckOptions o;
  o.properties = {property};
  return Bfs(checked, std::move(o)).run();
}

Result smt_check(const MultiKueue& p, const std::string& property, SmtEngine engine,
                 int depth = 20) {
  SmtLimits limits;
  limits.max_depth = depth;
  return kmc::cx::check_multikueue_smt(p, {property}, engine, limits);
}

const PropertyResult& only(const Result& r) {
  REQUIRE(r.properties.size() == 1);
  return r.properties.front();
}

}  // namespace

TEST_CASE("every always and sometimes property of MultiKueue has its symbolic predicate",
          "[protocols][smt]") {
  const MultiKueue p(mk_fixtures::gpu_hunter());
  std::vector<std::string> state_properties;
  for (const auto& prop : kmc::invariants::multikueue_properties(p))
    if (prop.kind() == kmc::model::PropertyKind::Always ||
        prop.kind() == kmc::model::PropertyKind::Sometimes)
      state_properties.push_back(prop.name());
  CHECK(kmc::cx::multikueue_smt_properties(p) == state_properties);
}

TEST_CASE("bounded model checking finds the broken variants' violations at breadth-first depth",
          "[protocols][smt][broken]") {
  struct Case {
    const char* name;
    kmc::protocols::MkParams params;
    const char* property;
  };
  auto ignores_quota = mk_fixtures::fleet(1, 2, 8, 16);
  ignores_quota.broken_worker_ignores_quota = true;
  auto keeps_losers = mk_fixtures::fleet(2, 1, 8, 16);
  keeps_losers.broken_keep_losers = true;
  for (const auto& c : {Case{"worker ignores quota", ignores_quota, "cluster-queue-within-quota"},
                        Case{"keeps losing copies", keeps_losers, "quota-counted-once"}}) {
    SECTION(c.name) {
      const MultiKueue p(c.params);
      const auto expl = explicit_check(p, c.property);
      REQUIRE(expl.verdict == Verdict::Violated);
      for (auto engine : {SmtEngine::Bmc, SmtEngine::Induction}) {
        const auto smt = smt_check(p, c.property, engine);
        REQUIRE(smt.verdict == Verdict::Violated);
        REQUIRE(smt.violation);
        CHECK(smt.violation->property == c.property);
        // The same shortest length; the path replays (smt_result checked each step).
        CHECK(smt.violation->path.choices.size() == expl.violation->path.choices.size());
        CHECK(only(smt).method == "bmc");
        CHECK(only(smt).k == static_cast<int>(expl.violation->path.choices.size()));
        const auto states = kmc::checker::replay(p, smt.violation->path);
        for (const auto& prop : kmc::invariants::multikueue_properties(p))
          if (prop.name() == c.property)
            CHECK_FALSE(kmc::model::rule<kmc::model::Always>(prop).holds(states.back()));
      }
    }
  }
}

TEST_CASE("what k-induction proves, explicit search verifies on the finite instance",
          "[protocols][smt]") {
  const MultiKueue p(mk_fixtures::gpu_hunter_fixed());
  const auto proof = smt_check(p, "cluster-queue-within-quota", SmtEngine::Induction, 4);
  CHECK(proof.verdict == Verdict::Verified);
  CHECK(only(proof).method == "k-induction");
  CHECK(only(proof).k == 1);
  CHECK(explicit_check(p, "cluster-queue-within-quota").verdict == Verdict::Verified);

  // The broken worker breaks exactly the step k-induction relies on: no proof, a violation.
  auto broken = mk_fixtures::fleet(1, 2, 8, 16);
  broken.broken_worker_ignores_quota = true;
  CHECK(smt_check(MultiKueue(broken), "cluster-queue-within-quota", SmtEngine::Induction).verdict ==
        Verdict::Violated);
}

TEST_CASE("a property that is not inductive stays Incomplete, with its counterexample to induction",
          "[protocols][smt]") {
  const MultiKueue p(mk_fixtures::gpu_hunter_fixed());
  const auto r = smt_check(p, "no-job-on-two-workers", SmtEngine::Induction, 3);
  CHECK(r.verdict == Verdict::Incomplete);
  CHECK(r.incomplete_reason == "max-depth 3");
  CHECK(r.explored_depth == 3);
  REQUIRE_FALSE(r.induction_counterexample.empty());
  // The step ends with a second copy running: the state before has one running already.
  CHECK(r.induction_counterexample.front().rfind("no-job-on-two-workers holds in", 0) == 0);
  bool starts_job = false;
  for (const auto& line : r.induction_counterexample)
    starts_job = starts_job || line.rfind("the step: JobStarted(", 0) == 0;
  CHECK(starts_job);
}

TEST_CASE("bounded model checking witnesses some-job-runs and stops at the recurrence diameter",
          "[protocols][smt]") {
  // One job, one worker that provisions at once: a handful of states, every path short.
  auto params = mk_fixtures::fleet(1, 1, 8, 8);
  params.dispatcher = kmc::protocols::Dispatcher::AllAtOnce;
  const MultiKueue p(params);
  const auto witness = smt_check(p, "some-job-runs", SmtEngine::Bmc);
  CHECK(witness.verdict == Verdict::Verified);
  CHECK(only(witness).method == "bmc");

  const auto complete = smt_check(p, "quota-counted-once", SmtEngine::Bmc, 60);
  CHECK(complete.verdict == explicit_check(p, "quota-counted-once").verdict);
  CHECK(complete.verdict == Verdict::Verified);
  CHECK(only(complete).method == "bmc-complete");
}
