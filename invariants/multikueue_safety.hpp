// The MultiKueue state predicates of the always and sometimes properties,
// written once over the value type V as the rules are (model/value.hpp):
// the explicit search instantiates them at std::int64_t (no_job_on_two_workers.cpp
// and its siblings), bounded model checking and k-induction at sym::Int
// (counterexamples/multikueue/symbolic.cpp), so the two engines decide the
// same formula and a disagreement between them is a bug in an engine, never
// in a second encoding. Loops run over parameters only; a branch on V is an
// ite() or a guard combined with &&, ||, !.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/value.hpp"
#include "protocols/multikueue_params.hpp"
#include "protocols/multikueue_state.hpp"

namespace kmc::invariants::mk {

using model::ite;
template <class V>
using Bool = decltype(std::declval<V>() == std::declval<V>());

// I4: at most one worker runs a job's pods.
template <class V>
Bool<V> no_job_on_two_workers(const protocols::MkParams& p, const protocols::MkState<V>& s,
                              model::Values<V> val) {
  Bool<V> ok = val.truth(true);
  for (int j = 0; j < p.J(); ++j) {
    V running = val.lit(0);
    for (int w = 0; w < p.W(); ++w)
      running =
          running + ite(s.remote[p.jw(j, w)] == protocols::kRemoteRunning, val.lit(1), val.lit(0));
    ok = ok && (running <= 1);
  }
  return ok;
}

// I1: no ClusterQueue's usage exceeds its nominal quota (the protocol has no
// cohorts, nothing is borrowed) or goes negative.
template <class V>
Bool<V> cluster_queue_within_quota(const protocols::MkParams& p, const protocols::MkState<V>& s,
                                   model::Values<V> val) {
  Bool<V> ok = val.truth(true);
  for (std::size_t q = 0; q < p.cqs.size(); ++q)
    for (std::size_t f = 0; f < p.cqs[q].flavors.size(); ++f)
      for (int r = 0; r < p.R(); ++r) {
        const V& used = s.usage[p.u(static_cast<int>(q), static_cast<int>(f), r)];
        const std::int64_t nominal = std::max<std::int64_t>(0, p.cqs[q].nominal[f * p.R() + r]);
        ok = ok && (used >= 0) && (used <= nominal);
      }
  return ok;
}

// Whether a remote copy in this phase holds quota on its worker's ClusterQueue.
template <class V>
Bool<V> holds_worker_quota(const V& remote) {
  return remote == protocols::kRemoteQuotaReserved || remote == protocols::kRemoteAdmitted ||
         remote == protocols::kRemoteRunning;
}

// I3: every ClusterQueue's stored usage is the requests of its distinct
// holders, each counted once (the job's manager Workload, or its copy on a
// worker), and a job selected for a worker holds worker quota nowhere else.
template <class V>
Bool<V> quota_counted_once(const protocols::MkParams& p, const protocols::MkState<V>& s,
                           model::Values<V> val) {
  std::vector<V> expected(s.usage.size(), val.lit(0));
  const auto add = [&](int cq, const Bool<V>& holds, const V& flavor, int j) {
    for (int f = 0; f < p.flavors_max; ++f)
      for (int r = 0; r < p.R(); ++r)
        if (p.req(j, r) != 0)
          expected[p.u(cq, f, r)] += ite(holds && flavor == f, val.lit(p.req(j, r)), val.lit(0));
  };
  Bool<V> ok = val.truth(true);
  for (int j = 0; j < p.J(); ++j) {
    const V& phase = s.phase[j];
    // An evicted workload keeps its reservation while its Job reads active (kMgrEvicted).
    add(p.manager_cq[j],
        phase == protocols::kMgrQuotaReserved || phase == protocols::kMgrAdmitted ||
            phase == protocols::kMgrEvicted,
        s.mgr_flavor[j], j);
    for (int w = 0; w < p.W(); ++w) {
      const Bool<V> holds = holds_worker_quota<V>(s.remote[p.jw(j, w)]);
      ok = ok && !(holds && s.cluster[j] >= 0 && s.cluster[j] != w);
      // No LocalQueue for the job there: no ClusterQueue to count a copy in (and none is made).
      if (p.worker_cq[w][j] >= 0) add(p.worker_cq[w][j], holds, s.remote_flavor[p.jw(j, w)], j);
    }
  }
  for (std::size_t i = 0; i < expected.size(); ++i) ok = ok && (expected[i] == s.usage[i]);
  return ok;
}

// The guard against vacuity: some job runs on some worker.
template <class V>
Bool<V> some_job_runs(const protocols::MkParams& p, const protocols::MkState<V>& s,
                      model::Values<V> val) {
  Bool<V> any = val.truth(false);
  for (int i = 0; i < p.J() * p.W(); ++i) any = any || (s.remote[i] == protocols::kRemoteRunning);
  return any;
}

}  // namespace kmc::invariants::mk
