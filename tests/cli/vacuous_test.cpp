// A liveness property whose premise never holds (issue 12, defect c): no
// worker can ever run the job, so eventually-runs and no-endless-retry say
// nothing. Each is Vacuous, with the sentence why, in every format, and
// fails no run: the other properties decide the exit code.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/run_kmc.hpp"

namespace {

const char* const kWhy = "the premise never holds, so the property says nothing";

// gpu-hunter with a job of 16 GPUs a pod: each worker's ClusterQueue has 8, so no worker could
// ever run it, and the job is never "waiting while runnable" (the premise of both properties).
std::string no_worker_can_run() {
  std::string job =
      slurp(std::string(KMC_SOURCE_DIR) + "/examples/gpu-hunter/manager/llm-finetune-job.yaml");
  for (auto at = job.find("nvidia.com/gpu: \"8\""); at != std::string::npos;
       at = job.find("nvidia.com/gpu: \"8\""))
    job.replace(at, 19, "nvidia.com/gpu: \"16\"");
  return example_with("gpu-hunter", "manager/llm-finetune-job.yaml", job);
}

const nlohmann::json* property(const nlohmann::json& report, const std::string& name) {
  for (const auto& p : report["properties"])
    if (p["name"] == name) return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("a liveness premise that never holds is Vacuous and the run exits 0", "[cli][vacuous]") {
  const std::string dir = no_worker_can_run();
  const auto text = kmc("check " + dir + " --property eventually-runs");
  CHECK(text.code == 0);
  CHECK(text.out.find(std::string("eventually-runs  Vacuous     (leads-to): ") + kWhy) !=
        std::string::npos);
  CHECK(text.out.find("Result: Verified") != std::string::npos);
  CHECK(text.out.find("is violated") == std::string::npos);

  const auto json = kmc("check " + dir + " --property no-endless-retry --output json");
  CHECK(json.code == 0);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["verdict"] == "Verified");
  CHECK(j["property"].is_null());
  const auto* p = property(j, "no-endless-retry");
  REQUIRE(p != nullptr);
  CHECK((*p)["verdict"] == "Vacuous");
  CHECK((*p)["why"] == kWhy);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a vacuous property beside a violated one: the violated one decides, exit 1",
          "[cli][vacuous]") {
  const std::string dir = no_worker_can_run();
  const auto r =
      kmc("check " + dir + " --property eventually-runs --property some-job-runs --output json");
  CHECK(r.code == 1);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["verdict"] == "Violated");
  CHECK(j["property"] == "some-job-runs");
  const auto* p = property(j, "eventually-runs");
  REQUIRE(p != nullptr);
  CHECK((*p)["verdict"] == "Vacuous");
  std::filesystem::remove_all(dir);
}

TEST_CASE("in CI a vacuous property is a skipped testcase and a SARIF result that does not apply",
          "[cli][vacuous][ci]") {
  const std::string dir = no_worker_can_run();
  const auto junit = kmc("check " + dir + " --property eventually-runs --output junit");
  CHECK(junit.code == 0);
  CHECK(junit.out.find("failures=\"0\" errors=\"0\" skipped=\"1\"") != std::string::npos);
  CHECK(junit.out.find(std::string("<skipped message=\"") + kWhy + "\"/>") != std::string::npos);
  const auto sarif = kmc("check " + dir + " --property eventually-runs --output sarif");
  CHECK(sarif.code == 0);
  const auto s = nlohmann::json::parse(sarif.out);
  const auto& results = s["runs"][0]["results"];
  REQUIRE(results.size() == 1);
  CHECK(results[0]["ruleId"] == "eventually-runs");
  CHECK(results[0]["kind"] == "notApplicable");
  CHECK(results[0]["level"] == "none");
  std::filesystem::remove_all(dir);
}

TEST_CASE("kmc diff: a property whose premise vanishes is not fixed but now vacuous",
          "[cli][vacuous][diff]") {
  const std::string dir = no_worker_can_run();
  const auto r =
      kmc("diff examples/gpu-hunter " + dir + " --property eventually-runs --output json");
  CHECK(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto* p = property(j, "eventually-runs");
  REQUIRE(p != nullptr);
  CHECK((*p)["old"] == "Violated");
  CHECK((*p)["new"] == "Vacuous");
  CHECK((*p)["change"] == "now vacuous");
  std::filesystem::remove_all(dir);
}

TEST_CASE("kmc matrix: a cell whose premise never holds reads Vacuous and fails nothing",
          "[cli][vacuous][matrix]") {
  const std::string dir = no_worker_can_run();  // gpu-hunter's matrix: 32 combinations
  const auto json = kmc("matrix " + dir + " --property eventually-runs --output json");
  CHECK(json.code == 0);
  const auto rows = nlohmann::json::parse(json.out)["rows"];
  REQUIRE(rows.size() == 32);
  for (const auto& row : rows) CHECK(row["properties"]["eventually-runs"]["verdict"] == "Vacuous");
  const auto markdown = kmc("matrix " + dir + " --property eventually-runs");
  CHECK(markdown.code == 0);
  CHECK(markdown.out.find("| Vacuous |") != std::string::npos);
  CHECK(markdown.out.find("Violated") == std::string::npos);
  std::filesystem::remove_all(dir);
}
