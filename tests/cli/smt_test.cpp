// `kmc check --engine bmc|induction` as a user meets it: the SMT engines
// decide the always and sometimes properties, explicit search the graph
// properties, and the report says which decided what. Cross-checks against
// explicit search on the shipped examples and the corpus's safety entry.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_kmc.hpp"

namespace {

nlohmann::json check_json(const std::string& args, int expect_code) {
  const auto r = kmc("check " + args + " --output json");
  INFO(args << "\n" << r.err);
  REQUIRE(r.code == expect_code);
  return nlohmann::json::parse(r.out);
}

const nlohmann::json& property(const nlohmann::json& j, const std::string& name) {
  for (const auto& p : j["properties"])
    if (p["name"] == name) return p;
  FAIL("no property " << name);
  return j;
}

const char* kAlways =
    " --property no-job-on-two-workers --property cluster-queue-within-quota"
    " --property quota-counted-once";

}  // namespace

TEST_CASE("bmc finds the corpus's safety violation at explicit search's depth, and it replays",
          "[cli][smt]") {
  const std::string dir = "counterexamples/corpus/broken-keep-losers/scenario";
  const auto expl = check_json(dir + " --property quota-counted-once --no-shrink", 1);
  const auto bmc = check_json(dir + " --property quota-counted-once --no-shrink --engine bmc", 1);
  CHECK(bmc["verdict"] == "Violated");
  CHECK(bmc["property"] == "quota-counted-once");
  CHECK(bmc["shape"] == "reached");
  CHECK(bmc["trace"]["states"].size() == expl["trace"]["states"].size());
  const auto& p = property(bmc, "quota-counted-once");
  CHECK(p["engine"] == "bmc");
  CHECK(p["proof"]["method"] == "bmc");
  CHECK(p["proof"]["k"] == expl["trace"]["states"].size() - 1);
  // The token is an ordinary one: explicit replay confirms the solver's path.
  const auto replayed = kmc("check " + dir + " --replay " + bmc["replay"].get<std::string>());
  CHECK(replayed.code == 1);
  CHECK(replayed.out.find("the violation reproduces") != std::string::npos);
}

TEST_CASE("k-induction proves a property for every depth and says how", "[cli][smt]") {
  const auto j = check_json(
      "examples/gpu-hunter-fixed --engine induction --property cluster-queue-within-quota", 0);
  CHECK(j["verdict"] == "Verified");
  const auto& p = property(j, "cluster-queue-within-quota");
  CHECK(p["engine"] == "induction");
  CHECK(p["proof"] == nlohmann::json({{"method", "k-induction"}, {"k", 1}}));
  const auto text =
      kmc("check examples/gpu-hunter-fixed --engine induction --property "
          "cluster-queue-within-quota");
  CHECK(text.out.find("proven for every depth by k-induction, k = 1") != std::string::npos);
  CHECK(text.out.find("Stats: no states stored (an SMT engine decided every property)") !=
        std::string::npos);
}

TEST_CASE("an unproven property ends Incomplete with its counterexample to induction",
          "[cli][smt]") {
  const auto r =
      kmc("check examples/gpu-hunter-fixed --engine induction --max-depth 2 --property "
          "no-job-on-two-workers");
  CHECK(r.code == 2);
  CHECK(r.out.find("Counterexample to induction") != std::string::npos);
  CHECK(r.out.find("the step: JobStarted(") != std::string::npos);
  CHECK(r.out.find("Proven: every behaviour of up to 2 steps explored") != std::string::npos);
  const auto j = check_json(
      "examples/gpu-hunter-fixed --engine induction --max-depth 2 --property "
      "no-job-on-two-workers",
      2);
  CHECK(j["inductionCounterexample"].is_array());
  CHECK(j["exploredDepth"] == 2);
}

TEST_CASE("graph properties go to explicit search, and the report says so", "[cli][smt]") {
  const auto bmc = check_json("examples/gpu-hunter --engine bmc", 1);
  const auto expl = check_json("examples/gpu-hunter", 1);
  CHECK(bmc["property"] == expl["property"]);
  CHECK(bmc["replay"] == expl["replay"]);
  CHECK(property(bmc, "no-stuck-job")["engine"] == "explicit");
  CHECK(property(bmc, "some-job-runs")["engine"] == "bmc");
  REQUIRE(bmc["engines"].size() == 2);
  CHECK(bmc["engines"][1].get<std::string>().rfind("explicit search: no-stuck-job", 0) == 0);
}

TEST_CASE("every shipped MultiKueue example: bmc and explicit search agree within 5 steps",
          "[cli][smt]") {
  for (const char* example :
       {"gpu-hunter", "gpu-hunter-fixed", "gpu-hunter-retry", "gpu-hunter-spot-race",
        "gpu-hunter-three-workers", "three-workers"}) {
    INFO(example);
    const std::string args = std::string("examples/") + example + kAlways + " --max-depth 5";
    const auto expl = check_json(args, 2);
    const auto bmc = check_json(args + " --engine bmc", 2);
    CHECK(expl["exploredDepth"] == 5);
    CHECK(bmc["exploredDepth"] == 5);
    for (const auto& p : bmc["properties"]) CHECK(p["verdict"] == "Incomplete");
  }
}

TEST_CASE("a protocol without symbolic rules is checked explicitly, with a note", "[cli][smt]") {
  const auto bmc = check_json("examples/zombie-pod --engine bmc", 1);
  const auto expl = check_json("examples/zombie-pod", 1);
  CHECK(bmc["property"] == expl["property"]);
  REQUIRE(bmc["engines"].size() == 1);
  CHECK(bmc["engines"][0].get<std::string>().find("explicit values only") != std::string::npos);
}

TEST_CASE("an unknown engine is a usage error", "[cli][smt]") {
  const auto r = kmc("check examples/gpu-hunter --engine smt");
  CHECK(r.code == 3);
  CHECK(r.err.find("--engine") != std::string::npos);
}
