// Fuzzes reading an ITF trace back and what kmc does with one: `kmc render`
// (render_trace, text and Mermaid, from the trace alone) and `kmc replay`
// (replay_in_engine against the scenario the trace was made from), the same
// library calls cli/cmd_render.cpp and cli/cmd_replay.cpp make, on a trace in
// memory instead of a file.
//
// Which scenario: `kmc replay` loads the trace's #meta.source and refuses a
// trace whose token names another instance (replay_setup.cpp). Loading a
// scenario per input would cost more than the replay, so every MultiKueue
// scenario of examples/ and counterexamples/corpus/ is loaded once, and an
// input replays against the one whose instance (with the trace's #meta.levers
// applied) its token names, else against examples/gpu-hunter: the seeds then
// reach deep into the replay, and mutants that keep the token stay there.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "counterexamples/multikueue/engine_replay.hpp"
#include "counterexamples/multikueue/render.hpp"
#include "counterexamples/scenario_id.hpp"
#include "counterexamples/token.hpp"
#include "fuzz/fuzz_support.hpp"
#include "protocols/multikueue.hpp"
#include "protocols/multikueue_levers.hpp"

namespace {

namespace cx = kmc::cx;
namespace fs = std::filesystem;
using kmc::model::Scenario;
using kmc::protocols::MkParams;

struct Known {
  std::string dir;
  Scenario scenario;
  MkParams params;  // without levers
};

std::vector<Known> load_known() {
  std::vector<fs::path> dirs{kmc::fuzz::source_dir() / "examples/gpu-hunter"};  // the fallback
  // A scenario is a folder with a kmc.yaml; examples/ also holds other things (examples/library,
  // a CMake consumer of the installed package).
  for (const auto& e : fs::directory_iterator(kmc::fuzz::source_dir() / "examples"))
    if (e.path().filename() != "gpu-hunter" && fs::is_regular_file(e.path() / "kmc.yaml"))
      dirs.push_back(e.path());
  for (const auto& e : fs::directory_iterator(kmc::fuzz::source_dir() / "counterexamples/corpus"))
    if (fs::is_directory(e.path() / "scenario")) dirs.push_back(e.path() / "scenario");
  std::vector<Known> known;
  for (const auto& d : dirs) {
    Scenario s = kmc::model::load_scenario(d.string());
    if (s.fleet.protocol != "multikueue") continue;
    MkParams p = kmc::protocols::compile_multikueue(s);
    known.push_back(Known{d.string(), std::move(s), std::move(p)});
  }
  return known;
}

const std::vector<Known>& known() {
  static const std::vector<Known> k = load_known();
  return k;
}

// The params of `k` with the trace's levers, as load_replay_target applies
// them; an unknown lever or value is an InputError, as there.
MkParams with_levers(const Known& k, const cx::ItfTrace& meta, const std::string& file) {
  MkParams p = k.params;
  for (const auto& [name, value] : meta.levers)
    kmc::protocols::apply_lever(p, kmc::model::Lever{name, {value}, {file, 0}}, value);
  return p;
}

// The scenario ids of every known instance under one lever setting, cached
// because mutants mostly keep their seed's levers.
const std::vector<std::uint32_t>& ids_for(const cx::ItfTrace& meta, const std::string& file) {
  static std::map<std::map<std::string, std::string>, std::vector<std::uint32_t>> cache;
  if (auto it = cache.find(meta.levers); it != cache.end()) return it->second;
  if (cache.size() > 256) cache.clear();  // bounded: a fuzzer invents many settings
  std::vector<std::uint32_t> ids;
  for (const auto& k : known()) {
    try {
      ids.push_back(cx::scenario_id(kmc::protocols::MultiKueue(with_levers(k, meta, file))));
    } catch (const kmc::model::InputError&) {
      ids.push_back(0);  // a lever this scenario does not have: never chosen by id
    }
  }
  return cache.emplace(meta.levers, std::move(ids)).first->second;
}

const Known& scenario_for(const cx::ItfTrace& meta, const std::string& file) {
  std::string why;
  const auto token = cx::parse_token(meta.token, why);
  if (token) {
    const auto& ids = ids_for(meta, file);
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] != 0 && ids[i] == token->scenario) return known()[i];
  }
  return known().front();
}

void replay(const cx::ItfDocument& itf) {
  const cx::ItfTrace meta = cx::read_itf_meta(itf);
  const Known& k = scenario_for(meta, itf.file);
  const cx::EngineReplay r = cx::replay_in_engine(k.scenario, with_levers(k, meta, itf.file), itf);
  const std::string text = cx::to_text(r);
  (void)cx::to_json(r).dump(2);
  // To see which scenario a seed replays against, and how far it gets.
  if (std::getenv("KMC_FUZZ_VERBOSE"))
    std::fprintf(stderr, "fuzz_itf: replayed against %s: %s", k.dir.c_str(), text.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)known();  // load the scenarios before the first input, not during it
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = kmc::fuzz::as_text(data, size);
  kmc::fuzz::expect_input_error([&] {
    const cx::ItfDocument itf = cx::parse_itf("trace.itf.json", text);
    // Render and replay each run on their own: a trace one refuses may still reach the other.
    kmc::fuzz::expect_input_error([&] { (void)cx::render_trace(itf, cx::RenderFormat::Text); });
    kmc::fuzz::expect_input_error([&] { (void)cx::render_trace(itf, cx::RenderFormat::Mermaid); });
    kmc::fuzz::expect_input_error([&] { replay(itf); });
  });
  return 0;
}
