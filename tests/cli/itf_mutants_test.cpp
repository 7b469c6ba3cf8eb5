// Malformed traces (issue 16, item 2): every pick of every committed trace
// (the corpus and docs/fix-matrix-traces) is dropped, one at a time, and
// `kmc replay`, the engine replay behind it and `kmc render` each refuse the
// mutant with exit 3 naming the file, its line and states[N].field: never a
// signal, never Reproduced, never a Diverged with empty names. `kmc replay`
// runs in this process (the subcommand main.cpp registers, stderr captured),
// since a thousand mutants would take too long as processes; a few run as
// the real binary too.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/run_kmc.hpp"
#include "itf_readers.hpp"

namespace fs = std::filesystem;
using itf_readers::Outcome;

namespace {

// A committed trace and the scenario it replays in.
struct Committed {
  std::string path, scenario;
  nlohmann::json doc;
};

std::vector<Committed> committed_traces() {
  std::vector<Committed> out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator("counterexamples/corpus"))
    if (fs::exists(e.path() / "trace.itf.json")) files.push_back(e.path() / "trace.itf.json");
  for (const auto& e : fs::recursive_directory_iterator("docs/fix-matrix-traces"))
    if (e.path().string().ends_with(".itf.json")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    Committed c{f.string(), "", nlohmann::json::parse(slurp(f.string()))};
    // A corpus entry keeps its scenario beside the trace; a fix-matrix trace names its example.
    c.scenario = fs::exists(f.parent_path() / "scenario")
                     ? (f.parent_path() / "scenario").string()
                     : c.doc["#meta"]["source"].get<std::string>();
    // MultiKueue's: the readers here are its own. Other protocols' traces are read through
    // their tokens (itf_meta_mutants_test.cpp).
    const std::string fleet = slurp(c.scenario + "/kmc.yaml");
    if (fleet.find("\nprotocol: ") != std::string::npos &&
        fleet.find("\nprotocol: multikueue") == std::string::npos)
      continue;
    out.push_back(std::move(c));
  }
  return out;
}

// One mutant: written to `path`, then refused by each reader with `field` named.
void expect_refused(const std::string& path, const nlohmann::json& doc, const std::string& field,
                    const std::string& scenario, const itf_readers::Scenario& target) {
  const std::string text = doc.dump(2);
  std::ofstream(path) << text;
  INFO(path << ": " << field);
  for (const Outcome& o : {itf_readers::kmc_in_process({"replay", path, "--scenario", scenario}),
                           target.replay_in_engine(path, text), itf_readers::render(path, text)}) {
    INFO(o.err);
    CHECK(o.code == 3);
    CHECK(names_line(o.err, path, field));
  }
}

}  // namespace

TEST_CASE("every pick of every committed trace, dropped one at a time, is exit 3 naming it",
          "[itf-mutants]") {
  const fs::path dir = temp_path("itf-mutants");
  fs::create_directories(dir);
  const auto traces = committed_traces();
  REQUIRE(traces.size() >= 67);  // 15 corpus entries, 52 fix-matrix traces
  std::size_t mutants = 0;
  for (const auto& t : traces) {
    const itf_readers::Scenario target(t.path, t.scenario);
    const auto& states = t.doc["states"];
    for (std::size_t i = 1; i < states.size(); ++i)
      for (const auto& [key, value] : states[i]["mbt::nondetPicks"].items()) {
        nlohmann::json doc = t.doc;
        doc["states"][i]["mbt::nondetPicks"].erase(key);
        ++mutants;
        const std::string path = (dir / fs::path(t.path).filename()).string();
        expect_refused(path, doc, fmt::format("states[{}].mbt::nondetPicks.{}", i, key), t.scenario,
                       target);
      }
  }
  CHECK(mutants >= 1120);  // the picks of the traces committed when this was written
  fs::remove_all(dir);
}

