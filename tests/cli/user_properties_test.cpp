// kmc.yaml's own properties as a user meets them (issue 12): always,
// sometimes and leadsTo over the typed cells, checked by explicit search and
// by the SMT engines; a counterexample to induction turned into an invariant
// that makes the proof go through; and a bad expression is exit 3 at its
// line and column.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_kmc.hpp"

namespace {

const char* kProperties = R"(
properties:
  - name: copies-run-where-selected
    description: a copy runs only on the worker the manager selected
    always: "all j: job. all w: worker. remote[j, w] == Running => cluster[j] == w"
  - name: double-quota
    sometimes: "some j: job. (count w: worker. remote[j, w] in {QuotaReserved, Admitted, Running}) >= 2"
  - name: admitted-runs
    leadsTo: {from: "phase[j] == Admitted", to: "some w: worker. remote[j, w] == Running", each: "j: job"}
)";

std::string with_properties(const std::string& example, const std::string& properties) {
  return example_with(
      example, "kmc.yaml",
      slurp(std::string(KMC_SOURCE_DIR) + "/examples/" + example + "/kmc.yaml") + properties);
}

const nlohmann::json& property(const nlohmann::json& j, const std::string& name) {
  for (const auto& p : j["properties"])
    if (p["name"] == name) return p;
  FAIL("no property " << name);
  return j;
}

}  // namespace

TEST_CASE("user properties are checked beside the protocol's", "[cli][user-properties]") {
  const std::string dir = with_properties("gpu-hunter-fixed", kProperties);
  const auto r = kmc("check " + dir + " --output json");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(property(j, "copies-run-where-selected")["verdict"] == "Verified");
  CHECK(property(j, "copies-run-where-selected")["description"] ==
        "a copy runs only on the worker the manager selected");
  // AllAtOnce-free fleet, yet the eligible-until-admitted dispatcher lets two copies reserve.
  CHECK(property(j, "double-quota")["verdict"] == "Verified");
  // Liveness runs when named, as the protocol's own does.
  const auto live =
      nlohmann::json::parse(kmc("check " + dir + " --property admitted-runs --output json").out);
  CHECK(property(live, "admitted-runs")["verdict"] == "Verified");
  CHECK(property(live, "admitted-runs")["kind"] == "leads-to");
}

TEST_CASE("a user invariant found violated gets a trace and a token", "[cli][user-properties]") {
  const std::string dir = with_properties("gpu-hunter-fixed", R"(
properties:
  - name: never-two-reservations
    always: "all j: job. (count w: worker. remote[j, w] in {QuotaReserved, Admitted, Running}) <= 1"
)");
  const auto r = kmc("check " + dir + " --property never-two-reservations --output json");
  REQUIRE(r.code == 1);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["property"] == "never-two-reservations");
  const auto bmc = kmc("check " + dir +
                       " --property never-two-reservations --engine bmc --no-shrink --output json");
  REQUIRE(bmc.code == 1);
  const auto expl =
      kmc("check " + dir + " --property never-two-reservations --no-shrink --output json");
  CHECK(nlohmann::json::parse(bmc.out)["trace"]["states"].size() ==
        nlohmann::json::parse(expl.out)["trace"]["states"].size());
  const auto replayed = kmc("check " + dir + " --replay " + j["replay"].get<std::string>());
  CHECK(replayed.code == 1);
}

TEST_CASE("the invariant a counterexample to induction asks for makes k-induction prove it",
          "[cli][user-properties][smt]") {
  const std::string plain =
      "examples/gpu-hunter-fixed --engine induction --max-depth 4 --property no-job-on-two-workers";
  const auto alone = kmc("check " + plain);
  CHECK(alone.code == 2);
  CHECK(alone.out.find("Counterexample to induction") != std::string::npos);
  const std::string dir = with_properties("gpu-hunter-fixed", kProperties);
  const auto helped = kmc("check " + dir +
                          " --engine induction --max-depth 4 --property no-job-on-two-workers "
                          "--property copies-run-where-selected --output json");
  INFO(helped.out << helped.err);
  REQUIRE(helped.code == 0);
  const auto j = nlohmann::json::parse(helped.out);
  CHECK(property(j, "copies-run-where-selected")["proof"]["method"] == "k-induction");
  CHECK(property(j, "no-job-on-two-workers")["proof"]["method"] == "k-induction");
}

TEST_CASE("a bad user property is exit 3 at its line and column", "[cli][user-properties]") {
  const std::string dir = with_properties("gpu-hunter-fixed", R"(
properties:
  - name: typo
    always: "all j: job. phase[j] == Admited"
)");
  const auto r = kmc("check " + dir);
  CHECK(r.code == 3);
  const std::string yaml = dir + "/kmc.yaml";
  CHECK(r.err.find(yaml + ":") != std::string::npos);
  CHECK(r.err.find("properties.typo.always: column 38: phase is never 'Admited'") !=
        std::string::npos);
  const auto clash = kmc("check " + with_properties("gpu-hunter-fixed", R"(
properties:
  - name: no-stuck-job
    always: "1 == 1"
)"));
  CHECK(clash.code == 3);
  CHECK(clash.err.find("'no-stuck-job' is already a property of this protocol") !=
        std::string::npos);
  const auto two_kinds = kmc("check " + with_properties("gpu-hunter-fixed", R"(
properties:
  - name: both
    always: "1 == 1"
    sometimes: "1 == 1"
)"));
  CHECK(two_kinds.code == 3);
  CHECK(two_kinds.err.find("exactly one of") != std::string::npos);
}

TEST_CASE("kmc help properties lists the language and the cells to name",
          "[cli][user-properties]") {
  const auto r = kmc("help properties");
  CHECK(r.code == 0);
  CHECK(r.out.find("remote[job, worker]: None | Pending | QuotaReserved | Admitted | Running") !=
        std::string::npos);
  CHECK(r.out.find("leadsTo: {from:") != std::string::npos);
}

TEST_CASE("a violated property of your own replays in the engine, decided on the engine's cells",
          "[cli][user-properties][faults]") {
  // Also the engine's side of a job lost while running: Evicted, its quota kept while the
  // manager's Job mirrors the lost worker's as active.
  const std::string dir = with_properties("worker-partition", R"(
properties:
  - name: lost-jobs-release-their-quota
    always: "all j: job. phase[j] != Evicted"
  - name: manager-quota-free-while-pending
    always: "phase[team-ml/llm-finetune] != Pending || usage[manager/gpu-cq, h100, nvidia.com/gpu] == 0"
)");
  const auto r = kmc("check " + dir + " --property lost-jobs-release-their-quota --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("Result: Violated (Reproduced in the engine)") != std::string::npos);
  CHECK(r.out.find("every cell the engine keeps equals the trace's last state") !=
        std::string::npos);
  CHECK(r.out.find("WorkerLostTimeout(team-ml/llm-finetune, ") != std::string::npos);
  // An invariant that holds: nothing to replay, and the model agrees with itself.
  const auto holds = kmc("check " + dir + " --property manager-quota-free-while-pending");
  CHECK(holds.code == 0);
}
