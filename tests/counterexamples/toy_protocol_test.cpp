// A protocol that is not MultiKueue goes through the whole pipeline (check,
// shrink, typed ITF, text and diagram rendering, token replay) with nothing
// but its definition: no code in checker/, the generic counterexamples/ or
// cli/ knows it. Issue 9, item 10.
#include "counterexamples/toy_protocol.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "counterexamples/itf.hpp"
#include "counterexamples/pipeline_core.hpp"
#include "counterexamples/render_generic.hpp"
#include "counterexamples/timeline.hpp"

using kmc::checker::Shape;
using kmc::checker::Verdict;

namespace {

kmc::model::Scenario scenario(int jobs, int nodes) {
  kmc::model::Scenario sc;
  sc.dir = "toy-fleet";
  for (int j = 0; j < jobs; ++j) {
    kmc::model::Workload wl;
    wl.meta.name = std::string(1, static_cast<char>('a' + j));
    sc.manager.workloads.push_back(wl);
  }
  for (int n = 0; n < nodes; ++n)
    sc.fleet.workers.push_back(
        kmc::model::WorkerSpec{"n" + std::to_string(n + 1), "", {}, {}, {}, {}});
  return sc;
}

toy::Instance instance(const kmc::model::Scenario& sc, bool broken) {
  auto params = toy::Spec::compile(sc);
  params.broken = broken;
  return toy::Instance(params);
}

kmc::cx::CheckOutcome check(const toy::Instance& p, const kmc::model::Scenario& sc,
                            kmc::cx::CheckRequest req) {
  kmc::cx::Hooks hooks;
  hooks.summary = "toy: " + std::to_string(p.params().J()) + " jobs";
  return kmc::cx::check_instance(p, toy::properties(p), sc, req, hooks);
}

}  // namespace

TEST_CASE("toy: exact state counts, and every default property verified", "[toy][pipeline]") {
  const auto sc = scenario(2, 1);
  const auto o = check(instance(sc, false), sc, {});
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states ==
        12);  // by hand: both waiting; one placed or running (4); one done (7)
  REQUIRE(o.result.properties.size() == 2);  // liveness only when named
  CHECK(o.result.properties[0].name == "one-job-per-node");
  CHECK(o.result.properties[1].name == "some-job-done");
  // Two nodes: 7 states per job (waiting, or placed, running or done on one of
  // two nodes), 49 pairs, less the 8 where both hold the same node: 41.
  CHECK(check(instance(scenario(2, 2), false), scenario(2, 2), {}).result.stats.states == 41);
}

TEST_CASE("toy: the broken scheduler is caught, shrunk, traced, drawn and replayed",
          "[toy][pipeline]") {
  const auto sc = scenario(2, 1);
  const auto p = instance(sc, true);
  kmc::cx::CheckRequest req;
  req.properties = {"one-job-per-node"};
  const auto o = check(p, sc, req);
  REQUIRE(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->shape == Shape::Reached);
  REQUIRE(o.trace);
  REQUIRE(o.shrink);
  CHECK(o.shrink->steps_after == 2);
  REQUIRE(o.trace->steps.size() == 3);
  CHECK(o.trace->steps[1].action == "Place(a, n1)");
  CHECK(o.trace->steps[2].action == "Place(b, n1)");
  CHECK(o.trace->steps[2].controller == "scheduler");

  // Typed ITF: the fields of the definition, as maps from entities to typed values.
  const auto itf = kmc::cx::to_itf(*o.trace, sc.dir, o.token);
  const auto& last = itf["states"][2];
  CHECK(last["mbt::actionTaken"] == "Place");
  CHECK(last["mbt::nondetPicks"]["node"] == "n1");
  REQUIRE(last.contains("load"));
  CHECK(last["load"]["#map"][0][0] == "n1");
  CHECK(last["load"]["#map"][0][1] == 2);
  CHECK(last["phase"]["#map"][1][1] == "Placed");
  CHECK(last["node"]["#map"][1][1] == "n1");

  // People's views: the timeline and the sequence diagram, both generic.
  const auto timeline = kmc::cx::render_timeline(*o.trace);
  CHECK(timeline.find("State 2: <Place(b, n1)>") != std::string::npos);
  CHECK(timeline.find("load[n1]") != std::string::npos);
  const auto mermaid =
      kmc::cx::render_generic(*o.trace, kmc::cx::RenderFormat::Mermaid, "kmc check toy-fleet");
  CHECK(mermaid.find("participant scheduler") != std::string::npos);
  CHECK(mermaid.find("Note over scheduler: 2. Place(b, n1)") != std::string::npos);
  const auto text = kmc::cx::render_generic(*o.trace, kmc::cx::RenderFormat::Text, "");
  INFO(text);
  CHECK(
      text.find("Place(b, n1): phase[b] Waiting -> Placed, node[b] none -> n1, load[n1] 1 -> 2") !=
      std::string::npos);

  // The token replays the same violation, and only against the same instance.
  kmc::cx::CheckRequest again;
  again.replay_token = o.token;
  const auto replayed = check(p, sc, again);
  CHECK(replayed.token_replayed);
  CHECK(replayed.result.verdict == Verdict::Violated);
  CHECK_THROWS_AS(check(instance(sc, false), sc, again), kmc::model::InputError);
}

TEST_CASE("toy: liveness under the definition's fairness families, and a token judged under them",
          "[toy][pipeline]") {
  auto sc = scenario(2, 1);
  const auto p = instance(sc, false);
  kmc::cx::CheckRequest req;
  req.properties = {"every-job-done"};
  const auto unfair =
      check(p, sc, req);  // completion is not fair by default: a job may run forever
  REQUIRE(unfair.result.verdict == Verdict::Violated);
  REQUIRE(unfair.result.violation);
  const auto shape = unfair.result.violation->shape;
  CHECK((shape == Shape::Stutter || shape == Shape::Loop));
  CHECK(unfair.result.assumptions.front() == "scheduler weak");

  sc.fleet.fairness.push_back({"completion", kmc::model::FairnessKind::Weak, {}});
  CHECK(check(p, sc, req).result.verdict == Verdict::Verified);
  kmc::cx::CheckRequest token;
  token.replay_token = unfair.token;
  CHECK(check(p, sc, token).result.verdict ==
        Verdict::Verified);  // that lasso is not a fair behaviour here

  sc.fleet.fairness.push_back({"no-such-family", kmc::model::FairnessKind::Weak, {}});
  CHECK_THROWS_AS(check(p, sc, req), kmc::model::InputError);
}

TEST_CASE("toy: a protocol without a reference engine refuses --replay-engine", "[toy][pipeline]") {
  const auto sc = scenario(1, 1);
  kmc::cx::CheckRequest req;
  req.replay_engine = true;
  CHECK_THROWS_AS(check(instance(sc, false), sc, req), kmc::model::InputError);
}
