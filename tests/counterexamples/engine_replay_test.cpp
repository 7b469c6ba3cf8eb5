// Replay of model counterexamples in the reference engine: the GPU Hunter
// deadlock reproduces, a hand-edited impossible decision diverges at its
// step, a deliberately broken protocol's trace diverges where the engine
// (Kueue) refuses the bug, and malformed traces are input errors.
#include "counterexamples/multikueue/engine_replay.hpp"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>

#include "checker/bfs.hpp"
#include "counterexamples/itf.hpp"
#include "counterexamples/multikueue/model_replay.hpp"
#include "counterexamples/multikueue/replay_setup.hpp"
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
Made trace_of(const std::string& dir, const std::string& property,
              const std::string& variant = "") {
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
  const auto token = cx::format_token(
      cx::Token{cx::scenario_id(mk), property, r.violation->subject, r.violation->path});
  const std::string text = cx::to_itf(t, dir, token).dump(2);
  m.itf = cx::parse_itf("test.itf.json", text);
  return m;
}

cx::EngineReplay replay(const Made& m) {
  return cx::replay_in_engine(m.scenario, m.params, m.itf);
}

// A path named action by action from the initial state, replayed in the engine for
// no-job-on-two-workers: each name must be enabled where it comes.
cx::EngineReplay replay_named(const model::Scenario& scenario, const protocols::MkParams& params,
                              const std::vector<std::string>& names) {
  const protocols::MultiKueue mk(params);
  checker::Path path;
  auto s = mk.init_states().front();
  for (const std::string& name : names) {
    std::vector<protocols::MkAction> as;
    mk.actions(s, as);
    const auto it = std::find_if(as.begin(), as.end(),
                                 [&](const auto& a) { return mk.action_name(a) == name; });
    std::string enabled;
    for (const auto& a : as) enabled += mk.action_name(a) + "; ";
    INFO(name << " among " << enabled);
    REQUIRE(it != as.end());
    path.choices.push_back(static_cast<std::uint32_t>(it - as.begin()));
    s = mk.next(s, *it);
  }
  auto t = cx::make_trace(mk, path);
  t.property = "no-job-on-two-workers";
  const auto token = cx::format_token(cx::Token{cx::scenario_id(mk), t.property, -1, path});
  return cx::replay_in_engine(scenario, params, t, token);
}

// The value of one entry of a field's {"#map": ...} in an ITF state.
nlohmann::json& entry(nlohmann::json& state, const std::string& field, const nlohmann::json& key) {
  for (auto& e : state[field]["#map"])
    if (e[0] == key) return e[1];
  FAIL("no " << field << " entry " << key.dump());
  throw;
}

nlohmann::json tup(std::vector<std::string> names) {
  return {{"#tup", names}};
}

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
  const auto at = tup({"team-ml/llm-finetune", "us-central1"});
  entry(last, "remote", at) = "Admitted";
  entry(last, "prov", at) = "Provisioned";
  const auto r = replay(m);
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(r.step == 5);
  REQUIRE(r.difference.size() == 2);
  CHECK(r.difference[0] ==
        "remote[team-ml/llm-finetune, us-central1]: trace Admitted, engine QuotaReserved");
  CHECK(r.difference[1] ==
        "prov[team-ml/llm-finetune, us-central1]: trace Provisioned, engine Accepted");
}

TEST_CASE("ITF values are typed: integers for quantities, enum names for phases") {
  const Made m = trace_of("examples/gpu-hunter", "no-stuck-job");
  const auto& doc = m.itf.doc;
  for (const char* field : {"phase", "cluster", "nominated", "remote", "prov", "attempts", "usage",
                            "capacity", "snapshot", "budget"})
    CHECK(std::find(doc["vars"].begin(), doc["vars"].end(), field) != doc["vars"].end());
  const std::set<std::string> remote_phases = {"None",    "Pending",  "QuotaReserved", "Admitted",
                                               "Running", "Finished", "Rejected"};
  for (const auto& st : doc["states"]) {
    for (const auto& e : st["usage"]["#map"]) {
      REQUIRE(e[0]["#tup"].size() == 3);
      CHECK(e[1].is_number_integer());
    }
    for (const auto& e : st["remote"]["#map"]) {
      REQUIRE(e[1].is_string());
      CHECK(remote_phases.count(e[1].get<std::string>()) == 1);
    }
    for (const auto& e : st["capacity"]["#map"]) CHECK(e[1].is_number_integer());
  }
  // 768Gi of memory is written in Kueue's units (bytes), a number, not "768Gi".
  auto last = doc["states"].back();
  CHECK(entry(last, "capacity", tup({"us-central1", "h100", "memory"})) ==
        768LL * 1024 * 1024 * 1024);
  CHECK(entry(last, "usage", tup({"manager/gpu-cq", "h100", "nvidia.com/gpu"})) == 8);
  CHECK(entry(last, "remote", tup({"team-ml/llm-finetune", "us-central1"})) == "QuotaReserved");
  CHECK(entry(last, "prov", tup({"team-ml/llm-finetune", "us-central1"})) == "Accepted");
  CHECK(entry(last, "phase", "team-ml/llm-finetune") == "QuotaReserved");
  // Not one value is describe()'s English.
  CHECK(doc.dump().find("ProvisioningRequest Accepted") == std::string::npos);
  CHECK(doc.dump().find(" @") == std::string::npos);
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
  CHECK_THROWS_WITH(replay(bad), Catch::Contains("states[2].mbt::nondetPicks.cluster") &&
                                     Catch::Contains("mars"));
  bad = m;
  bad.itf.doc["states"][1]["mbt::actionTaken"] = "Teleport";
  CHECK_THROWS_WITH(replay(bad), Catch::Contains("states[1].mbt::actionTaken"));
  CHECK_THROWS_WITH(cx::parse_itf("t.json", "{\n  \"states\": [\n  }"),
                    Catch::Contains("t.json:3"));
}

