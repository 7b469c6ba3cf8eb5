// `kmc admit`'s pipeline without the CLI: manifests loaded by the model's
// loader, run in the engine, reported in the JSON contract of issue 3.
#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "engine/report.hpp"
#include "model/diagnostics.hpp"
#include "model/scenario.hpp"

using namespace kmc::engine;

TEST_CASE("admit: JSON contract on a two-team GPU cohort", "[engine][report]") {
  const auto m = kmc::model::load_cluster_manifests(
      {std::string(KMC_SOURCE_DIR) + "/tests/engine/fixtures/gpu-cohort"});
  Engine e(m);
  const long cycles = e.run();
  const nlohmann::json j = to_json(make_report(e, cycles));
  REQUIRE(j["workloads"].size() == 2);
  CHECK(j["workloads"][0]["name"] == "team-a/train-1");
  CHECK(j["workloads"][0]["state"] == "Admitted");
  CHECK(j["workloads"][0]["clusterQueue"] == "team-a");
  CHECK(j["workloads"][0]["flavors"]["main"]["nvidia.com/gpu"] == "h100");
  CHECK(j["workloads"][0]["counts"]["main"] == 6);
  CHECK(j["workloads"][0]["preempted"] == false);
  // team-b lends nothing (lendingLimit 0), so team-a has 8 GPUs: 6 used, 6 more requested.
  CHECK(j["workloads"][1]["state"] == "Pending");
  CHECK(j["workloads"][1]["message"] ==
        "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in "
        "flavor h100, "
        "4 more needed");
  REQUIRE(j["clusterQueues"].size() == 2);
  CHECK(j["clusterQueues"][0]["name"] == "team-a");
  CHECK(j["clusterQueues"][0]["usage"]["h100"]["nvidia.com/gpu"] == "6");
  CHECK(j["clusterQueues"][0]["pending"] == 1);
  CHECK(j["clusterQueues"][0]["admitted"] == 1);
}
