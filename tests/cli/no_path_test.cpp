// Violations with no step to show (issue 12, defect f): a property violated
// in an initial state gets that state as its trace and a token that replays
// it; a "sometimes" property no behaviour reaches says why in Kueue's words.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/run_kmc.hpp"

TEST_CASE("a violation in the initial state prints it as the trace, with a token that replays",
          "[cli][no-path]") {
  // The sweep is recorded Admitted with 24 GPUs on a ClusterQueue whose cohort has 16.
  std::string text =
      slurp(std::string(KMC_SOURCE_DIR) + "/examples/zombie-pod/cluster/workloads.yaml");
  text.replace(text.find("count: 2\n"), 9, "count: 3\n");
  text.replace(text.find("nvidia.com/gpu: \"16\""), 20, "nvidia.com/gpu: \"24\"");
  const std::string dir = example_with("zombie-pod", "cluster/workloads.yaml", text);
  const auto r = kmc("check " + dir + " --property no-over-admission --output json");
  REQUIRE(r.code == 1);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["property"] == "no-over-admission");
  CHECK(j["stats"]["depth"] == 0);
  REQUIRE(j["trace"].is_object());
  CHECK(j["trace"]["states"].size() == 1);
  const std::string token = j["replay"];
  REQUIRE(!token.empty());
  const auto replayed = kmc("check " + dir + " --replay " + token + " --replay-engine");
  CHECK(replayed.code == 1);
  CHECK(replayed.out.find("Replayed the token: the violation reproduces.") != std::string::npos);
  CHECK(replayed.out.find("Result: Violated (Reproduced in the engine)") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("some-job-runs never witnessed says why in Kueue's words, per worker", "[cli][no-path]") {
  // 16 GPUs per job; each worker's ClusterQueue has 8.
  std::string job =
      slurp(std::string(KMC_SOURCE_DIR) + "/examples/gpu-hunter/manager/llm-finetune-job.yaml");
  for (auto at = job.find("nvidia.com/gpu: \"8\""); at != std::string::npos;
       at = job.find("nvidia.com/gpu: \"8\""))
    job.replace(at, 19, "nvidia.com/gpu: \"16\"");
  const std::string dir = example_with("gpu-hunter", "manager/llm-finetune-job.yaml", job);
  const auto r = kmc("check " + dir);
  REQUIRE(r.code == 1);
  CHECK(r.out.find("Property some-job-runs is violated") != std::string::npos);
  CHECK(r.out.find("Why, in Kueue's words") != std::string::npos);
  CHECK(r.out.find("on us-central1: team-ml/llm-finetune stays Pending: couldn't assign flavors "
                   "to pod set main: insufficient quota for nvidia.com/gpu in flavor h100") !=
        std::string::npos);
  CHECK(r.out.find("on asia-southeast1: team-ml/llm-finetune stays Pending") != std::string::npos);
  CHECK(r.out.find("there is no trace or token to replay") != std::string::npos);
  const auto j = nlohmann::json::parse(kmc("check " + dir + " --output json").out);
  CHECK(j["shape"] == "unwitnessed");
  CHECK(j["why"].size() == 2);
  std::filesystem::remove_all(dir);
}
