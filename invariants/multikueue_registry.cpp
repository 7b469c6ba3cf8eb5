#include "invariants/multikueue_registry.hpp"

#include "model/user_properties.hpp"

namespace kmc::invariants {

std::vector<MkProperty> multikueue_properties(const protocols::MultiKueue& p) {
  return model::with_user_properties(
      {no_job_on_two_workers(p), cluster_queue_within_quota(p), quota_counted_once(p),
       no_stuck_job(p), some_job_runs(p), eventually_runs(p), no_endless_retry(p),
       work_conservation(p)},
      p, p.params().user_properties);
}

std::vector<std::string> default_properties(const protocols::MultiKueue& p) {
  return model::default_properties(multikueue_properties(p));
}

void require_known_properties(const protocols::MultiKueue& p, const std::vector<std::string>& names,
                              const model::SourcePos& where, const std::string& field) {
  model::require_known(multikueue_properties(p), names, where, field);
}

}  // namespace kmc::invariants
