// docs/ci/kmc.yml, the GitHub Actions workflow users copy (issue 15, item 4),
// run here step by step: every `run:` step in order, as Actions runs it
// (bash -eo pipefail, GITHUB_ENV and GITHUB_STEP_SUMMARY files), on a scratch
// repository holding a scenario and its base version. `uses:` steps are
// Actions' own (checkout, upload) and the build-kmc step builds what this
// test already has (KMC is set to it), so those are left out.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "cli/run_kmc.hpp"

namespace {

namespace fs = std::filesystem;

struct WorkflowRun {
  int code = 0;         // of the first step that failed, else 0
  std::string failed;   // that step's name
  std::string summary;  // GITHUB_STEP_SUMMARY
  fs::path results;     // kmc-results/
};

// A repository whose fleets/prod is examples/<head>, and whose base checkout holds examples/<base>.
WorkflowRun run_workflow(const std::string& base, const std::string& head) {
  const fs::path repo = temp_path("workflow");
  const fs::path examples = fs::path(KMC_SOURCE_DIR) / "examples";
  fs::create_directories(repo / "fleets");
  fs::create_directories(repo / "base" / "fleets");
  fs::copy(examples / head, repo / "fleets" / "prod", fs::copy_options::recursive);
  fs::copy(examples / base, repo / "base" / "fleets" / "prod", fs::copy_options::recursive);
  const YAML::Node workflow = YAML::LoadFile(std::string(KMC_SOURCE_DIR) + "/docs/ci/kmc.yml");
  // Built with fmt, not `"literal" + std::string&&`: GCC 12 at -O3 (the Release build) warns
  // -Wrestrict, falsely, inside libstdc++'s operator+ (GCC bugs 105329, 105651).
  std::string env = fmt::format("KMC={} GITHUB_ENV={} GITHUB_STEP_SUMMARY={}", KMC_BINARY,
                                (repo / "env").string(), (repo / "summary").string());
  for (const auto& kv : workflow["env"])
    env += fmt::format(" {}={}", kv.first.as<std::string>(), kv.second.as<std::string>());
  WorkflowRun out;
  int n = 0;
  for (const auto& step : workflow["jobs"]["kmc"]["steps"]) {
    if (!step["run"] || (step["id"] && step["id"].as<std::string>() == "build-kmc")) continue;
    const fs::path script = repo / fmt::format("step{}.sh", n++);
    std::ofstream(script) << step["run"].as<std::string>();
    const std::string cmd = "cd " + repo.string() + " && env " + env +
                            " bash --noprofile --norc -eo pipefail " + script.string() +
                            " >/dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code != 0 && out.code == 0) {
      out.code = code;
      out.failed = step["name"].as<std::string>();
    }
  }
  out.summary = slurp((repo / "summary").string());
  out.results = repo / "kmc-results";
  return out;
}

}  // namespace

TEST_CASE("the CI workflow passes a pull request that fixes the fleet", "[cli][ci][workflow]") {
  const auto r = run_workflow("gpu-hunter", "gpu-hunter-fixed");
  CHECK(r.code == 0);
  CHECK(r.failed.empty());
  CHECK(r.summary.find("fleets/prod: Verified") != std::string::npos);
  CHECK(r.summary.find("no-stuck-job") != std::string::npos);
  CHECK(r.summary.find("fixed") != std::string::npos);
  CHECK(fs::exists(r.results / "fleets-prod.xml"));
  CHECK(fs::exists(r.results / "fleets-prod.sarif"));
  CHECK(slurp((r.results / "fleets-prod.xml").string()).find("failures=\"0\"") !=
        std::string::npos);
  fs::remove_all(r.results.parent_path());
}

TEST_CASE("the CI workflow fails a pull request that strands the job, and says what turned",
          "[cli][ci][workflow]") {
  const auto r = run_workflow("gpu-hunter-fixed", "gpu-hunter");
  CHECK(r.code == 1);
  CHECK(r.failed == "Check every scenario");
  CHECK(r.summary.find("fleets/prod: Violated") != std::string::npos);
  CHECK(r.summary.find("new violation") != std::string::npos);
  const std::string sarif = slurp((r.results / "fleets-prod.sarif").string());
  CHECK(sarif.find("\"uri\": \"fleets/prod/") != std::string::npos);
  fs::remove_all(r.results.parent_path());
}
