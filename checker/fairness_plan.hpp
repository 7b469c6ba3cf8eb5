// Fairness for a run: the protocol's defaults per action family, overridden
// by kmc.yaml's `fairness:` section, stated per action instance when the
// protocol has few enough instances (TLA+'s WF(A(w)) for each w), else per
// family. Every check of a scenario plans it here, so a search, a replay
// token and the shrinker judge a lasso under the same assumptions.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "checker/bfs.hpp"
#include "checker/liveness.hpp"
#include "model/diagnostics.hpp"
#include "model/fleet.hpp"

namespace kmc::checker {

// A protocol that names its action families and their default fairness.
template <class P>
concept HasFamilies = requires(const P& p, const typename P::Action& a) {
  { p.families() } -> std::convertible_to<std::vector<std::string>>;
  { p.default_fairness() } -> std::convertible_to<std::vector<int>>;  // 0 none, 1 weak, 2 strong
  { p.family(a) } -> std::convertible_to<int>;
  { p.candidates() } -> std::convertible_to<const std::vector<typename P::Action>&>;
};

// Per family. Throws model::InputError naming kmc.yaml's line for an unknown family.
template <HasFamilies P>
std::vector<Fairness> fairness_for(const P& p, const std::vector<model::FairnessSpec>& overrides) {
  const auto names = p.families();
  std::vector<Fairness> out;
  for (int f : p.default_fairness()) out.push_back(static_cast<Fairness>(f));
  for (const auto& spec : overrides) {
    auto it = std::find(names.begin(), names.end(), spec.family);
    if (it == names.end())
      throw model::InputError(
          spec.pos, "fairness." + spec.family,
          fmt::format("unknown action family; expected one of {}", fmt::join(names, ", ")));
    out[it - names.begin()] = static_cast<Fairness>(spec.kind);
  }
  return out;
}

// Sets options.fairness and the labels the report prints: per action
// instance or per family as kmc.yaml's `fairness: {per: ...}` says, and by
// default per instance when there are at most 64 (the checker's mask width),
// else per family. Per instance past 64 is an input error at that line.
template <HasFamilies P>
void plan_fairness(const P& p, const model::Fleet& fleet, CheckOptions& options) {
  const auto per_family = fairness_for(p, fleet.fairness);
  const auto names = p.families();
  options.fairness_labels.clear();
  for (std::size_t f = 0; f < names.size(); ++f)
    options.fairness_labels.push_back(names[f] + " " + to_string(per_family[f]));
  const auto& candidates = p.candidates();
  using Unit = model::Fleet::FairnessUnit;
  if (fleet.fairness_unit == Unit::Instance && candidates.size() > 64)
    throw model::InputError(
        fleet.fairness_unit_pos, "fairness.per",
        fmt::format("per action instance needs at most 64 instances, and this scenario has {}; "
                    "say `per: family`, or check fewer jobs and workers",
                    candidates.size()));
  if (candidates.size() > 64 || fleet.fairness_unit == Unit::Family) {
    options.fairness = per_family;
    options.per_instance = false;
    options.fairness_labels.push_back("(per action family)");
    return;
  }
  options.fairness.clear();
  for (const auto& a : candidates) options.fairness.push_back(per_family[p.family(a)]);
  options.per_instance = true;
  options.fairness_labels.push_back("(per action instance)");
}

}  // namespace kmc::checker
