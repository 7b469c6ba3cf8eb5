// `kmc diff OLD NEW` (issue 15, item 7): which verdicts a change turns.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/run_kmc.hpp"

TEST_CASE("diff: the talk's fixes turn no-stuck-job from Violated to Verified", "[cli][diff]") {
  const auto r = kmc("diff examples/gpu-hunter examples/gpu-hunter-fixed --output json");
  REQUIRE(r.code == 0);  // nothing newly violated
  const auto j = nlohmann::json::parse(r.out);
  bool fixed = false;
  for (const auto& p : j["properties"]) {
    INFO(p.dump());
    if (p["name"] == "no-stuck-job") {
      CHECK(p["old"] == "Violated");
      CHECK(p["new"] == "Verified");
      CHECK(p["change"] == "fixed");
      fixed = true;
    } else {
      CHECK(p["change"] != "new violation");
    }
  }
  CHECK(fixed);
}

TEST_CASE("diff: a change that strands the job is a new violation, with its trace", "[cli][diff]") {
  const auto r = kmc("diff examples/gpu-hunter-fixed examples/gpu-hunter");
  REQUIRE(r.code == 1);
  CHECK(r.out.find("no-stuck-job") != std::string::npos);
  CHECK(r.out.find("new violation") != std::string::npos);
  CHECK(r.out.find("New violation of no-stuck-job") != std::string::npos);
  CHECK(r.out.find("ProvisioningAccepted(team-ml/llm-finetune, us-central1)") != std::string::npos);
  CHECK(r.out.find("Replay: kmc check examples/gpu-hunter --replay kmc1:") != std::string::npos);
  CHECK(r.out.find("Result: 1 new violation, 0 fixed") != std::string::npos);
}

TEST_CASE("diff: a property the first violation left unexamined gets its own verdict",
          "[cli][diff]") {
  // kmc check examples/preemption-grace-hol stops at the head-of-line violation and leaves
  // no-over-admission, usage-counted-once and guarantee-not-stuck Incomplete; diff checks each.
  const auto before = kmc("check examples/preemption-grace-hol --output json");
  REQUIRE(before.code == 1);
  int unexamined = 0;
  const auto checked = nlohmann::json::parse(before.out);  // kept alive for the loop
  for (const auto& p : checked["properties"]) unexamined += p["verdict"] == "Incomplete";
  REQUIRE(unexamined > 0);
  const auto r =
      kmc("diff examples/preemption-grace-hol examples/preemption-grace-hol-fixed --output json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& p : j["properties"]) {
    INFO(p.dump());
    CHECK(p["old"] != "Incomplete");
    CHECK(p["new"] == "Verified");
    CHECK(p["change"] == (p["name"] == "no-head-of-line-blocking" ? "fixed" : "unchanged"));
  }
}

TEST_CASE("diff: bad input is exit 3", "[cli][diff]") {
  CHECK(kmc("diff examples/gpu-hunter examples/no-such").code == 3);
  CHECK(kmc("diff examples/gpu-hunter").code == 3);
}
