#include "invariants/admission_registry.hpp"

#include <algorithm>

#include "model/user_properties.hpp"

namespace kmc::invariants {

std::vector<AdmissionProperty> admission_properties(const AdmissionInstance& p) {
  std::vector<AdmissionProperty> out{no_over_admission(p), usage_counted_once(p),
                                     no_head_of_line_blocking(p), guarantee_not_stuck(p),
                                     some_workload_admitted(p)};
  const auto& w = p.params().workloads;
  if (std::any_of(w.begin(), w.end(), [](const auto& x) { return x.readopts >= 0; }))
    out.push_back(no_workload_for_terminating_pods(p));
  if (p.params().may_push_in_backoff()) out.push_back(no_requeue_before_backoff(p));
  if (p.params().some_preemption_unchecked().empty()) out.push_back(some_preemption(p));
  out.push_back(guarantee_eventually_admitted(p));
  out.push_back(no_preemption_livelock(p));
  return model::with_user_properties(std::move(out), p, p.params().user_properties);
}

}  // namespace kmc::invariants
