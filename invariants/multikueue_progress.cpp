#include "invariants/multikueue_progress.hpp"

namespace kmc::invariants {

using protocols::MultiKueue;

bool could_run_on(const MultiKueue& p, const MultiKueue::State& s, int j, int w) {
  const auto& mp = p.params();
  const int cq = mp.worker_cq[w][j];
  // No LocalQueue there, or a ClusterQueue whose namespaceSelector leaves the job out: that
  // worker's scheduler never admits it, as the engine's probe finds (engine_view.cpp).
  if (cq < 0 || mp.mismatched(w, j)) return false;
  const auto& q = mp.cqs[cq];
  const auto own = s.remote_flavor[p.jw(j, w)];
  for (std::size_t f = 0; f < q.flavors.size(); ++f) {
    bool ok = true;
    for (int r = 0; r < mp.R() && ok; ++r) {
      const auto need = mp.req(j, r);
      if (need == 0) continue;
      const auto nominal = q.nominal[f * mp.R() + r];
      const auto used = s.usage[p.u(cq, static_cast<int>(f), r)] -
                        (own == static_cast<std::int64_t>(f) ? need : 0);
      const auto booked =
          s.prov[p.jw(j, w)] == protocols::kProvProvisioned && own == static_cast<std::int64_t>(f)
              ? need
              : 0;
      ok = nominal >= 0 && used + need <= nominal &&
           s.capacity[p.c(w, q.flavor_slot[f], r)] + booked >= need;
    }
    if (ok) return true;
  }
  return false;
}

namespace {

bool not_yet_run(const MultiKueue& p, const MultiKueue::State& s, int j) {
  if (s.phase[j] == protocols::kMgrFinished) return false;
  for (int w = 0; w < p.params().W(); ++w)
    if (s.remote[p.jw(j, w)] == protocols::kRemoteRunning) return false;
  return true;
}

}  // namespace

bool waiting_while_runnable(const MultiKueue& p, const MultiKueue::State& s, int j) {
  if (!not_yet_run(p, s, j)) return false;
  for (int w = 0; w < p.params().W(); ++w)
    if (could_run_on(p, s, j, w)) return true;
  return false;
}

bool waits_beside_idle_worker(const MultiKueue& p, const MultiKueue::State& s, int j) {
  using namespace protocols;
  const bool at_manager =
      s.phase[j] == kMgrPending || (s.phase[j] == kMgrQuotaReserved && s.cluster[j] == -1);
  if (!at_manager) return false;
  const auto& mp = p.params();
  for (int w = 0; w < mp.W(); ++w) {
    bool idle = true;
    for (int k = 0; k < mp.J() && idle; ++k) idle = s.remote[p.jw(k, w)] != kRemoteRunning;
    if (idle && could_run_on(p, s, j, w)) return true;
  }
  return false;
}

bool has_run(const MultiKueue& p, const MultiKueue::State& s, int j) {
  return !not_yet_run(p, s, j);
}

bool retried(const MultiKueue& p, const MultiKueue::State& from, const MultiKueue::State& to,
             int j) {
  using namespace protocols;
  const bool requeued = (from.phase[j] == kMgrQuotaReserved || from.phase[j] == kMgrAdmitted ||
                         from.phase[j] == kMgrEvicted) &&
                        to.phase[j] == kMgrPending;
  if (requeued) return true;
  const bool still_dispatching = to.phase[j] == kMgrQuotaReserved && to.cluster[j] == -1;
  for (int w = 0; w < p.params().W(); ++w) {
    const int i = p.jw(j, w);
    if (to.attempts[i] > from.attempts[i]) return true;
    if (still_dispatching && from.nominated[i] == 1 && to.nominated[i] == 0) return true;
  }
  return false;
}

std::vector<std::string> workers_able_to_run(const MultiKueue& p, const MultiKueue::State& s,
                                             int j) {
  std::vector<std::string> able;
  for (int w = 0; w < p.params().W(); ++w)
    if (could_run_on(p, s, j, w)) able.push_back(p.params().workers[w]);
  return able;
}

}  // namespace kmc::invariants
