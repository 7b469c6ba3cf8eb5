#include "cli/check_one.hpp"

#include "checker/bfs.hpp"
#include "cli/fairness.hpp"
#include "invariants/multikueue_registry.hpp"
#include "model/checked.hpp"

namespace kmc::cli {

checker::Result check_property(const protocols::MultiKueue& mk, const model::Scenario& sc, const std::string& property,
                               double time_limit_s) {
  checker::CheckOptions o;
  o.properties = {property};
  plan_fairness(mk, sc.fleet, o);
  o.time_limit_s = time_limit_s;
  o.max_states = static_cast<std::uint64_t>(sc.fleet.check.max_states);
  return checker::Bfs(model::Checked<protocols::MultiKueue>{mk, invariants::multikueue_properties(mk)}, o).run();
}

}  // namespace kmc::cli
