// The job limit comes from a real constraint (per-job properties keep a bit
// per job, eventually-runs two, in a 64-bit word per state), is documented,
// and says what to do; what fits under it runs.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_kmc.hpp"

namespace {

// examples/three-workers with `n` copies of its first Job, each its own name and uid.
std::string fleet_of(int n) {
  const std::string dir =
      example_with("three-workers", "kmc.yaml",
                   slurp(std::string(KMC_SOURCE_DIR) + "/examples/three-workers/kmc.yaml"));
  const std::string text = slurp(dir + "/manager/jobs.yaml");
  const std::string job = text.substr(0, text.find("---"));
  const std::string uid = "3e7f094e-086f-458e-a656-d0c10d12464b";
  std::string out;
  for (int i = 0; i < n; ++i) {
    std::string copy = job;
    const std::string name = "job-" + std::to_string(i);
    for (auto at = copy.find("llm-sweep-a"); at != std::string::npos; at = copy.find("llm-sweep-a"))
      copy.replace(at, 11, name);
    // fmt, not snprintf into a small buffer: GCC's Debug build warns the int may not fit.
    const std::string mine = uid.substr(0, uid.size() - 4) + fmt::format("{:04d}", i);
    for (auto at = copy.find(uid); at != std::string::npos; at = copy.find(uid))
      copy.replace(at, uid.size(), mine);
    out += copy + (i + 1 < n ? "---\n" : "");
  }
  std::ofstream(dir + "/manager/jobs.yaml") << out;
  return dir;
}

}  // namespace

TEST_CASE("kmc check takes 32 jobs, refuses the 33rd at its line and says what to do",
          "[cli][limits]") {
  const std::string ok = fleet_of(32);
  const auto r = kmc("check " + ok + " --time-limit 1 --output json");
  CHECK(r.code == 2);  // Incomplete after a second: it ran
  CHECK(nlohmann::json::parse(r.out)["verdict"] == "Incomplete");
  std::filesystem::remove_all(ok);

  const std::string over = fleet_of(33);
  const auto refused = kmc("check " + over);
  CHECK(refused.code == 3);
  CHECK(names_line(refused.err, over + "/manager/jobs.yaml", "metadata"));
  CHECK(refused.err.find("at most 32 jobs") != std::string::npos);
  CHECK(refused.err.find("split the fleet") != std::string::npos);
  std::filesystem::remove_all(over);
}

TEST_CASE("properties that follow more jobs than a state's bits hold are a usage error, exit 3",
          "[cli][limits]") {
  // 22 jobs: eventually-runs (2 bits each) and no-endless-retry (1 each) need 66.
  const std::string dir = fleet_of(22);
  const auto both = kmc("check " + dir +
                        " --property eventually-runs --property no-endless-retry --time-limit 1");
  CHECK(both.code == 3);
  CHECK(both.err.find("--property: the liveness properties checked follow 66 bits") !=
        std::string::npos);
  CHECK(both.err.find("one at a time") != std::string::npos);
  const auto one = kmc("check " + dir + " --property eventually-runs --time-limit 1");
  CHECK(one.code == 2);
  std::filesystem::remove_all(dir);
}
