// The kube-scheduler baseline's state predicates, written once over V as its
// rules are: explicit search calls them at std::int64_t
// (kube_scheduler_gang.cpp), the SMT engines at sym::Int
// (counterexamples/kube_scheduler/symbolic.cpp).
#pragma once

#include "protocols/kube_scheduler/spec.hpp"

namespace kmc::invariants::ks {

template <class V>
using Bool = decltype(std::declval<V>() == std::declval<V>());

// No node has more bound to it than it can allocate.
template <class V>
Bool<V> node_within_allocatable(const protocols::ks::SchedulerParams& p,
                                const protocols::ks::State<V>& s, model::Values<V> val) {
  const protocols::ks::Rules<V> rules(p, val);
  Bool<V> ok = val.truth(true);
  for (int n = 0; n < p.N(); ++n)
    for (int r = 0; r < p.R(); ++r) ok = ok && rules.free(s, n, r) >= 0;
  return ok;
}

// Some Job has all its pods bound and runs.
template <class V>
Bool<V> some_job_runs(const protocols::ks::SchedulerParams& p, const protocols::ks::State<V>& s,
                      model::Values<V> val) {
  Bool<V> any = val.truth(false);
  for (int j = 0; j < p.J(); ++j) any = any || s.phase[j] == protocols::ks::kRunning;
  return any;
}

}  // namespace kmc::invariants::ks