TEST_CASE("a missing or mistyped cell is an input error naming the state and the field") {
  const Made m = trace_of("examples/gpu-hunter", "no-stuck-job");
  const auto at = tup({"team-ml/llm-finetune", "us-central1"});
  auto with = [&](auto&& edit) {
    Made bad = m;
    edit(bad.itf.doc["states"][3]);
    bad.itf = cx::parse_itf("t.itf.json", bad.itf.doc.dump(2));  // with its text, for the line
    return bad;
  };
  const Made no_field = with([](nlohmann::json& st) { st.erase("remote"); });
  CHECK_THROWS_WITH(replay(no_field),
                    Catch::Contains("t.itf.json:") && Catch::Contains("states[3].remote: missing"));
  const Made english =
      with([&](nlohmann::json& st) { entry(st, "remote", at) = "QuotaReserved, nominated"; });
  CHECK_THROWS_WITH(replay(english),
                    Catch::Contains("states[3].remote") && Catch::Contains("is not one of"));
  const Made text_usage = with([](nlohmann::json& st) { st["usage"]["#map"][0][1] = "8/16"; });
  CHECK_THROWS_WITH(replay(text_usage),
                    Catch::Contains("states[3].usage") && Catch::Contains("expected an integer"));
  const Made flat_key = with(
      [](nlohmann::json& st) { st["remote"]["#map"][0][0] = "team-ml/llm-finetune @us-central1"; });
  CHECK_THROWS_WITH(replay(flat_key),
                    Catch::Contains("states[3].remote") && Catch::Contains("#tup"));
  const Made no_entry = with([](nlohmann::json& st) { st["prov"]["#map"].erase(0); });
  CHECK_THROWS_WITH(replay(no_entry),
                    Catch::Contains("states[3].prov") &&
                        Catch::Contains("no value for prov[team-ml/llm-finetune"));
  // The model replay reads the same cells: a changed value is a difference, not a crash.
  const Made changed = with([](nlohmann::json& st) { st["attempts"]["#map"][0][1] = 2; });
  const auto diff = cx::model_difference(protocols::MultiKueue(m.params), changed.itf);
  REQUIRE(diff);
  CHECK(*diff ==
        "state 3: attempts[team-ml/llm-finetune, us-central1] is 0 in the model, 2 in the trace");
}

TEST_CASE("an in-memory trace replays as its ITF document does") {
  const Made m = trace_of("examples/gpu-hunter", "no-stuck-job");
  const protocols::MultiKueue mk(m.params);
  std::string why;
  const auto token = cx::parse_token(m.itf.doc["#meta"]["replay"].get<std::string>(), why);
  REQUIRE(token);
  auto t = cx::make_trace(mk, token->path);
  t.property = "no-stuck-job";
  const auto r = cx::replay_in_engine(m.scenario, m.params, t,
                                      m.itf.doc["#meta"]["replay"].get<std::string>());
  CHECK(r.verdict == cx::EngineReplay::Verdict::Reproduced);
  CHECK(r.steps.size() == 5);
}

