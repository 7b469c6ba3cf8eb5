#include "api/api.hpp"

#include <algorithm>

#include "cli/check_report.hpp"
#include "cli/protocols.hpp"
#include "counterexamples/itf.hpp"
#include "counterexamples/itf_document.hpp"

namespace kmc {

// The protocol table and the checked loading live in cli/ (cli/protocols.hpp),
// the one place `kmc` names its protocols; the library calls them rather
// than keep a second table that could drift.
Scenario load_scenario(const std::string& dir) {
  return cli::load_checked_scenario(dir);
}

std::string protocol_name(const Scenario& scenario) {
  return cli::protocol_of(scenario).name;
}

CheckResult check(const Scenario& scenario, const CheckOptions& options) {
  return cli::protocol_of(scenario).check(scenario, options);
}

std::optional<Verdict> verdict_of(const CheckResult& result, std::string_view property) {
  const auto& ps = result.result.properties;
  auto it = std::find_if(ps.begin(), ps.end(),
                         [&](const checker::PropertyResult& p) { return p.name == property; });
  if (it == ps.end()) return std::nullopt;
  return it->verdict;
}

std::string report_text(const CheckResult& result) {
  std::string text = cli::render_text(result);
  if (result.engine) text += "\n" + result.engine->text;
  return text;
}

nlohmann::json report_json(const CheckResult& result) {
  auto j = cli::render_json(result);
  if (result.engine) j["engineReplay"] = result.engine->json;
  return j;
}

std::optional<std::string> trace_itf(const CheckResult& result) {
  if (!result.trace) return std::nullopt;
  return cx::itf_text(cx::to_itf(*result.trace, result.token_dir(), result.token));
}

// Whose engine replays the trace is its scenario's protocol, as in `kmc replay`: one dispatch,
// cli/protocols.hpp's.
ReplayResult replay(const std::string& trace_file, const std::string& scenario_dir) {
  return cli::replay_trace(cx::load_itf(trace_file), scenario_dir);
}

}  // namespace kmc
