// Malformed traces beyond their picks (issue 16, items 2 and 6): a trace of
// each protocol with one of its #meta fields, its loop, its states or a cell
// broken, read by `kmc replay` and `kmc render`: exit 3, naming the file, the
// line the field is on and the field. A kueue-admission or kube-scheduler
// trace is drawn from its token, so render names the first field that is
// not what the token gives; kube-scheduler has no engine to replay in.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "cli/run_kmc.hpp"
#include "itf_readers.hpp"

namespace fs = std::filesystem;

namespace {

struct Mutant {
  std::string name;
  std::function<void(nlohmann::json&)> edit;
  std::string field;  // what replay and render must name
};

// A state variable of state 1 that is one of the protocol's fields.
std::string first_field(const nlohmann::json& state) {
  for (const auto& [k, v] : state.items())
    if (k != "#meta" && !k.starts_with("mbt::")) return k;
  return "";
}

std::vector<Mutant> mutants(const nlohmann::json& doc) {
  const std::string cell = first_field(doc["states"][1]);
  return {
      {"garbage token", [](auto& d) { d["#meta"]["replay"] = "kmc1:nope"; }, "#meta.replay"},
      {"token of another type", [](auto& d) { d["#meta"]["replay"] = 5; }, "#meta.replay"},
      {"property of another type", [](auto& d) { d["#meta"]["property"] = 3; }, "#meta.property"},
      {"source of another type", [](auto& d) { d["#meta"]["source"] = 7; }, "#meta.source"},
      {"loop past the end", [](auto& d) { d["loop"] = 999; }, "loop"},
      {"loop of another type", [](auto& d) { d["loop"] = "a"; }, "loop"},
      {"no states", [](auto& d) { d["states"] = nlohmann::json::array(); }, "states"},
      {"an unknown action", [](auto& d) { d["states"][1]["mbt::actionTaken"] = "Teleport"; },
       "states[1].mbt::actionTaken"},
      {"an entity the scenario lacks",
       [cell](auto& d) {
         auto& entry = d["states"][1][cell]["#map"][0];
         entry[0] = entry[0].is_string() ? nlohmann::json("nobody")
                                         : nlohmann::json{{"#tup", {"nobody", "nowhere"}}};
       },
       "states[1]." + cell},
      {"a missing field", [cell](auto& d) { d["states"][1].erase(cell); }, "states[1]." + cell},
  };
}

struct Case {
  std::string protocol, check, scenario;
  bool replays = true;  // has an engine to replay in
};

}  // namespace

TEST_CASE(
    "a trace of every protocol with a broken #meta, loop, state or cell is exit 3 naming "
    "file, line and field",
    "[itf-mutants]") {
  const fs::path dir = temp_path("itf-meta-mutants");
  fs::create_directories(dir);
  const std::vector<Case> cases{
      {"multikueue", "examples/gpu-hunter", "examples/gpu-hunter"},
      {"kueue-admission", "examples/zombie-pod", "examples/zombie-pod"},
      {"kube-scheduler", "examples/plain-scheduler-gang-deadlock",
       "examples/plain-scheduler-gang-deadlock", false},
  };
  for (const Case& c : cases) {
    const std::string good = (dir / (c.protocol + ".itf.json")).string();
    REQUIRE(kmc(fmt::format("check {} --trace-out {}", c.check, good)).code == 1);
    const auto doc = nlohmann::json::parse(slurp(good));
    int n = 0;
    for (const Mutant& m : mutants(doc)) {
      nlohmann::json bad = doc;
      m.edit(bad);
      const std::string path = (dir / fmt::format("{}-{}.itf.json", c.protocol, n++)).string();
      std::ofstream(path) << bad.dump(2);
      INFO(c.protocol << ", " << m.name << ": " << path);
      const auto render = itf_readers::kmc_in_process({"render", path});
      INFO("render: " << render.err);
      CHECK(render.code == 3);
      CHECK(names_line(render.err, path, m.field));
      const auto replay = itf_readers::kmc_in_process({"replay", path, "--scenario", c.scenario});
      INFO("replay: " << replay.err);
      CHECK(replay.code == 3);
      // A source of another type is moot once --scenario names the folder; kube-scheduler
      // has no engine, which replay says first.
      if (!c.replays) {
        CHECK(names_line(replay.err, path, "#meta.source"));
        CHECK(replay.err.find("no reference engine") != std::string::npos);
      } else if (m.field != "#meta.source") {
        CHECK(names_line(replay.err, path, m.field));
      }
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("every pick of every kueue-admission corpus trace, dropped, is exit 3 naming it",
          "[itf-mutants]") {
  const fs::path dir = temp_path("itf-admission-picks");
  fs::create_directories(dir);
  std::size_t mutants = 0;
  for (const auto& e : fs::directory_iterator("counterexamples/corpus")) {
    const fs::path scenario = e.path() / "scenario";
    if (!fs::exists(scenario / "kmc.yaml") ||
        slurp((scenario / "kmc.yaml").string()).find("protocol: kueue-admission") ==
            std::string::npos)
      continue;
    const auto doc = nlohmann::json::parse(slurp((e.path() / "trace.itf.json").string()));
    for (std::size_t i = 1; i < doc["states"].size(); ++i)
      for (const auto& [key, value] : doc["states"][i]["mbt::nondetPicks"].items()) {
        nlohmann::json bad = doc;
        bad["states"][i]["mbt::nondetPicks"].erase(key);
        // Beside its scenario, as in the corpus, so #meta.source ("scenario") is found.
        fs::create_directories(dir / e.path().filename());
        fs::copy(scenario, dir / e.path().filename() / "scenario",
                 fs::copy_options::recursive | fs::copy_options::skip_existing);
        const std::string path = (dir / e.path().filename() / "trace.itf.json").string();
        std::ofstream(path) << bad.dump(2);
        const std::string field = fmt::format("states[{}].mbt::nondetPicks", i);
        INFO(path << ": " << field << "." << key);
        ++mutants;
        for (const auto& o : {itf_readers::kmc_in_process({"replay", path}),
                              itf_readers::kmc_in_process({"render", path})}) {
          INFO(o.err);
          CHECK(o.code == 3);
          CHECK((names_line(o.err, path, field + "." + key) || names_line(o.err, path, field)));
        }
      }
  }
  CHECK(mutants >= 1);  // the zombie pod's KubeletLost pick (a Schedule cycle picks nothing)
  fs::remove_all(dir);
}
