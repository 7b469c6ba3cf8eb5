// An engine replay as people and programs read it (kmc replay, kmc check --replay-engine).
#include <fmt/format.h>

#include "counterexamples/multikueue/engine_replay.hpp"

namespace kmc::cx {

const char* to_string(EngineReplay::Verdict v) {
  return v == EngineReplay::Verdict::Reproduced ? "Reproduced" : "Diverged";
}

std::string to_text(const EngineReplay& r) {
  std::string out = fmt::format("Replay in the engine: {}\n", to_string(r.verdict));
  for (const auto& s : r.steps)
    out += fmt::format("  {:>3}. {:<60} engine: {}\n", s.index, s.action, s.engine);
  if (r.verdict == EngineReplay::Verdict::Reproduced) {
    out += fmt::format("{} is violated in the engine's own state: {}.\n", r.property,
                       r.property_check);
  } else {
    out += fmt::format("Diverged at step {}, {}: {}.\n", r.step, r.action, r.engine_did);
    for (const auto& d : r.difference) out += "  " + d + "\n";
  }
  return out;
}

nlohmann::json to_json(const EngineReplay& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : r.steps)
    steps.push_back({{"index", s.index}, {"action", s.action}, {"engine", s.engine}});
  nlohmann::json j = {{"verdict", to_string(r.verdict)},
                      {"property", r.property},
                      {"steps", steps},
                      {"lasso", r.lasso},
                      {"seconds", r.seconds}};
  if (r.verdict == EngineReplay::Verdict::Reproduced) {
    j["propertyCheck"] = r.property_check;
  } else {
    j["diverged"] = {{"step", r.step},
                     {"action", r.action},
                     {"engine", r.engine_did},
                     {"difference", r.difference}};
  }
  return j;
}

}  // namespace kmc::cx
