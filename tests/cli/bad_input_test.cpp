// Every kind of mistake is exit 3 and names the place; none crashes or passes.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "cli/run_kmc.hpp"

namespace fs = std::filesystem;

namespace {

// A copy of examples/gpu-hunter with one file replaced, in a temp folder.
std::string scenario_with(const std::string& rel, const std::string& text) {
  return example_with("gpu-hunter", rel, text);
}

std::string replace_in(const std::string& rel, const std::string& from, const std::string& to) {
  return example_replacing("gpu-hunter", rel, from, to);
}

}  // namespace

TEST_CASE("usage mistakes are exit 3", "[cli][bad-input]") {
  CHECK(kmc("check").code == 3);
  CHECK(kmc("check examples/gpu-hunter --max-depth many").code == 3);
  CHECK(kmc("frobnicate").code == 3);
  auto out = kmc("check examples/gpu-hunter --output yaml");
  CHECK(out.code == 3);
  CHECK(out.err.find("--output: must be text or json") != std::string::npos);
  auto prop = kmc("check examples/gpu-hunter --property no-such-thing");
  CHECK(prop.code == 3);
  CHECK(prop.err.find("unknown property 'no-such-thing'") != std::string::npos);
  auto token = kmc("check examples/gpu-hunter --replay kmc1:zz");
  CHECK(token.code == 3);
  auto steps =
      kmc("check examples/gpu-hunter --replay kmc1:f550bc54:no-stuck-job:0:0:0.0.0.0.0.0.0.9");
  CHECK(steps.code == 3);
}

TEST_CASE("a missing scenario folder is exit 3 naming it", "[cli][bad-input]") {
  auto r = kmc("check /nonexistent/scenario");
  CHECK(r.code == 3);
  CHECK(r.err.find("/nonexistent/scenario") != std::string::npos);
}

TEST_CASE("a wrong value in kmc.yaml names file, line and field", "[cli][bad-input]") {
  auto dir = replace_in("kmc.yaml", "answer: Provisions", "answer: Hang");
  auto r = kmc("check " + dir);
  CHECK(r.code == 3);
  CHECK(r.err.find("kmc.yaml:") != std::string::npos);
  CHECK(r.err.find("autoscaler.answer: unknown value 'Hang'") != std::string::npos);
}

TEST_CASE("an unknown field in a Kueue manifest names file, line and field", "[cli][bad-input]") {
  auto dir = replace_in("manager/queues.yaml", "queueingStrategy:", "queuingStrategy:");
  auto r = kmc("check " + dir);
  CHECK(r.code == 3);
  CHECK(r.err.find("manager/queues.yaml:") != std::string::npos);
  CHECK(r.err.find("spec.queuingStrategy: unknown field") != std::string::npos);
}

TEST_CASE("a bad quantity names the value", "[cli][bad-input]") {
  auto dir = replace_in("manager/queues.yaml", "nominalQuota: \"16\"", "nominalQuota: \"16 GPUs\"");
  auto r = kmc("check " + dir);
  CHECK(r.code == 3);
  CHECK(r.err.find("16 GPUs") != std::string::npos);
  CHECK(r.err.find("nominalQuota") != std::string::npos);
}

TEST_CASE("broken YAML names the line", "[cli][bad-input]") {
  auto dir =
      scenario_with("manager/broken.yaml", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: [unclosed\n");
  auto r = kmc("check " + dir);
  CHECK(r.code == 3);
  CHECK(r.err.find("manager/broken.yaml:") != std::string::npos);
}

TEST_CASE("an unknown variant lists the known ones", "[cli][bad-input]") {
  auto dir = replace_in("kmc.yaml", "options: {provisioningTimeout: false}",
                        "options: {provisioningTimeout: false, variant: pre-1234}");
  auto r = kmc("check " + dir);
  CHECK(r.code == 3);
  CHECK(r.err.find("pre-8592-select-on-quota-reserved") != std::string::npos);
}

TEST_CASE("a bound that makes no sense is exit 3, never a fallback to kmc.yaml",
          "[cli][bad-input]") {
  for (const char* bad : {"--max-states -5", "--max-depth -9", "--time-limit -1",
                          "--time-limit nan", "--threads -1"}) {
    INFO(bad);
    auto r = kmc(std::string("check examples/gpu-hunter ") + bad);
    CHECK(r.code == 3);
    CHECK(r.err.find(std::string(bad).substr(0, std::string(bad).find(' '))) != std::string::npos);
  }
  CHECK(kmc("matrix examples/gpu-hunter --time-limit -1").code == 3);
}

TEST_CASE("kmc.yaml names its protocol; an unknown one names file and line",
          "[cli][bad-input][protocol]") {
  auto dir = replace_in("kmc.yaml", "kind: Fleet\n", "kind: Fleet\nprotocol: kueue-admision\n");
  auto r = kmc("check " + dir);
  CHECK(r.code == 3);
  CHECK(r.err.find(
            "kmc.yaml:4: protocol: unknown protocol 'kueue-admision'; expected one of multikueue, "
            "kueue-admission") != std::string::npos);
  auto named = replace_in("kmc.yaml", "kind: Fleet\n", "kind: Fleet\nprotocol: multikueue\n");
  CHECK(kmc("check " + named).code == 1);  // the default, named: the same GPU Hunter deadlock
}

TEST_CASE("a budget of another protocol's faults is exit 3, never silently ignored",
          "[cli][bad-input]") {
  // A MultiKueue fleet has no PodsReady timeouts in its model: reading the
  // budget and dropping it would report the fleet checked against them.
  auto r = kmc("check " + replace_in("kmc.yaml", "environment: {snapshotRefreshes: -1}",
                                     "environment: {snapshotRefreshes: -1, podsReadyTimeouts: 2}"));
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(has(r.err, "kmc.yaml:"));
  CHECK(has(r.err, "environment.podsReadyTimeouts"));
  CHECK(has(r.err, "a budget of protocol kueue-admission"));
  // And the other way round: one cluster's Kueue has no MultiKueue workers to disconnect.
  r = kmc("check " + example_replacing("zombie-pod", "kmc.yaml",
                                       "environment: {stuckTerminating: 1}",
                                       "environment: {stuckTerminating: 1, workerDisconnects: 1}"));
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(has(r.err, "environment.workerDisconnects"));
  CHECK(has(r.err, "a budget of protocol multikueue"));
}

TEST_CASE("a stopped queue in a MultiKueue fleet is exit 3, not admitted through",
          "[cli][bad-input]") {
  // The dump prints stopPolicy None (a running queue); Hold would admit nothing.
  auto dir = replace_in("manager/queues.yaml", "  stopPolicy: None", "  stopPolicy: Hold");
  auto r = kmc("check " + dir);
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(r.err.find("manager/queues.yaml:") != std::string::npos);
  CHECK(r.err.find("spec.stopPolicy: the MultiKueue protocol does not model stopped queues") !=
        std::string::npos);
}
