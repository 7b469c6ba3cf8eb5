// Symmetry reduction as a user meets it: on by default where sound, named in
// the report (text and JSON), --no-symmetry to compare; and every shipped
// example gives the same verdicts with and without it.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_kmc.hpp"

namespace {

// examples/three-workers with its dry region given the idle ones' capacity
// (three identical workers) and two of its four jobs: small enough to finish
// both ways in well under a second.
std::string identical_workers() {
  const std::string dir =
      example_replacing("three-workers", "kmc.yaml", "capacity: {h100: {nvidia.com/gpu: 0}}",
                        "capacity: {h100: {nvidia.com/gpu: 8, cpu: 96, "
                        "memory: 768Gi}}");
  const std::string jobs = dir + "/manager/jobs.yaml";
  std::string text = slurp(jobs);
  const auto third = text.find("---", text.find("---") + 3);
  REQUIRE(third != std::string::npos);
  std::ofstream(jobs) << text.substr(0, third);
  return dir;
}

}  // namespace

TEST_CASE("kmc check reduces identical workers, says so, and --no-symmetry compares",
          "[cli][symmetry]") {
  const std::string dir = identical_workers();
  const auto reduced = kmc("check " + dir + " --output json");
  const auto full = kmc("check " + dir + " --output json --no-symmetry");
  REQUIRE(reduced.code == 0);
  REQUIRE(full.code == 0);
  const auto r = nlohmann::json::parse(reduced.out), f = nlohmann::json::parse(full.out);
  CHECK(r["verdict"] == "Verified");
  CHECK(f["verdict"] == "Verified");
  // Three identical workers: up to 3! states per orbit.
  CHECK(f["stats"]["states"] == 20312);
  CHECK(r["stats"]["states"] == 3861);
  CHECK(r["reductions"] ==
        nlohmann::json::array(
            {"no symmetry over jobs: Kueue's queue order (priority, then creation time) decides "
             "which of two pending jobs a ClusterQueue admits first",
             "symmetry over 3 interchangeable workers (us-central1, asia-southeast1, "
             "europe-west4)"}));
  CHECK(f["reductions"] == nlohmann::json::array());
  const auto text = kmc("check " + dir);
  CHECK(text.out.find("Reductions: no symmetry over jobs") != std::string::npos);
  CHECK(text.out.find("            symmetry over 3 interchangeable workers") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("kmc check: a stuck job found on the reduced graph is a trace of the real fleet",
          "[cli][symmetry]") {
  // The same fleet whose autoscalers accept and never answer: the job hangs.
  const std::string dir = identical_workers();
  {
    std::string yaml = slurp(dir + "/kmc.yaml");
    for (auto at = yaml.find("answer: Provisions"); at != std::string::npos;
         at = yaml.find("answer: Provisions"))
      yaml.replace(at, 18, "answer: AcceptsThenHangs");
    std::ofstream(dir + "/kmc.yaml") << yaml;
  }
  const auto reduced = kmc("check " + dir + " --output json --replay-engine");
  const auto full = kmc("check " + dir + " --output json --replay-engine --no-symmetry");
  REQUIRE(reduced.code == 1);
  REQUIRE(full.code == 1);
  const auto r = nlohmann::json::parse(reduced.out), f = nlohmann::json::parse(full.out);
  CHECK(r["property"] == "no-stuck-job");
  CHECK(f["property"] == "no-stuck-job");
  CHECK(r["stats"]["states"] < f["stats"]["states"]);
  CHECK(r["trace"]["states"].size() == f["trace"]["states"].size());
  // The token replays without the reduction, and the engine answers as for the unreduced trace.
  CHECK(r["engineVerdict"] == f["engineVerdict"]);
  const auto replayed = kmc("check " + dir + " --replay " + r["replay"].get<std::string>());
  CHECK(replayed.code == 1);
  CHECK(replayed.out.find("the violation reproduces") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("every example gives the same verdicts with and without symmetry", "[cli][symmetry]") {
  namespace fs = std::filesystem;
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(KMC_SOURCE_DIR) / "examples")) {
    if (!fs::exists(entry.path() / "kmc.yaml")) continue;
    const std::string dir = entry.path().string();
    INFO(dir);
    const auto with = kmc("check " + dir + " --output json --time-limit 10 --no-shrink");
    const auto without =
        kmc("check " + dir + " --output json --time-limit 10 --no-shrink --no-symmetry");
    const auto a = nlohmann::json::parse(with.out), b = nlohmann::json::parse(without.out);
    if (a["verdict"] == "Incomplete" || b["verdict"] == "Incomplete") continue;
    ++compared;
    CHECK(with.code == without.code);
    CHECK(a["verdict"] == b["verdict"]);
    CHECK(a["property"] == b["property"]);
    REQUIRE(a["properties"].size() == b["properties"].size());
    for (std::size_t i = 0; i < a["properties"].size(); ++i)
      CHECK(a["properties"][i]["verdict"] == b["properties"][i]["verdict"]);
  }
  CHECK(compared >= 10);
}

TEST_CASE("kmc check says when symmetry is refused, and how to get it for the always properties",
          "[cli][symmetry]") {
  // Few action instances: fairness is per instance, which a permutation of workers renames.
  const std::string dir = identical_workers();
  const auto r = kmc("check " + dir +
                     " --max-depth 3 --property eventually-runs --property quota-counted-once");
  REQUIRE(r.code == 2);
  CHECK(r.out.find("symmetry not used: fairness is per action instance") != std::string::npos);
  CHECK(r.out.find("where symmetry reduction applies: kmc check " + dir +
                   " --property quota-counted-once") != std::string::npos);
  const auto alone = nlohmann::json::parse(
      kmc("check " + dir + " --property quota-counted-once --output json").out);
  CHECK(alone["verdict"] == "Verified");
  CHECK(alone["stats"]["states"] == 3861);
  std::filesystem::remove_all(dir);
}

TEST_CASE("fairness per family (kmc.yaml fairness: {per: family}) lets symmetry reduce liveness",
          "[cli][symmetry][fairness]") {
  const std::string dir = identical_workers();
  std::ofstream(dir + "/kmc.yaml", std::ios::app) << "fairness: {per: family}\n";
  const auto reduced = kmc("check " + dir + " --property eventually-runs --output json");
  const auto full = kmc("check " + dir + " --property eventually-runs --output json --no-symmetry");
  REQUIRE(reduced.code == full.code);
  const auto r = nlohmann::json::parse(reduced.out), f = nlohmann::json::parse(full.out);
  CHECK(r["verdict"] == f["verdict"]);
  CHECK(r["fairness"].back() == "(per action family)");
  CHECK(r["reductions"].back() ==
        "symmetry over 3 interchangeable workers (us-central1, asia-southeast1, europe-west4)");
  CHECK(r["stats"]["states"] < f["stats"]["states"]);
  for (std::size_t i = 0; i < f["properties"].size(); ++i)
    CHECK(r["properties"][i]["verdict"] == f["properties"][i]["verdict"]);
  std::filesystem::remove_all(dir);
}

TEST_CASE("fairness.per: a bad value, and per instance past 64 instances, are exit 3 at the line",
          "[cli][fairness]") {
  const std::string bad =
      example_with("three-workers", "kmc.yaml",
                   slurp(std::string(KMC_SOURCE_DIR) + "/examples/three-workers/kmc.yaml") +
                       "fairness: {per: everything}\n");
  const auto r = kmc("check " + bad + " --property eventually-runs");
  CHECK(r.code == 3);
  CHECK(r.err.find("fairness.per") != std::string::npos);
  CHECK(r.err.find("everything") != std::string::npos);
  std::filesystem::remove_all(bad);
  const std::string many =
      example_with("three-workers", "kmc.yaml",
                   slurp(std::string(KMC_SOURCE_DIR) + "/examples/three-workers/kmc.yaml") +
                       "fairness: {per: instance}\n");
  const auto m = kmc("check " + many + " --property eventually-runs --max-depth 2");
  CHECK(m.code == 3);
  CHECK(names_line(m.err, many + "/kmc.yaml", "fairness.per"));
  CHECK(m.err.find("at most 64 instances") != std::string::npos);
  std::filesystem::remove_all(many);
}
