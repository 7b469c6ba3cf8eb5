// `kmc replay` and `kmc corpus check` as a user and CI run them.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "run_kmc.hpp"

namespace fs = std::filesystem;

namespace {
const std::string corpus = "counterexamples/corpus";
}

TEST_CASE("kmc replay reproduces the GPU Hunter deadlock in the engine (exit 0)") {
  const Run r = kmc("replay " + corpus + "/gpu-hunter-deadlock/trace.itf.json --scenario " +
                    corpus + "/gpu-hunter-deadlock/scenario");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("Replay in the engine: Reproduced") != std::string::npos);
  CHECK(r.out.find("ProvisioningAccepted(team-ml/llm-finetune, us-central1)") != std::string::npos);
  CHECK(r.out.find("asia-southeast1 has the capacity and its scheduler admits a copy now") !=
        std::string::npos);
}

TEST_CASE("kmc replay of a broken protocol's trace diverges (exit 1) and says where") {
  const Run r = kmc("replay " + corpus + "/broken-keep-losers/trace.itf.json --scenario " + corpus +
                    "/broken-keep-losers/scenario --output json");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("\"verdict\": \"Diverged\"") != std::string::npos);
  CHECK(r.out.find("SelectWorker(team-ml/llm-finetune, asia-southeast1)") != std::string::npos);
}

TEST_CASE("kmc replay refuses a trace from another scenario and malformed files (exit 3)") {
  Run r = kmc("replay " + corpus +
              "/gpu-hunter-deadlock/trace.itf.json --scenario examples/gpu-hunter-fixed");
  CHECK(r.code == 3);
  CHECK(r.err.find("another scenario") != std::string::npos);
  r = kmc("replay /nonexistent.itf.json");
  CHECK(r.code == 3);
  CHECK(r.err.find("/nonexistent.itf.json") != std::string::npos);
  const std::string bad = temp_path("replay-bad.itf.json");
  std::ofstream(bad) << "{\n  \"#meta\": {},\n  \"states\": [ oops ]\n}\n";
  r = kmc("replay " + bad);
  CHECK(r.code == 3);
  CHECK(r.err.find(bad + ":3") != std::string::npos);
  r = kmc("replay " + bad + " --scenario examples/nowhere");
  CHECK(r.code == 3);
}

TEST_CASE(
    "kmc replay refuses a trace with a missing or mistyped cell (exit 3, naming the line and "
    "states[N].field)") {
  const fs::path dir =
      fs::temp_directory_path() / ("kmc-replay-cells-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string entry = corpus + "/gpu-hunter-deadlock";
  const auto good = nlohmann::json::parse(slurp(entry + "/trace.itf.json"));
  auto replay_of = [&](const std::string& name, auto&& edit) {
    nlohmann::json doc = good;
    edit(doc["states"][2]);
    const std::string path = (dir / name).string();
    std::ofstream(path) << doc.dump(2);
    return std::make_pair(path, kmc("replay " + path + " --scenario " + entry + "/scenario"));
  };
  auto [english, r] =
      replay_of("english.itf.json", [](nlohmann::json& s) { s["usage"]["#map"][0][1] = "8/16"; });
  CHECK(r.code == 3);
  CHECK(std::regex_search(
      r.err, std::regex(english + ":[0-9]+: states\\[2\\]\\.usage: expected an integer")));
  auto [missing, m] =
      replay_of("missing.itf.json", [](nlohmann::json& s) { s.erase("nominated"); });
  CHECK(m.code == 3);
  CHECK(std::regex_search(m.err,
                          std::regex(missing + ":[0-9]+: states\\[2\\]\\.nominated: missing")));
  auto [phase, p] =
      replay_of("phase.itf.json", [](nlohmann::json& s) { s["phase"]["#map"][0][1] = "Waiting"; });
  CHECK(p.code == 3);
  CHECK(
      p.err.find(
          "states[2].phase: 'Waiting' is not one of Pending, QuotaReserved, Admitted, Finished") !=
      std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("kmc replay finds a corpus trace's scenario beside the trace") {
  const Run r = kmc("replay " + corpus + "/timeout-shorter-than-boot/trace.itf.json");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("repeats after two turns of the loop") != std::string::npos);
}

TEST_CASE("kmc corpus check passes on the committed corpus and fails on any change") {
  Run r = kmc("corpus check");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("0 changed") != std::string::npos);
  CHECK(r.out.find("| gpu-hunter-deadlock | no-stuck-job | 5 | Violated | Reproduced |") !=
        std::string::npos);

  const fs::path copy = fs::temp_directory_path() / "kmc-corpus-test";
  fs::remove_all(copy);
  fs::create_directories(copy);
  fs::copy(corpus + "/gpu-hunter-deadlock", copy / "gpu-hunter-deadlock",
           fs::copy_options::recursive);
  std::ofstream(copy / "gpu-hunter-deadlock" / "expect.yaml")
      << "property: no-stuck-job\nmodel: Violated\nreplay: Diverged\n";
  r = kmc("corpus check " + copy.string());
  CHECK(r.code == 1);
  CHECK(r.out.find("**Reproduced (expected Diverged)**") != std::string::npos);

  // A diagram that is not the trace's rendering is a change too.
  std::ofstream(copy / "gpu-hunter-deadlock" / "expect.yaml")
      << "property: no-stuck-job\nmodel: Violated\nreplay: Reproduced\n";
  std::ofstream(copy / "gpu-hunter-deadlock" / "trace.mmd") << "sequenceDiagram\n";
  r = kmc("corpus check " + copy.string());
  CHECK(r.code == 1);
  CHECK(r.out.find("trace.mmd is not what kmc render draws") != std::string::npos);

  std::ofstream(copy / "gpu-hunter-deadlock" / "expect.yaml")
      << "property: no-stuck-job\nmodel: Violated\nreplay: Maybe\n";
  r = kmc("corpus check " + copy.string());
  CHECK(r.code == 3);
  CHECK(r.err.find("expect.yaml:3: replay") != std::string::npos);
  fs::remove_all(copy);
}

TEST_CASE("kmc check --replay-engine replays every violation it reports") {
  Run r = kmc("check examples/gpu-hunter --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("Replay in the engine: Reproduced") != std::string::npos);
  r = kmc("check examples/gpu-hunter --replay-engine --output json");
  CHECK(r.code == 1);
  CHECK(nlohmann::json::parse(r.out)["engineReplay"]["verdict"] == "Reproduced");
  // A lasso: the prefix and two turns of the loop.
  r = kmc("check " + corpus +
          "/timeout-shorter-than-boot/scenario --property no-endless-retry --replay-engine "
          "--output json");
  INFO(r.out);
  REQUIRE(r.code == 1);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["engineReplay"]["lasso"] == true);
  CHECK(j["engineReplay"]["verdict"] == "Reproduced");
  // Verified: nothing to replay, nothing printed about the engine.
  r = kmc("check examples/gpu-hunter-fixed --replay-engine");
  CHECK(r.code == 0);
  CHECK(r.out.find("Replay in the engine") == std::string::npos);
}
