#include "cli/protocols.hpp"

#include <fmt/format.h>

#include <algorithm>

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
  };
  return table;
}

const ProtocolEntry& protocol_of(const model::Scenario& scenario) {
  const auto& table = protocol_table();
  const auto& name = scenario.fleet.protocol;
  auto it = std::find_if(table.begin(), table.end(),
                         [&](const ProtocolEntry& e) { return e.name == name; });
  if (it != table.end()) return *it;
  std::vector<std::string> names;
  for (const auto& e : table) names.push_back(e.name);
  throw model::InputError(
      scenario.fleet.protocol_pos, "protocol",
      fmt::format("unknown protocol '{}'; expected one of {}", name, fmt::join(names, ", ")));
}

}  // namespace kmc::cli
