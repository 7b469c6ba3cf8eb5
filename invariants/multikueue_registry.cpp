#include "invariants/multikueue_registry.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kmc::invariants {

std::vector<MkProperty> multikueue_properties(const protocols::MultiKueue& p) {
  return {no_job_on_two_workers(p), cluster_queue_within_quota(p), quota_counted_once(p), no_stuck_job(p),
          some_job_runs(p), eventually_runs(p), no_endless_retry(p)};
}

std::vector<std::string> default_properties(const protocols::MultiKueue& p) {
  std::vector<std::string> names;
  for (const auto& prop : multikueue_properties(p))
    if (!model::is_liveness(prop.kind())) names.push_back(prop.name());
  return names;
}

void require_known_properties(const protocols::MultiKueue& p, const std::vector<std::string>& names,
                              const model::SourcePos& where, const std::string& field) {
  std::vector<std::string> known;
  for (const auto& prop : multikueue_properties(p)) known.push_back(prop.name());
  for (const auto& name : names)
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw model::InputError(model::Diagnostic{
          where, field, fmt::format("unknown property '{}'; expected one of {}", name, fmt::join(known, ", "))});
}

}  // namespace kmc::invariants