TEST_CASE("a pick of the wrong type, naming no entity, or one an action does not take is exit 3",
          "[itf-mutants]") {
  const fs::path dir = temp_path("itf-bad-picks");
  fs::create_directories(dir);
  const std::string entry = "counterexamples/corpus/gpu-hunter-deadlock";
  const std::string scenario = entry + "/scenario";
  const auto good = nlohmann::json::parse(slurp(entry + "/trace.itf.json"));
  const itf_readers::Scenario target(entry + "/trace.itf.json", scenario);
  // State 3 is CreateRemoteWorkload(team-ml/llm-finetune, us-central1).
  REQUIRE(good["states"][3]["mbt::actionTaken"] == "CreateRemoteWorkload");
  int n = 0;
  auto refused = [&](const std::string& field, auto&& edit) {
    nlohmann::json doc = good;
    edit(doc["states"][3]);
    expect_refused((dir / fmt::format("b{}.itf.json", n++)).string(), doc, field, scenario, target);
  };
  const std::string picks = "states[3].mbt::nondetPicks";
  refused(picks + ".job", [](auto& s) { s["mbt::nondetPicks"]["job"] = "team-ml/nobody"; });
  refused(picks + ".cluster", [](auto& s) { s["mbt::nondetPicks"]["cluster"] = "mars-east1"; });
  refused(picks + ".cluster", [](auto& s) { s["mbt::nondetPicks"]["cluster"] = 1; });
  refused(picks + ".job", [](auto& s) { s["mbt::nondetPicks"]["job"] = nullptr; });
  refused(picks + ".job", [](auto& s) { s["mbt::nondetPicks"]["job"] = {"a"}; });
  refused(picks + ".flavor", [](auto& s) { s["mbt::nondetPicks"]["flavor"] = "h100"; });
  refused(picks, [](auto& s) { s["mbt::nondetPicks"] = {"team-ml/llm-finetune", "us-central1"}; });
  refused(picks + ".job", [](auto& s) { s.erase("mbt::nondetPicks"); });
  refused("states[3].mbt::actionTaken", [](auto& s) { s["mbt::actionTaken"] = 7; });
  refused("states[3].mbt::actionTaken", [](auto& s) { s["mbt::actionTaken"] = "Teleport"; });
  fs::remove_all(dir);
}

TEST_CASE("an action the scenario does not have is exit 3 from kmc replay", "[itf-mutants]") {
  const fs::path dir = temp_path("itf-no-such-action");
  fs::create_directories(dir);
  const std::string entry = "counterexamples/corpus/gpu-hunter-deadlock";
  auto doc = nlohmann::json::parse(slurp(entry + "/trace.itf.json"));
  // A capacity-snapshot dispatcher nominates by NominateWorker: Nominate is not one of its actions.
  doc["states"][2]["mbt::actionTaken"] = "Nominate";
  doc["states"][2]["mbt::nondetPicks"].erase("cluster");
  const std::string path = (dir / "nominate.itf.json").string();
  std::ofstream(path) << doc.dump(2);
  const Outcome r =
      itf_readers::kmc_in_process({"replay", path, "--scenario", entry + "/scenario"});
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(names_line(r.err, path, "states[2].mbt::actionTaken"));
  fs::remove_all(dir);
}

TEST_CASE("the kmc binary refuses a trace missing a pick with exit 3, not a signal",
          "[itf-mutants]") {
  const fs::path dir = temp_path("itf-binary");
  const std::string entry = "counterexamples/corpus/gpu-hunter-deadlock";
  fs::create_directories(dir);
  fs::copy(entry, dir / "gpu-hunter-deadlock", fs::copy_options::recursive);
  // The mutant in place of a corpus entry's trace: replay finds the scenario beside it.
  const std::string path = (dir / "gpu-hunter-deadlock" / "trace.itf.json").string();
  auto doc = nlohmann::json::parse(slurp(path));
  doc["states"][5]["mbt::nondetPicks"].erase("job");
  std::ofstream(path) << doc.dump(2);
  for (const std::string& cmd :
       {"replay " + path, "render " + path + " --format mermaid", "corpus check " + dir.string()}) {
    const Run r = kmc(cmd);
    INFO(cmd << "\n" << r.out << r.err);
    CHECK(r.code == 3);
    CHECK(names_line(r.err, path, "states[5].mbt::nondetPicks.job"));
  }
  fs::remove_all(dir);
}
