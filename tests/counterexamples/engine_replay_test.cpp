// Replay of model counterexamples in the reference engine: the GPU Hunter
// deadlock reproduces, a hand-edited impossible decision diverges at its
// step, a deliberately broken protocol's trace diverges where the engine
// (Kueue) refuses the bug, and malformed traces are input errors.
#include <catch2/catch.hpp>

#include "checker/bfs.hpp"
#include "counterexamples/engine_replay.hpp"
#include "counterexamples/itf.hpp"
#include "counterexamples/model_replay.hpp"
#include "counterexamples/scenario_id.hpp"
#include "counterexamples/token.hpp"
#include "invariants/multikueue_registry.hpp"
#include "model/checked.hpp"
#include "model/diagnostics.hpp"
#include "protocols/multikueue.hpp"

using namespace kmc;

namespace {

struct Made {
  model::Scenario scenario;
  protocols::MkParams params;
  cx::ItfDocument itf;
};

// kmc check's path, in process: the first violation of `property`, as ITF.
Made trace_of(const std::string& dir, const std::string& property, const std::string& variant = "") {
  Made m{model::load_scenario(dir), {}, {}};
  m.scenario.fleet.options.variant = variant;
  m.params = protocols::compile_multikueue(m.scenario);
  const protocols::MultiKueue mk(m.params);
  checker::CheckOptions o;
  o.properties = {property};
  const auto props = invariants::multikueue_properties(mk);
  const auto r = checker::Bfs(model::Checked<protocols::MultiKueue>{mk, props}, o).run();
  REQUIRE(r.violation);
  REQUIRE(r.violation->property == property);
  auto t = cx::make_trace(mk, r.violation->path);
  t.property = property;
  t.loop = r.violation->loop;
  const auto token = cx::format_token(cx::Token{cx::scenario_id(mk), property, r.violation->subject, r.violation->path});
  const std::string text = cx::to_itf(t, dir, token).dump(2);
  m.itf = cx::parse_itf("test.itf.json", text);
  return m;
}

cx::EngineReplay replay(const Made& m) { return cx::replay_in_engine(m.scenario, m.params, m.itf); }

}  // namespace

TEST_CASE("the GPU Hunter deadlock reproduces in the engine") {
  const Made m = trace_of("examples/gpu-hunter", "no-stuck-job");
  const auto r = replay(m);
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Reproduced);
  CHECK(r.steps.size() == 5);
  CHECK(r.property_check.find("asia-southeast1") != std::string::npos);
  // The model still takes the trace's path through the same states.
  CHECK_FALSE(cx::model_difference(protocols::MultiKueue(m.params), m.itf));
}

TEST_CASE("a hand-edited impossible decision diverges at its step") {
  Made m = trace_of("examples/gpu-hunter", "no-stuck-job");
  auto& states = m.itf.doc["states"];
  REQUIRE(states[3]["mbt::actionTaken"] == "CreateRemoteWorkload");
  // The dispatcher nominated us-central1; claim the controller created the copy on asia-southeast1.
  states[3]["mbt::nondetPicks"]["cluster"] = "asia-southeast1";
  const auto r = replay(m);
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(r.step == 3);
  CHECK(r.action.find("CreateRemoteWorkload") == 0);
}

TEST_CASE("an edited final state that the engine does not reach diverges at that step") {
  Made m = trace_of("examples/gpu-hunter", "no-stuck-job");
  auto& last = m.itf.doc["states"][5];
  last["team-ml/llm-finetune @us-central1"] = "Admitted, ProvisioningRequest Provisioned, nominated";
  const auto r = replay(m);
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(r.step == 5);
  REQUIRE(r.difference.size() == 1);
  CHECK(r.difference[0].find("engine \"QuotaReserved, ProvisioningRequest Accepted, nominated\"") != std::string::npos);
}

TEST_CASE("a deliberately broken protocol's trace diverges where Kueue refuses the bug") {
  // broken-keep-losers: the model keeps the losing copies after selection; the
  // engine's MultiKueue controller deletes them, as Kueue does.
  const Made m = trace_of("examples/gpu-hunter-fixed", "quota-counted-once", "broken-keep-losers");
  const auto r = replay(m);
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(r.action.find("SelectWorker") == 0);
}

TEST_CASE("malformed traces are input errors naming the field") {
  const Made m = trace_of("examples/gpu-hunter", "no-stuck-job");
  Made bad = m;
  bad.itf.doc["states"][2]["mbt::nondetPicks"]["cluster"] = "mars";
  CHECK_THROWS_WITH(replay(bad), Catch::Contains("states[2].mbt::nondetPicks.cluster") && Catch::Contains("mars"));
  bad = m;
  bad.itf.doc["states"][1]["mbt::actionTaken"] = "Teleport";
  CHECK_THROWS_WITH(replay(bad), Catch::Contains("states[1].mbt::actionTaken"));
  CHECK_THROWS_WITH(cx::parse_itf("t.json", "{\n  \"states\": [\n  }"), Catch::Contains("t.json:3"));
}
