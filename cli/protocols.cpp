#include "cli/protocols.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "counterexamples/kube_scheduler/pipeline.hpp"
#include "counterexamples/kueue_admission/pipeline.hpp"
#include "counterexamples/multikueue/pipeline.hpp"

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
       }},
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

}  // namespace kmc::cli
