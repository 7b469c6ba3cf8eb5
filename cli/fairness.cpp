#include "cli/fairness.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kmc::cli {

std::vector<checker::Fairness> fairness_for(const protocols::MultiKueue& mk, const model::Fleet& fleet) {
  const auto names = mk.families();
  std::vector<checker::Fairness> out;
  for (int f : mk.default_fairness()) out.push_back(static_cast<checker::Fairness>(f));
  for (const auto& spec : fleet.fairness) {
    auto it = std::find(names.begin(), names.end(), spec.family);
    if (it == names.end())
      throw model::InputError(model::Diagnostic{spec.pos, "fairness." + spec.family,
                                                fmt::format("unknown action family; expected one of {}", fmt::join(names, ", "))});
    out[it - names.begin()] = static_cast<checker::Fairness>(spec.kind);
  }
  return out;
}

void plan_fairness(const protocols::MultiKueue& mk, const model::Fleet& fleet, checker::CheckOptions& options) {
  const auto per_family = fairness_for(mk, fleet);
  const auto names = mk.families();
  options.fairness_labels.clear();
  for (std::size_t f = 0; f < names.size(); ++f) options.fairness_labels.push_back(names[f] + " " + checker::to_string(per_family[f]));
  const auto& candidates = mk.candidates();
  if (candidates.size() > 64) {  // the checker's masks hold 64 units: fall back to families
    options.fairness = per_family;
    options.per_instance = false;
    options.fairness_labels.push_back("(per action family)");
    return;
  }
  options.fairness.clear();
  for (const auto& a : candidates) options.fairness.push_back(per_family[mk.family(a)]);
  options.per_instance = true;
  options.fairness_labels.push_back("(per action instance)");
}

}  // namespace kmc::cli