// Issue 12e. The model (before issue 12a) left the job Admitted on europe-west4 with its copy
// QuotaReserved there again after a spot reclaim. The engine follows every step; run on for a
// virtual day, Kueue retries: it evicts the job, reserves manager quota again, and the job waits
// there un-nominated, which used to pass for the same stuck job. It is not where the trace leaves
// it, so the replay diverges at the end and names the first cell that differs.
TEST_CASE("a stuck job the engine moved elsewhere after the trace is not confirmed stuck",
          "[engine-replay][stuck]") {
  const std::string entry = "counterexamples/corpus/spot-reclaim-selected-copy-readmitted";
  const cx::ItfDocument itf = cx::load_itf(entry + "/trace.itf.json");
  const cx::ReplayTarget target = cx::load_replay_target(itf, entry + "/scenario");
  const auto r = cx::replay_in_engine(target.scenario, target.params, itf);
  INFO(cx::to_text(r));
  REQUIRE(r.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(r.steps.size() == 11);  // every step followed
  CHECK(r.action == "(end of trace)");
  REQUIRE(!r.difference.empty());
  CHECK(r.difference[0] == "phase[team-ml/llm-finetune]: trace Admitted, engine QuotaReserved");
  CHECK(r.engine_did.find(r.difference[0]) != std::string::npos);
}

// The way out Kueue has for a workload evicted while its Job, mirrored from a worker lost for
// good, still reads active (workload.go): dispatched again, the copy europe-west4 admits is
// deactivated, the quota comes back, and the job is dispatched once more and runs on both
// workers. A path named step by step, so the engine follows EvictedCopyDeactivated itself.
TEST_CASE("a job lost for good is dispatched again and its deactivated copy frees the quota",
          "[engine-replay][faults]") {
  // Without llm-eval: Kueue orders a workload evicted by an admission check by its eviction time
  // (GetQueueOrderTimestamp), so the engine admits llm-eval first; the model's manager queue
  // keeps creation order (a gap the closing note records).
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("kmc-lost-for-good-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy("examples/worker-lost-for-good", dir, fs::copy_options::recursive);
  fs::remove(dir / "manager" / "llm-eval-job.yaml");
  model::Scenario scenario = model::load_scenario(dir.string());
  const protocols::MkParams params = protocols::compile_multikueue(scenario);
  const std::string ft = "team-ml/llm-finetune", us = "us-central1", eu = "europe-west4";
  const auto r =
      replay_named(scenario, params,
                   {"ReserveQuota(" + ft + ")", "Nominate(" + ft + ")",
                    "CreateRemoteWorkload(" + ft + ", " + us + ")",
                    "ReserveQuotaOnWorker(" + ft + ", " + us + ")",
                    "SelectWorker(" + ft + ", " + us + ")", "JobStarted(" + ft + ", " + us + ")",
                    "WorkerDisconnected(" + us + ")", "WorkerLostTimeout(" + ft + ", " + us + ")",
                    "Nominate(" + ft + ")", "CreateRemoteWorkload(" + ft + ", " + eu + ")",
                    "ReserveQuotaOnWorker(" + ft + ", " + eu + ")",
                    "EvictedCopyDeactivated(" + ft + ", " + eu + ")", "ReserveQuota(" + ft + ")",
                    "CreateRemoteWorkload(" + ft + ", " + eu + ")",
                    "ReserveQuotaOnWorker(" + ft + ", " + eu + ")",
                    "SelectWorker(" + ft + ", " + eu + ")", "JobStarted(" + ft + ", " + eu + ")"});
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Reproduced);
  CHECK(r.steps.size() == 17);
  CHECK(r.property_check.find("us-central1") != std::string::npos);
  fs::remove_all(dir);
}

// multikueue/workload.go reconcileGroup steps 5 and 8: a copy its worker deactivated (its
// ProvisioningRequest check Rejected, backoffLimitCount 0) is deleted for its spec being out of
// sync, and created again on the still nominated worker. The engine must create a new object (a
// new UID), not keep the old one.
TEST_CASE("a copy its worker rejected is created again in the engine, as a new Workload",
          "[engine-replay][rejected-copy]") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("kmc-rejected-copy-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy("examples/gpu-hunter-retry", dir, fs::copy_options::recursive);
  auto edit = [](const fs::path& file, const std::string& from, const std::string& to) {
    std::ifstream in(file);
    std::string text{std::istreambuf_iterator<char>(in), {}};
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    std::ofstream(file) << text;
  };
  edit(dir / "manager" / "kueue-manager-config.yaml", "example.com/capacity-snapshot-dispatcher",
       "kueue.x-k8s.io/multikueue-dispatcher-all-at-once");
  edit(dir / "workers" / "us-central1" / "kueue-objects.yaml", "backoffLimitCount: 3",
       "backoffLimitCount: 0");
  std::ofstream(dir / "kmc.yaml") << "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\nmanager: manager\n"
                                     "workers:\n"
                                     "  - name: us-central1\n"
                                     "    capacity: {h100: {nvidia.com/gpu: 0}}\n"
                                     "    autoscaler: {answer: Fails}\n"
                                     "  - name: asia-southeast1\n"
                                     "    capacity: {h100: {nvidia.com/gpu: 8, cpu: 96, "
                                     "memory: 768Gi}}\n";
  model::Scenario scenario = model::load_scenario(dir.string());
  const protocols::MkParams params = protocols::compile_multikueue(scenario);
  const std::string ft = "team-ml/llm-finetune", us = "us-central1";
  const auto r = replay_named(
      scenario, params,
      {"ReserveQuota(" + ft + ")", "Nominate(" + ft + ")",
       "CreateRemoteWorkload(" + ft + ", " + us + ")",
       "ReserveQuotaOnWorker(" + ft + ", " + us + ")",
       "ProvisioningAccepted(" + ft + ", " + us + ")", "ProvisioningFailed(" + ft + ", " + us + ")",
       "RecreateRemoteWorkload(" + ft + ", " + us + ")"});
  INFO(cx::to_text(r));
  // Every step followed; the property (no job on two workers) holds, as it should.
  CHECK(r.action == "(end of trace)");
  REQUIRE(r.steps.size() == 7);
  CHECK(r.steps.back().engine.find("created it again") != std::string::npos);
  fs::remove_all(dir);
}
