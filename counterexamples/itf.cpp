#include "counterexamples/itf.hpp"

namespace kmc::cx {

nlohmann::json to_itf(const Trace& t, const std::string& source, const std::string& replay_token) {
  nlohmann::json doc;
  doc["#meta"] = {{"format", "ITF"},
                  {"format-description", "https://apalache-mc.org/docs/adr/015adr-trace.html"},
                  {"source", source},
                  {"description", "kmc counterexample: " + t.property + " is violated"},
                  {"property", t.property},
                  {"detail", t.detail},
                  {"replay", replay_token}};
  nlohmann::json vars = nlohmann::json::array({"mbt::actionTaken", "mbt::nondetPicks"});
  if (!t.steps.empty())
    for (const auto& [k, v] : t.steps.front().state) vars.push_back(k);
  doc["vars"] = vars;
  nlohmann::json states = nlohmann::json::array();
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const Step& s = t.steps[i];
    nlohmann::json st;
    st["#meta"] = {{"index", i}};
    st["mbt::actionTaken"] = s.kind;
    nlohmann::json picks = nlohmann::json::object();
    for (const auto& [k, v] : s.picks) picks[k] = v;
    st["mbt::nondetPicks"] = picks;
    for (const auto& [k, v] : s.state) st[k] = v;
    states.push_back(st);
  }
  doc["states"] = states;
  if (t.loop) doc["loop"] = *t.loop;
  return doc;
}

}  // namespace kmc::cx
