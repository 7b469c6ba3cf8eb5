// I3, exact accounting, and what Kueue promises across clusters.
//
// Every ClusterQueue's stored usage equals the requests of the distinct
// workloads holding a reservation there, each counted once (on the manager:
// the job's local Workload; on a worker: its copy). Across workers Kueue
// promises less: while dispatch is in flight AllAtOnce lets every copy
// reserve (K36, by design); once the manager has selected a worker, the job
// holds worker quota on that worker only.
#include "invariants/multikueue_registry.hpp"

namespace kmc::invariants {

namespace {

using protocols::MultiKueue;

bool usage_matches_holders(const MultiKueue& p, const MultiKueue::State& s) {
  const auto& mp = p.params();
  std::vector<std::int64_t> expected(s.usage.size(), 0);
  for (int j = 0; j < mp.J(); ++j) {
    const bool reserved =
        s.phase[j] == protocols::kMgrQuotaReserved || s.phase[j] == protocols::kMgrAdmitted;
    if (reserved && s.mgr_flavor[j] >= 0)
      for (int r = 0; r < mp.R(); ++r)
        expected[p.u(mp.manager_cq[j], static_cast<int>(s.mgr_flavor[j]), r)] += mp.req(j, r);
    for (int w = 0; w < mp.W(); ++w) {
      const auto phase = s.remote[p.jw(j, w)];
      const bool holds = phase == protocols::kRemoteQuotaReserved ||
                         phase == protocols::kRemoteAdmitted || phase == protocols::kRemoteRunning;
      const auto f = s.remote_flavor[p.jw(j, w)];
      if (holds && f >= 0)
        for (int r = 0; r < mp.R(); ++r)
          expected[p.u(mp.worker_cq[w][j], static_cast<int>(f), r)] += mp.req(j, r);
    }
  }
  return expected == s.usage;
}

bool selected_holds_one_worker(const MultiKueue& p, const MultiKueue::State& s) {
  const auto& mp = p.params();
  for (int j = 0; j < mp.J(); ++j) {
    if (s.cluster[j] < 0) continue;
    for (int w = 0; w < mp.W(); ++w) {
      const auto phase = s.remote[p.jw(j, w)];
      const bool holds = phase == protocols::kRemoteQuotaReserved ||
                         phase == protocols::kRemoteAdmitted || phase == protocols::kRemoteRunning;
      if (holds && w != s.cluster[j]) return false;
    }
  }
  return true;
}

}  // namespace

MkProperty quota_counted_once(const protocols::MultiKueue& p) {
  return MkProperty::always("quota-counted-once",
                            "every ClusterQueue's usage is the sum of its distinct holders, and a "
                            "job selected for a worker holds "
                            "worker quota nowhere else",
                            {.holds = [&p](const MultiKueue::State& s) {
                              return usage_matches_holders(p, s) && selected_holds_one_worker(p, s);
                            }});
}

}  // namespace kmc::invariants
