#include "cli/protocols.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "counterexamples/kube_scheduler/pipeline.hpp"
#include "counterexamples/kueue_admission/engine_replay.hpp"
#include "counterexamples/kueue_admission/pipeline.hpp"
#include "counterexamples/multikueue/engine_replay.hpp"
#include "counterexamples/multikueue/pipeline.hpp"
#include "counterexamples/multikueue/replay_setup.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace kmc::cli {

const std::vector<ProtocolEntry>& protocol_table() {
  static const std::vector<ProtocolEntry> table{
      {"multikueue",
       "MultiKueue dispatch from a manager to workers, with ProvisioningRequests and capacity "
       "snapshots",
       [](const model::Scenario& sc, const cx::CheckRequest& req) {
         return cx::check_multikueue(sc, req);
       }},
      {"kueue-admission",
       "Kueue admission in one cluster: quotas, cohorts, borrowing, preemption, queueing",
       [](const model::Scenario& sc, const cx::CheckRequest& req) {
         return cx::check_kueue_admission(sc, req);
       }},
      {"kube-scheduler",
       "the default kube-scheduler without Kueue: pods bound one at a time (the gang baseline)",
       [](const model::Scenario& sc, const cx::CheckRequest& req) {
         return cx::check_kube_scheduler(sc, req);
       },
       false},
  };
  return table;
}

const ProtocolEntry& protocol_of(const model::Scenario& scenario) {
  return protocol_of(scenario.fleet);
}

model::Scenario load_checked_scenario(const std::string& dir) {
  const std::string fleet = dir + "/kmc.yaml";
  std::error_code ec;
  if (std::filesystem::is_regular_file(fleet, ec)) protocol_of(model::load_fleet(fleet));
  return model::load_scenario(dir);
}

const ProtocolEntry& protocol_of(const model::Fleet& fleet) {
  const auto& table = protocol_table();
  const auto& name = fleet.protocol;
  auto it = std::find_if(table.begin(), table.end(),
                         [&](const ProtocolEntry& e) { return e.name == name; });
  if (it != table.end()) return *it;
  std::vector<std::string> names;
  for (const auto& e : table) names.push_back(e.name);
  throw model::InputError(
      fleet.protocol_pos, "protocol",
      fmt::format("unknown protocol '{}'; expected one of {}", name, fmt::join(names, ", ")));
}

namespace {

cx::EngineReport report(const cx::EngineReplay& r) {
  return {r.verdict == cx::EngineReplay::Verdict::Reproduced, cx::to_text(r), cx::to_json(r)};
}

}  // namespace

// A trace whose states were edited replays, and diverges where the engine does otherwise; one
// that is not a trace of the scenario at all (an entity it lacks, another property than its
// token's) is an InputError.
cx::EngineReport replay_trace(const cx::ItfDocument& itf, const std::string& scenario_dir,
                              const std::function<void(const model::Scenario&)>& loaded) {
  const auto given = scenario_dir.empty() ? std::nullopt : std::optional<std::string>(scenario_dir);
  const std::string dir = cx::trace_scenario_dir(itf, given);
  const ProtocolEntry& entry = protocol_of(load_checked_scenario(dir));
  const std::string& protocol = entry.name;
  if (protocol == protocols::ka::Spec::name) {
    const cx::AdmissionReplayTarget target = cx::load_admission_replay_target(itf, dir);
    if (loaded) loaded(target.scenario);
    return report(cx::replay_in_engine(target.scenario, target.params, itf));
  }
  if (!entry.engine)
    cx::itf_error(itf, "#meta.source",
                  fmt::format("{} is a {} scenario, and that protocol has no reference engine to "
                              "replay in (kmc check {} --replay TOKEN re-runs the trace in the "
                              "model)",
                              dir, protocol, dir));
  const cx::ReplayTarget target = cx::load_replay_target(itf, given);
  if (loaded) loaded(target.scenario);
  return report(cx::replay_in_engine(target.scenario, target.params, itf));
}

}  // namespace kmc::cli
