// Replay of kueue-admission counterexamples in the reference engine: the
// seed examples reproduce, a trace edited where the engine disagrees
// diverges at that step and names the cell, a scenario whose Kueue behaves
// otherwise diverges at the step where it does, and traces that are not of
// this scenario are input errors.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "counterexamples/itf.hpp"
#include "counterexamples/kueue_admission/engine_replay.hpp"
#include "counterexamples/kueue_admission/pipeline.hpp"
#include "model/diagnostics.hpp"
#include "protocols/kueue_admission/params.hpp"

using namespace kmc;

namespace {

struct Made {
  model::Scenario scenario;
  protocols::ka::AdmissionParams params;
  cx::ItfDocument itf;
};

// kmc check's path, in process: the (shrunk) violation of `property`, as ITF.
Made trace_of(const std::string& dir, const std::string& property = "") {
  Made m{model::load_scenario(dir), {}, {}};
  m.params = protocols::ka::compile_admission(m.scenario);
  cx::CheckRequest req;
  if (!property.empty()) req.properties = {property};
  const cx::CheckOutcome o = cx::check_kueue_admission(m.scenario, req);
  REQUIRE(o.trace);
  REQUIRE(!o.token.empty());
  m.itf = cx::parse_itf("test.itf.json", cx::itf_text(cx::to_itf(*o.trace, dir, o.token)));
  return m;
}

cx::EngineReplay replay(const Made& m) {
  return cx::replay_in_engine(m.scenario, m.params, m.itf);
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

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// K14 (#6929, known-bugs.md): a head that can never fit (job-3, 4 cpu in a
// 3-cpu queue) and a preemptor (job-4) alternate at cq1's head; without the
// sticky head (#7157) job-4 reclaims job-1's borrowed quota and loses it to
// job-1 again, forever. Written under a fresh temporary folder.
std::string k14_scenario(const std::string& variant) {
  static int n = 0;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("kmc-k14-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
  std::filesystem::create_directories(dir / "cluster");
  std::ofstream(dir / "kmc.yaml") << "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\n"
                                  << "protocol: kueue-admission\ncluster: cluster\n"
                                  << (variant.empty() ? ""
                                                      : "options: {variant: " + variant + "}\n");
  std::ofstream(dir / "cluster" / "all.yaml") << R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata:
  name: demo
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cq1
spec:
  cohortName: demo
  namespaceSelector: {}
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
    - coveredResources: [cpu]
      flavors:
        - name: default
          resources:
            - {name: cpu, nominalQuota: 3, borrowingLimit: 0}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cq2
spec:
  cohortName: demo
  namespaceSelector: {}
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
    - coveredResources: [cpu]
      flavors:
        - name: default
          resources:
            - {name: cpu, nominalQuota: 0, borrowingLimit: 3}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q1, namespace: ns}
spec: {clusterQueue: cq1}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q2, namespace: ns}
spec: {clusterQueue: cq2}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: job-1, namespace: ns, creationTimestamp: "2026-11-30T08:00:00Z"}
spec:
  queueName: q2
  podSets:
    - name: main
      count: 1
      template: {spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: job-2, namespace: ns, creationTimestamp: "2026-11-30T08:00:01Z"}
spec:
  queueName: q2
  podSets:
    - name: main
      count: 1
      template: {spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: job-3, namespace: ns, creationTimestamp: "2026-11-30T08:00:02Z"}
spec:
  queueName: q1
  podSets:
    - name: main
      count: 1
      template: {spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "4"}}}]}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: job-4, namespace: ns, creationTimestamp: "2026-11-30T08:00:03Z"}
spec:
  queueName: q1
  podSets:
    - name: main
      count: 1
      template: {spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "3"}}}]}}
)";
  return dir.string();
}

}  // namespace

TEST_CASE("the zombie pod (seed 4) reproduces in the engine", "[replay][admission]") {
  const Made m = trace_of("examples/zombie-pod");
  const auto r = replay(m);
  INFO(cx::to_text(r));
  REQUIRE(r.verdict == cx::EngineReplay::Verdict::Reproduced);
  CHECK(r.property == "guarantee-not-stuck");
  REQUIRE(r.steps.size() == 2);
  CHECK(r.steps[0].action == "Schedule");
  CHECK(has(r.steps[0].engine, "research/sweep Admitted -> Evicted"));
  CHECK(r.steps[1].action == "KubeletLost(research/sweep)");
  CHECK(has(r.property_check, "research/train-a is Pending"));
  CHECK(has(r.property_check, "ClusterQueue team-a's nominal quota"));
}

