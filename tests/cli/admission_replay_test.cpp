// kueue-admission counterexamples in the engine, as a user runs them:
// `kmc check --replay-engine` on the seed examples, and `kmc replay` of the
// trace `kmc check --trace-out` writes (dispatched on the protocol of the
// scenario the trace names).
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_kmc.hpp"

TEST_CASE("kmc check --replay-engine reproduces the seed examples and leaves the fixed ones alone",
          "[cli][replay][admission]") {
  for (const char* ex :
       {"examples/zombie-pod", "examples/preemption-grace-hol", "examples/cohort-preemption-hol"}) {
    const Run r = kmc(std::string("check ") + ex + " --replay-engine");
    INFO(ex << "\n" << r.out << r.err);
    CHECK(r.code == 1);
    CHECK(has(r.out, "Result: Violated"));
    CHECK(has(r.out, "Replay in the engine: Reproduced"));
    CHECK(has(r.out, "is violated in the engine's own state"));
  }
  const Run j = kmc("check examples/zombie-pod --replay-engine --output json");
  REQUIRE(j.code == 1);
  const auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["engineReplay"]["verdict"] == "Reproduced");
  CHECK(doc["engineReplay"]["property"] == "guarantee-not-stuck");
  for (const char* ex : {"examples/zombie-pod-fixed", "examples/preemption-grace-hol-fixed"}) {
    const Run r = kmc(std::string("check ") + ex + " --replay-engine");
    INFO(ex << "\n" << r.out << r.err);
    CHECK(r.code == 0);
    CHECK_FALSE(has(r.out, "Replay in the engine"));
  }
}

TEST_CASE(
    "kmc replay re-executes a kueue-admission trace file: Reproduced, or Diverged where edited",
    "[cli][replay][admission]") {
  const std::string trace = temp_path("zombie.itf.json");
  REQUIRE(kmc("check examples/zombie-pod --trace-out " + trace).code == 1);
  Run r = kmc("replay " + trace);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "Replay in the engine: Reproduced"));
  CHECK(has(r.out, "KubeletLost(research/sweep)"));

  // The engine evicts the sweep and keeps its quota: a trace claiming it went
  // back to its queue diverges at that step (exit 1), naming the cell.
  auto doc = nlohmann::json::parse(slurp(trace));
  for (auto& e : doc["states"][1]["phase"]["#map"])
    if (e[0] == "research/sweep") e[1] = "Pending";
  const std::string edited = temp_path("zombie-edited.itf.json");
  std::ofstream(edited) << doc.dump(2);
  r = kmc("replay " + edited);
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Diverged at step 1, Schedule"));
  CHECK(has(r.out, "phase[research/sweep]: trace Pending, engine Evicted"));
  r = kmc("replay " + edited + " --output json");
  CHECK(r.code == 1);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["verdict"] == "Diverged");
  CHECK(j["diverged"]["step"] == 1);

  // Another scenario than the trace's is refused (exit 3).
  r = kmc("replay " + trace + " --scenario examples/zombie-pod-fixed");
  CHECK(r.code == 3);
  CHECK(has(r.err, "another scenario"));
  std::remove(trace.c_str());
  std::remove(edited.c_str());
}

TEST_CASE("a violated property of your own replays in the admission engine, on its cells",
          "[cli][admission][user-properties]") {
  // Before, the end check knew only the protocol's own properties and said Diverged.
  const std::string dir = example_with(
      "cohort-shared-victim", "kmc.yaml",
      slurp(std::string(KMC_SOURCE_DIR) + "/examples/cohort-shared-victim/kmc.yaml") + R"(
properties:
  - name: nothing-admitted
    always: "all w: workload. phase[w] != Admitted"
)");
  const auto r = kmc("check " + dir + " --property nothing-admitted --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("Result: Violated (Reproduced in the engine)") != std::string::npos);
  CHECK(r.out.find("every cell the engine keeps equals the trace's last state") !=
        std::string::npos);
}

TEST_CASE("a Kueue restart loses the sticky head: today's Kueue livelocks if it restarts each turn",
          "[cli][admission][restart]") {
  // examples/preemption-livelock without its variant is today's Kueue, whose sticky head (#7157)
  // stops the livelock. The head lives in the queue manager's memory only: a restart
  // (environment.controllerRestarts) rebuilds the queues from the Workloads without it.
  const std::string base =
      slurp(std::string(KMC_SOURCE_DIR) + "/examples/preemption-livelock/kmc.yaml");
  const std::string today = base.substr(0, base.find("options:"));
  const std::string once = example_with("preemption-livelock", "kmc.yaml",
                                        today + "environment: {controllerRestarts: 1}\n");
  auto r = kmc("check " + once + " --property no-preemption-livelock");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  const std::string always = example_with("preemption-livelock", "kmc.yaml",
                                          today + "environment: {controllerRestarts: -1}\n");
  r = kmc("check " + always + " --property no-preemption-livelock --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "<ControllerRestart>"));
  CHECK(has(r.out, "Result: Violated (Reproduced in the engine)"));
}
