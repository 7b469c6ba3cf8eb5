#include "cli/token_trace.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "counterexamples/itf.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cli {

std::optional<TokenTrace> read_token_trace(const std::string& file, bool replay_engine,
                                           const std::string& scenario) {
  std::ifstream in(file);
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("#meta")) return std::nullopt;
  const auto& meta = doc["#meta"];
  if (!meta.contains("source") || !meta["source"].is_string() || !meta.contains("replay") ||
      !meta["replay"].is_string())
    return std::nullopt;
  TokenTrace t;
  t.named = meta["source"].get<std::string>();
  t.token = meta["replay"].get<std::string>();
  t.source = scenario.empty() ? t.named : scenario;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(t.source + "/kmc.yaml", ec)) return std::nullopt;
  t.scenario = load_checked_scenario(t.source);
  t.protocol = &protocol_of(t.scenario);
  if (t.protocol->name == "multikueue") return std::nullopt;
  cx::CheckRequest req;
  req.replay_token = t.token;
  req.replay_engine = replay_engine;
  t.outcome = t.protocol->check(t.scenario, req);
  if (!t.outcome.trace)
    throw model::InputError({file, 0}, "#meta.replay", "the token gives no trace in " + t.source);
  if (cx::to_itf(*t.outcome.trace, t.named, t.token)["states"] !=
      doc.value("states", nlohmann::json()))
    throw model::InputError({file, 0}, "states",
                            "the states are not what the trace's token gives in " + t.source +
                                " (edited, or made for another version of the scenario)");
  return t;
}

}  // namespace kmc::cli