TEST_CASE("head-of-line blocking behind a grace period (seed 3) reproduces in the engine",
          "[replay][admission]") {
  const Made m = trace_of("examples/preemption-grace-hol");
  const auto r = replay(m);
  INFO(cx::to_text(r));
  REQUIRE(r.verdict == cx::EngineReplay::Verdict::Reproduced);
  CHECK(r.property == "no-head-of-line-blocking");
  REQUIRE(r.steps.size() == 1);
  CHECK(has(r.steps[0].engine, "serving/batch-2 Admitted -> Evicted"));
  CHECK(has(r.property_check, "serving/serve-0 heads ClusterQueue inference"));
  CHECK(has(r.property_check, "preempts serving/batch-1 for serving/serve-1"));
}

TEST_CASE("the integer DRS before #6617 (K01) reproduces in the engine run as before it",
          "[replay][admission]") {
  const Made m = trace_of("examples/drs-rounding", "guarantee-eventually-admitted");
  REQUIRE(m.params.integer_drs);
  const auto r = replay(m);
  INFO(cx::to_text(r));
  REQUIRE(r.verdict == cx::EngineReplay::Verdict::Reproduced);
  CHECK(has(r.steps[0].engine, "production/serve-b Pending -> Inadmissible"));
  // The same trace on today's share: the engine preempts the borrower instead.
  Made today = m;
  today.params.integer_drs = false;
  const auto d = replay(today);
  CHECK(d.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(has(cx::to_text(d), "research/sweep Admitted -> Pending"));
}

TEST_CASE("two preemptors of a cycle sharing a victim before #805 (K05) reproduce in the engine",
          "[replay][admission]") {
  const Made m = trace_of("examples/cohort-shared-victim", "no-over-admission");
  REQUIRE_FALSE(m.params.recheck_in_cycle);
  const auto r = replay(m);
  INFO(cx::to_text(r));
  REQUIRE(r.verdict == cx::EngineReplay::Verdict::Reproduced);
  CHECK(has(r.property_check, "more than its quota and its cohort allow"));
  // Today's processEntry re-checks the second preemptor against the first: no over-admission.
  Made today = m;
  today.params.recheck_in_cycle = true;
  CHECK(replay(today).verdict == cx::EngineReplay::Verdict::Diverged);
}

TEST_CASE("one preemption per cohort per cycle before #2641 (K11) reproduces in the engine",
          "[replay][admission]") {
  const Made m = trace_of("examples/cohort-preemption-hol");
  REQUIRE_FALSE(m.params.multiple_preemptions);
  const auto r = replay(m);
  INFO(cx::to_text(r));
  REQUIRE(r.verdict == cx::EngineReplay::Verdict::Reproduced);
  CHECK(r.property == "no-head-of-line-blocking");
  CHECK(has(r.property_check, "skips the head of ClusterQueue team-b in its cohort"));
  CHECK(has(r.property_check, "preempts team-b/batch-1 for team-b/serve"));
  // Today's scheduler lets team-b/serve preempt in the same first cycle.
  Made today = m;
  today.params.multiple_preemptions = true;
  const auto d = replay(today);
  CHECK(d.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(has(cx::to_text(d), "team-b/batch-1 Admitted -> Evicted"));
}

TEST_CASE("a trace cell the engine does not reach diverges at that step, naming the cell",
          "[replay][admission]") {
  SECTION("a phase after the scheduling cycle") {
    Made m = trace_of("examples/zombie-pod");
    auto& s1 = m.itf.doc["states"][1];
    REQUIRE(s1["mbt::actionTaken"] == "Schedule");
    entry(s1, "phase", "research/sweep") = "Pending";  // as if the sweep were a Job
    const auto r = replay(m);
    INFO(cx::to_text(r));
    CHECK(r.verdict == cx::EngineReplay::Verdict::Diverged);
    CHECK(r.step == 1);
    CHECK(r.action == "Schedule");
    REQUIRE(r.difference.size() == 1);
    CHECK(r.difference[0] == "phase[research/sweep]: trace Pending, engine Evicted");
  }
  SECTION("a ClusterQueue's usage and its sticky head") {
    Made m = trace_of("examples/preemption-grace-hol");
    auto& s1 = m.itf.doc["states"][1];
    entry(s1, "usage", tup({"inference", "l4", "nvidia.com/gpu"})) = 2;
    entry(s1, "sticky", "inference") = "serving/serve-1";
    const auto r = replay(m);
    INFO(cx::to_text(r));
    CHECK(r.verdict == cx::EngineReplay::Verdict::Diverged);
    CHECK(r.step == 1);
    REQUIRE(r.difference.size() == 2);
    CHECK(r.difference[0] == "usage[inference, l4, nvidia.com/gpu]: trace 2, engine 3");
    CHECK(r.difference[1] == "sticky[inference]: trace serving/serve-1, engine serving/serve-0");
  }
  SECTION("the initial state") {
    Made m = trace_of("examples/zombie-pod");
    entry(m.itf.doc["states"][0], "flavor", "research/sweep") = "";
    const auto r = replay(m);
    CHECK(r.verdict == cx::EngineReplay::Verdict::Diverged);
    CHECK(r.step == 0);
    CHECK(r.action == "init");
    REQUIRE(r.difference.size() == 1);
    CHECK(r.difference[0] == "flavor[research/sweep]: trace none, engine h100");
  }
}

TEST_CASE("a deliberately broken variant's trace diverges where Kueue refuses the bug",
          "[replay][admission]") {
  // broken-skip-cohort-limit: the model lets team-a and team-b borrow past the
  // cohort while the sweep holds it all; the engine preempts the sweep instead.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("kmc-broken-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy("examples/zombie-pod", dir, fs::copy_options::recursive);
  std::ofstream(dir / "kmc.yaml") << "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\n"
                                     "protocol: kueue-admission\ncluster: cluster\n"
                                     "options: {variant: broken-skip-cohort-limit}\n";
  const Made m = trace_of(dir.string(), "no-over-admission");
  const auto r = replay(m);
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(r.step == 1);
  CHECK(std::find(r.difference.begin(), r.difference.end(),
                  "phase[research/train-a]: trace Admitted, engine Pending") != r.difference.end());
  fs::remove_all(dir);
}

TEST_CASE("an action the engine cannot take diverges at its step", "[replay][admission]") {
  Made m = trace_of("examples/zombie-pod");
  auto& s2 = m.itf.doc["states"][2];
  s2["mbt::actionTaken"] = "Finish";
  s2["mbt::nondetPicks"]["workload"] = "research/train-a";
  const auto r = replay(m);
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(r.step == 2);
  CHECK(r.action == "Finish(research/train-a)");
  CHECK(has(r.engine_did, "research/train-a has no running job in the engine (it is Pending)"));
}

TEST_CASE("a scenario whose Kueue releases victims at once diverges where the trace waits",
          "[replay][admission]") {
  // The trace of the pre-fix queue against the fixed one (FastQuotaReleaseInPodIntegration):
  // the engine releases batch-2's quota at eviction, the trace keeps it Evicted.
  Made m = trace_of("examples/preemption-grace-hol");
  m.scenario = model::load_scenario("examples/preemption-grace-hol-fixed");
  m.params = protocols::ka::compile_admission(m.scenario);
  const auto r = replay(m);
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(r.step == 1);
  CHECK(std::find(r.difference.begin(), r.difference.end(),
                  "phase[serving/batch-2]: trace Evicted, engine Pending") != r.difference.end());
}

TEST_CASE("a trace whose property holds in the engine's state diverges at its end",
          "[replay][admission]") {
  // The same steps, with the stuck pods failed by the PodTermination controller
  // (#7312): the engine admits train-a, so nothing is stuck.
  Made m = trace_of("examples/zombie-pod");
  m.scenario = model::load_scenario("examples/zombie-pod-fixed");
  m.params = protocols::ka::compile_admission(m.scenario);
  const auto r = replay(m);
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(r.action == "(end of trace)");
  CHECK(has(r.engine_did, "ForceFailStuckPods(research/sweep)"));
}

TEST_CASE("the in-memory trace of kmc check replays as its ITF document does",
          "[replay][admission]") {
  const model::Scenario sc = model::load_scenario("examples/zombie-pod");
  cx::CheckRequest req;
  req.replay_engine = true;
  const cx::CheckOutcome o = cx::check_kueue_admission(sc, req);
  REQUIRE(o.engine);
  CHECK(o.engine->reproduced);
  CHECK(has(o.engine->text, "Replay in the engine: Reproduced"));
  CHECK(o.engine->json["verdict"] == "Reproduced");
  CHECK(o.engine->json["steps"].size() == 2);
}

TEST_CASE("a kueue-admission trace that is not of this scenario is an input error",
          "[replay][admission]") {
  const Made m = trace_of("examples/zombie-pod");
  Made bad = m;
  bad.itf.doc["states"][2]["mbt::nondetPicks"]["workload"] = "research/nobody";
  CHECK_THROWS_WITH(replay(bad), Catch::Contains("states[2].mbt::nondetPicks.workload"));
  bad = m;  // train-a runs as a Job: its pods never get stuck terminating in this scenario
  bad.itf.doc["states"][2]["mbt::nondetPicks"]["workload"] = "research/train-a";
  CHECK_THROWS_WITH(replay(bad), Catch::Contains("states[2].mbt::actionTaken") &&
                                     Catch::Contains("not an action of this scenario"));
  bad = m;
  bad.itf.doc["states"][1]["phase"]["#map"].erase(0);
  CHECK_THROWS_WITH(replay(bad), Catch::Contains("states[1].phase") &&
                                     Catch::Contains("no value for phase[research/sweep]"));
  bad = m;
  entry(bad.itf.doc["states"][1], "phase", "research/sweep") = "Running";
  CHECK_THROWS_WITH(replay(bad),
                    Catch::Contains("states[1].phase") && Catch::Contains("is not one of"));
  // A trace file names its scenario; another one's is refused by its token.
  CHECK_THROWS_WITH(cx::load_admission_replay_target(m.itf, "examples/zombie-pod-fixed"),
                    Catch::Contains("another scenario"));
  CHECK_NOTHROW(cx::load_admission_replay_target(m.itf, "examples/zombie-pod"));
}

TEST_CASE(
    "the K14 livelock before #7157 reproduces as a lasso; current Kueue's sticky head refuses it",
    "[replay][admission]") {
  const std::string dir = k14_scenario("pre-7157");
  const Made m = trace_of(dir, "no-preemption-livelock");
  REQUIRE(m.itf.doc.contains("loop"));
  const auto r = replay(m);
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Reproduced);
  CHECK(r.lasso);
  CHECK(r.steps.size() == 4);  // two turns of a two-step loop
  CHECK(has(r.property_check, "ns/job-4 never gets quota"));
  CHECK(has(r.property_check, "preempted 1 workload(s) in each turn"));
  // The same trace against the same cluster under current Kueue: job-4 stays at cq1's head.
  Made now = m;
  const std::string current = k14_scenario("");
  now.scenario = model::load_scenario(current);
  now.params = protocols::ka::compile_admission(now.scenario);
  const auto d = replay(now);
  INFO(cx::to_text(d));
  CHECK(d.verdict == cx::EngineReplay::Verdict::Diverged);
  CHECK(d.step == 2);
  CHECK(std::find(d.difference.begin(), d.difference.end(),
                  "sticky[cq1]: trace none, engine ns/job-4") != d.difference.end());
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(current);
}

// With SchedulingEquivalenceHashing (on by default), a BestEffortFIFO head
// that does not fit moves every equivalent workload of its heap to the
// inadmissible set with it (cluster_queue.go: handleInadmissibleHash). The
// model used to park one per cycle, and the engine parked batch-2 a step
// earlier; now both park the batch groups together.
// The trace: preemption-grace-hol-fixed up to where two evicted batch jobs
// are parked together, asked for by a property of the scenario's own.
TEST_CASE("the model and the engine park equivalent workloads in the same cycle",
          "[replay][admission]") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kmc-parked-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::copy("examples/preemption-grace-hol-fixed", dir,
                        std::filesystem::copy_options::recursive);
  std::ofstream(dir / "kmc.yaml", std::ios::app)
      << "properties:\n  - name: never-parked-together\n    always: '!(phase[\"serving/batch-1\"] "
         "== Inadmissible && phase[\"serving/batch-2\"] == Inadmissible)'\n";
  const Made m = trace_of(dir.string(), "never-parked-together");
  const auto r = replay(m);
  INFO(cx::to_text(r));
  CHECK(r.verdict == cx::EngineReplay::Verdict::Reproduced);
  CHECK(m.itf.doc["states"].size() == 6);  // five cycles: the two parked in the last
  std::filesystem::remove_all(dir);
}
