// CI formats (issue 15, item 4): JUnit XML and SARIF 2.1.0 from check, and
// `kmc admit --expect` as a CI check.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/run_kmc.hpp"

TEST_CASE(
    "check --output junit: one testcase per property, the violation a failure with its "
    "story",
    "[cli][ci]") {
  const auto r = kmc("check examples/gpu-hunter --output junit");
  REQUIRE(r.code == 1);  // the exit code does not depend on the format
  CHECK(r.out.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
  CHECK(count(r.out, "<testcase ") == 5);
  CHECK(count(r.out, "<failure ") == 1);
  CHECK(r.out.find("tests=\"5\" failures=\"1\" errors=\"0\"") != std::string::npos);
  CHECK(r.out.find("name=\"no-stuck-job\"") != std::string::npos);
  CHECK(r.out.find("ProvisioningAccepted(team-ml/llm-finetune, us-central1)") != std::string::npos);
  CHECK(r.out.find("Replay: kmc check examples/gpu-hunter --replay kmc1:") != std::string::npos);
  CHECK(r.out.find("at examples/gpu-hunter/manager/") != std::string::npos);
  const auto fixed = kmc("check examples/gpu-hunter-fixed --output junit");
  CHECK(fixed.code == 0);
  CHECK(count(fixed.out, "<failure ") == 0);
  CHECK(count(fixed.out, "<error ") == 0);
  // A bound is never a pass: the undecided properties are errors.
  const auto bounded = kmc("check examples/gpu-hunter-fixed --max-depth 2 --output junit");
  CHECK(bounded.code == 2);
  CHECK(count(bounded.out, "<error message=\"stopped by max-depth 2\"") >= 1);
}

TEST_CASE("check --output sarif: SARIF 2.1.0, the violation at the manifest's line", "[cli][ci]") {
  const auto r = kmc("check examples/gpu-hunter --output sarif");
  REQUIRE(r.code == 1);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["version"] == "2.1.0");
  const auto& run = j["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "kmc");
  REQUIRE(run["results"].size() == 1);
  const auto& result = run["results"][0];
  CHECK(result["ruleId"] == "no-stuck-job");
  CHECK(result["level"] == "error");
  CHECK(run["tool"]["driver"]["rules"][result["ruleIndex"].get<int>()]["id"] == "no-stuck-job");
  REQUIRE(!result["locations"].empty());
  // Every location is a real line of a real file, and the first is the stuck job's manifest.
  for (const auto& loc : result["locations"]) {
    const std::string uri = loc["physicalLocation"]["artifactLocation"]["uri"];
    const int line = loc["physicalLocation"]["region"]["startLine"];
    INFO(uri << ":" << line);
    CHECK(std::filesystem::exists(uri));
    CHECK(line > 0);
  }
  const auto& first = result["locations"][0]["physicalLocation"];
  const std::string text = slurp(first["artifactLocation"]["uri"]);
  std::size_t at = 0;
  for (int line = 1; line < first["region"]["startLine"].get<int>(); ++line)
    at = text.find('\n', at) + 1;
  // The object that starts there (up to the next document) is the stuck job.
  const std::string object = text.substr(at, text.find("\n---", at) - at);
  CHECK(object.find("name: llm-finetune") != std::string::npos);
  const auto fixed = kmc("check examples/gpu-hunter-fixed --output sarif");
  CHECK(fixed.code == 0);
  CHECK(nlohmann::json::parse(fixed.out)["runs"][0]["results"].empty());
}

TEST_CASE("admit --expect: exit 1 when a workload does not end as expected", "[cli][ci]") {
  const std::string fixture = "tests/engine/fixtures/gpu-cohort";
  const auto met =
      kmc("admit " + fixture + " --expect admitted=team-a/train-1,pending=team-a/train-2");
  CHECK(met.code == 0);
  CHECK(met.out.find("admitted team-a/train-1: met") != std::string::npos);
  const auto not_met = kmc("admit " + fixture + " --expect admitted=team-a/train-2");
  CHECK(not_met.code == 1);
  CHECK(not_met.out.find("admitted team-a/train-2: NOT MET, it is Pending (couldn't assign") !=
        std::string::npos);
  const auto json = kmc("admit " + fixture + " --output json --expect admitted=team-a/train-2");
  CHECK(json.code == 1);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["expectations"][0]["met"] == false);
  CHECK(j["expectations"][0]["actual"] == "Pending");
  // A typo is bad input, never a failed (or a met) expectation.
  const auto typo = kmc("admit " + fixture + " --expect admitted=team-a/train-9");
  CHECK(typo.code == 3);
  CHECK(typo.err.find("--expect: no workload team-a/train-9") != std::string::npos);
  CHECK(kmc("admit " + fixture + " --expect running=team-a/train-1").code == 3);
  CHECK(kmc("admit " + fixture + " --expect admitted=train-1").code == 3);
}

