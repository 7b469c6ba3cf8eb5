// kmc synth as a user meets it: the GPU Hunter fleet with us-central1's H100
// capacity as a parameter. no-stuck-job holds exactly for 8 GPUs and more
// (one 8-GPU node), and explicit checks at the boundary, with the numbers
// written in, agree.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_kmc.hpp"

namespace {

const char* kExhausted = "capacity: {h100: {nvidia.com/gpu: 0}}";

std::string with_capacity(const std::string& value) {
  return example_replacing("gpu-hunter", "kmc.yaml", kExhausted,
                           "capacity: {h100: {nvidia.com/gpu: " + value + "}}");
}

}  // namespace

TEST_CASE("synth finds the capacity region where the job cannot strand", "[cli][synth]") {
  const std::string dir = with_capacity("{param: gpu_a, range: [0, 16]}");
  const auto r = kmc("synth " + dir + " --property no-stuck-job --output json");
  INFO(r.err);
  CHECK(r.code == 1);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["points"] == 17);
  CHECK(j["parameters"]["gpu_a"]["range"] == nlohmann::json::array({0, 16}));
  const auto& p = j["properties"]["no-stuck-job"];
  REQUIRE(p["holds"].size() == 1);
  CHECK(p["holds"][0]["gpu_a"] == nlohmann::json::array({8, 16}));
  REQUIRE(p["fails"].size() == 1);
  CHECK(p["fails"][0]["gpu_a"] == nlohmann::json::array({0, 7}));
  CHECK(p["fails"][0]["decidedBy"] == nlohmann::json::array({"explicit"}));
  const std::string token = p["fails"][0]["witness"]["replay"];
  // The boundary, checked by explicit runs with the numbers written in.
  CHECK(kmc("check " + with_capacity("7") + " --property no-stuck-job").code == 1);
  CHECK(kmc("check " + with_capacity("8") + " --property no-stuck-job").code == 0);
  // The witness replays against the scenario at its point.
  CHECK(kmc("check " + with_capacity("0") + " --replay " + token).code == 1);
}

TEST_CASE("parameters are for synth; check and synth refuse what does not fit", "[cli][synth]") {
  const std::string dir = with_capacity("{param: gpu_a, range: [0, 16]}");
  const auto check = kmc("check " + dir);
  CHECK(check.code == 3);
  CHECK(check.err.find("is for kmc synth") != std::string::npos);
  const auto none = kmc("synth examples/gpu-hunter");
  CHECK(none.code == 3);
  CHECK(none.err.find("no parameters") != std::string::npos);
  const auto big = kmc("synth " + dir + " --max-points 10");
  CHECK(big.code == 3);
  CHECK(big.err.find("17 points, more than 10") != std::string::npos);
  const auto bad = kmc("synth " + with_capacity("{param: gpu_a, range: [9, 3]}"));
  CHECK(bad.code == 3);
  CHECK(bad.err.find("HI 3 is below LO 9") != std::string::npos);
}
