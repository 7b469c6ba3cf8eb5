// `kmc validate`: the engine's own runs must be behaviours of the model.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_kmc.hpp"

TEST_CASE("random engine walks validate against the model") {
  for (const char* ex :
       {"gpu-hunter", "gpu-hunter-fixed", "gpu-hunter-three-workers", "gpu-hunter-spot-race"}) {
    const Run r = kmc(std::string("validate --walk examples/") + ex + " --walks 25 --steps 40");
    INFO(ex << "\n" << r.out << r.err);
    CHECK(r.code == 0);
    CHECK(r.out.find("Allowed: 25 random walks") != std::string::npos);
  }
}

TEST_CASE("an engine log with a step the model cannot take is reported at that step") {
  const std::string log = temp_path("validate.json");
  REQUIRE(
      kmc("validate --walk examples/gpu-hunter-fixed --seed 2 --steps 40 --log-out " + log).code ==
      0);
  REQUIRE(kmc("validate " + log).code == 0);
  nlohmann::json doc = nlohmann::json::parse(slurp(log));
  REQUIRE(doc["steps"].size() > 4);
  // Claim the manager admitted the job on a worker that holds no copy of it.
  auto& cells = doc["steps"][3]["cells"];
  REQUIRE(cells["phase"]["#map"][0][0] == "team-ml/llm-finetune");
  cells["phase"]["#map"][0][1] = "Admitted";
  cells["cluster"]["#map"][0][1] = "us-central1";
  std::ofstream(log) << doc.dump(2);
  Run r = kmc("validate " + log);
  CHECK(r.code == 1);
  CHECK(r.out.find("but not step 3") != std::string::npos);
  CHECK(r.out.find("  phase[team-ml/llm-finetune] = Admitted\n") != std::string::npos);
  // Where the engine and the model part: the closest state the model has, cell by cell.
  CHECK(r.out.find("phase[team-ml/llm-finetune]: the engine's Admitted, the model's") !=
        std::string::npos);

  // The log's cells are typed as an ITF state's are: English is bad input.
  cells["remote"]["#map"][0][1] = "QuotaReserved, nominated";
  std::ofstream(log) << doc.dump(2);
  r = kmc("validate " + log);
  CHECK(r.code == 3);
  INFO(r.err);
  CHECK(r.err.find("steps[3].cells.remote: 'QuotaReserved, nominated' is not one of") !=
        std::string::npos);
  cells["remote"]["#map"][0][1] = "None";
  cells.erase("attempts");
  std::ofstream(log) << doc.dump(2);
  r = kmc("validate " + log);
  CHECK(r.code == 3);
  CHECK(r.err.find("steps[3].cells.attempts: missing") != std::string::npos);
}

TEST_CASE("kmc validate rejects what is not an engine log (exit 3)") {
  const std::string log = temp_path("validate-bad.json");
  std::ofstream(log) << "{\"kind\": \"something-else\"}";
  Run r = kmc("validate " + log + " --scenario examples/gpu-hunter");
  CHECK(r.code == 3);
  CHECK(r.err.find("kind") != std::string::npos);
  r = kmc("validate");
  CHECK(r.code == 3);
}

// One settle of AllAtOnce over four jobs and three workers is dozens of model actions: the
// best-first search explains it where a breadth-first one with a 10-action lookahead (before)
// said "Not allowed", a wrong answer. A limit that leaves a step unexplained is Incomplete.
TEST_CASE("a step that settles many protocol steps is explained; a search cut short is Incomplete",
          "[cli][validate]") {
  Run r = kmc("validate --walk examples/three-workers --steps 8");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("Allowed: 1 random walk") != std::string::npos);
  r = kmc("validate --walk examples/three-workers --steps 8 --lookahead 10");
  INFO(r.out << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.find("step 1 (settle) was not explained within the search's limits") !=
        std::string::npos);
  CHECK(r.out.find("Not allowed") == std::string::npos);
  r = kmc("validate --walk examples/three-workers --steps 8 --max-states 100");
  INFO(r.out << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.find("Incomplete: the model explains steps 0 to 0;") != std::string::npos);
}