TEST_CASE("matrix --output junit: a testcase per cell, grouped by row", "[cli][ci]") {
  const auto r = kmc("matrix examples/gpu-hunter --property no-stuck-job --output junit");
  REQUIRE(r.code == 1);
  const auto md = kmc("matrix examples/gpu-hunter --property no-stuck-job --output json");
  const auto rows = nlohmann::json::parse(md.out)["rows"];
  std::size_t violated = 0;
  for (const auto& row : rows)
    violated += row["properties"]["no-stuck-job"]["verdict"] == "Violated";
  REQUIRE(violated > 0);
  CHECK(count(r.out, "<testcase ") == rows.size());
  CHECK(count(r.out, "<failure ") == violated);
  CHECK(r.out.find("classname=\"examples/gpu-hunter row 1: ") != std::string::npos);
  const auto sarif = nlohmann::json::parse(
      kmc("matrix examples/gpu-hunter --property no-stuck-job --output sarif").out);
  CHECK(sarif["runs"][0]["results"].size() == violated);
}

TEST_CASE("corpus check --output junit: a testcase per entry; a changed entry fails", "[cli][ci]") {
  const auto r = kmc("corpus check --output junit");
  REQUIRE(r.code == 0);
  CHECK(count(r.out, "<testcase ") >= 20);
  CHECK(count(r.out, "<failure ") == 0);
  // An entry whose recorded verdict is wrong is a failure located at its expect.yaml.
  namespace fs = std::filesystem;
  const fs::path corpus = temp_path("corpus");
  const fs::path entry = corpus / "gpu-hunter-deadlock";
  fs::create_directories(corpus);
  fs::copy(fs::path(KMC_SOURCE_DIR) / "counterexamples/corpus/gpu-hunter-deadlock", entry,
           fs::copy_options::recursive);
  std::string expect = slurp((entry / "expect.yaml").string());
  expect.replace(expect.find("replay: Reproduced"), 18, "replay: Diverged");
  std::ofstream(entry / "expect.yaml") << expect;
  const auto changed = kmc("corpus check " + corpus.string() + " --output sarif");
  CHECK(changed.code == 1);
  const auto j = nlohmann::json::parse(changed.out);
  REQUIRE(j["runs"][0]["results"].size() == 1);
  CHECK(j["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
        (entry / "expect.yaml").string());
  fs::remove_all(corpus);
}

TEST_CASE("--replay-engine: the engine's verdict is on the Result line and in the JSON",
          "[cli][ci]") {
  const auto reproduced = kmc("check examples/gpu-hunter --replay-engine");
  CHECK(reproduced.code == 1);
  CHECK(reproduced.out.find("Result: Violated (Reproduced in the engine)") != std::string::npos);
  // broken-keep-losers is a deliberately broken model: the engine does not double-count.
  const std::string broken = "counterexamples/corpus/broken-keep-losers/scenario";
  const auto diverged = kmc("check " + broken + " --property quota-counted-once --replay-engine");
  CHECK(diverged.code == 1);  // the model's verdict; the disagreement is on the Result line
  CHECK(diverged.out.find("Result: Violated (Diverged in the engine at step ") !=
        std::string::npos);
  const auto json =
      kmc("check " + broken + " --property quota-counted-once --replay-engine --output json");
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["verdict"] == "Violated");
  CHECK(j["engineVerdict"] == "Diverged");
  CHECK(j["engineReplay"]["verdict"] == "Diverged");
  CHECK(nlohmann::json::parse(kmc("check examples/gpu-hunter --output json").out)["engineVerdict"]
            .is_null());
}
