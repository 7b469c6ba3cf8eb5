#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli/run_kmc.hpp"

namespace {

// Timing figures change run to run; everything else is approved text.
std::string normalize(const std::string& text) {
  return std::regex_replace(
      text, std::regex(R"((Stats: [0-9]+ states, [0-9]+ transitions, depth [0-9]+;).*)"),
      "$1 <timing>");
}

void approve(const std::string& name, const std::string& text) {
  const std::string approved =
      std::string(KMC_SOURCE_DIR) + "/tests/approval/" + name + ".approved.txt";
  const std::string got = normalize(text);
  const std::string want = slurp(approved);
  if (got != want) {
    std::ofstream(std::string(KMC_SOURCE_DIR) + "/tests/approval/" + name + ".received.txt") << got;
    FAIL("output differs from " << approved
                                << "; see the .received.txt beside it and approve it on purpose");
  }
}

}  // namespace

TEST_CASE("kmc check examples/gpu-hunter reports the stuck job with the talk's trace",
          "[cli][approval]") {
  auto r = kmc("check examples/gpu-hunter");
  CHECK(r.code == 1);
  approve("check-gpu-hunter", r.out);
}

TEST_CASE("kmc check examples/gpu-hunter-fixed verifies", "[cli][approval]") {
  auto r = kmc("check examples/gpu-hunter-fixed");
  CHECK(r.code == 0);
  approve("check-gpu-hunter-fixed", r.out);
}

TEST_CASE("the JSON result carries verdict, property, ITF trace and stats", "[cli][json]") {
  auto r = kmc("check examples/gpu-hunter --output json");
  REQUIRE(r.code == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["verdict"] == "Violated");
  CHECK(j["property"] == "no-stuck-job");
  CHECK(j["shape"] == "stuck");
  CHECK(j["stats"]["states"] == 25);
  CHECK(j["stats"]["bytesPerState"].get<double>() > 0);
  const auto& states = j["trace"]["states"];
  REQUIRE(states.size() == 6);
  CHECK(states[2]["mbt::actionTaken"] == "NominateWorker");
  CHECK(states[2]["mbt::nondetPicks"]["cluster"] == "us-central1");
  CHECK(states[5]["mbt::actionTaken"] == "ProvisioningAccepted");
  CHECK(j["trace"]["#meta"]["format"] == "ITF");
  CHECK(j["replay"].get<std::string>().rfind("kmc1:", 0) == 0);
}

TEST_CASE("--trace-out writes the ITF trace and the replay token re-runs it", "[cli][replay]") {
  const std::string path = temp_path("trace.itf.json");
  auto r = kmc("check examples/gpu-hunter --trace-out " + path);
  REQUIRE(r.code == 1);
  auto itf = nlohmann::json::parse(slurp(path));
  CHECK(itf["vars"][0] == "mbt::actionTaken");
  const std::string token = itf["#meta"]["replay"];
  auto again = kmc("check examples/gpu-hunter --replay " + token);
  CHECK(again.code == 1);
  CHECK(again.out.find("the violation reproduces") != std::string::npos);
  CHECK(again.out.find("State 5: <ProvisioningAccepted(team-ml/llm-finetune, us-central1)>") !=
        std::string::npos);
  // The same path in the fixed fleet is refused: it is another scenario.
  auto other = kmc("check examples/gpu-hunter-fixed --replay " + token);
  CHECK(other.code == 3);
  CHECK(other.err.find("another scenario") != std::string::npos);
}

TEST_CASE("a bound ends in Incomplete and exit 2, never Verified", "[cli]") {
  auto r = kmc("check examples/gpu-hunter-fixed --max-depth 3");
  CHECK(r.code == 2);
  CHECK(r.out.find("Result: Incomplete (stopped by max-depth 3; every state within 3 steps "
                   "checked, nothing is proven beyond)") != std::string::npos);
  auto s = kmc("check examples/gpu-hunter-fixed --max-states 10 --output json");
  CHECK(s.code == 2);
  CHECK(nlohmann::json::parse(s.out)["incomplete"] == "max-states 10");
}

TEST_CASE("the result does not depend on --threads", "[cli]") {
  auto one = kmc("check examples/gpu-hunter-fixed --threads 1 --output json");
  auto two = kmc("check examples/gpu-hunter-fixed --threads 2 --output json");
  auto a = nlohmann::json::parse(one.out), b = nlohmann::json::parse(two.out);
  CHECK(a["verdict"] == b["verdict"]);
  CHECK(a["stats"]["states"] == b["stats"]["states"]);
  CHECK(a["stats"]["transitions"] == b["stats"]["transitions"]);
}

TEST_CASE("--property narrows the check", "[cli]") {
  auto r =
      kmc("check examples/gpu-hunter --property no-job-on-two-workers --property some-job-runs");
  CHECK(r.code == 0);
  CHECK(r.out.find("no-stuck-job") == std::string::npos);
}

TEST_CASE("--no-shrink prints the checker's own trace and no shrinking paragraph",
          "[cli][shrink]") {
  auto shrunk = kmc("check examples/gpu-hunter");
  auto raw = kmc("check examples/gpu-hunter --no-shrink");
  CHECK(raw.code == 1);
  CHECK(shrunk.out.find("Shrinking kept all 5 steps") != std::string::npos);
  CHECK(raw.out.find("Shrinking kept") == std::string::npos);
  CHECK(raw.out.find("State 5: <ProvisioningAccepted(team-ml/llm-finetune, us-central1)>") !=
        std::string::npos);
  auto j = nlohmann::json::parse(kmc("check examples/gpu-hunter --output json").out);
  CHECK(j["shrink"]["stepsBefore"] == 5);
  CHECK(j["shrink"]["stepsAfter"] == 5);
  CHECK(j["shrink"]["scenario"].is_null());
  CHECK(nlohmann::json::parse(
            kmc("check examples/gpu-hunter --no-shrink --output json").out)["shrink"]
            .is_null());
  CHECK(kmc("check examples/gpu-hunter --no-shrink --shrink-scenario /tmp/x").code !=
        0);  // they contradict
}

TEST_CASE(
    "--shrink-scenario leaves out the worker the deadlock does not need, and the token replays "
    "there",
    "[cli][shrink]") {
  const std::string dir = "/tmp/kmc-cli-shrunk-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  auto r =
      kmc("check examples/gpu-hunter-three-workers --shrink-scenario " + dir + " --output json");
  REQUIRE(r.code == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["shrink"]["droppedWorkers"] == nlohmann::json::array({"europe-west4"}));
  CHECK(j["shrink"]["scenario"] == dir);
  CHECK(j["trace"]["#meta"]["source"] == dir);
  CHECK(std::filesystem::exists(dir + "/kmc.yaml"));
  CHECK_FALSE(std::filesystem::exists(dir + "/workers/europe-west4"));
  auto again = kmc("check " + dir + " --replay " + j["replay"].get<std::string>());
  CHECK(again.code == 1);
  CHECK(again.out.find("the violation reproduces") != std::string::npos);
  // The original folder refuses the token: it is another scenario.
  CHECK(kmc("check examples/gpu-hunter-three-workers --replay " + j["replay"].get<std::string>())
            .code == 3);
  // The folder is never written over.
  CHECK(kmc("check examples/gpu-hunter-three-workers --shrink-scenario " + dir).code == 3);
  std::filesystem::remove_all(dir);
}
