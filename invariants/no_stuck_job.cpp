// The accept-then-hang (GPU Hunter, K22/K25): a job that has not run yet,
// that some worker could run right now (free physical capacity and free
// quota in the ClusterQueue its LocalQueue points to there), and that no
// sequence of actions — the controllers', the autoscalers', the
// environment's — can ever change again. The checker decides "ever" over
// the explored graph (checker/stuck.hpp); this file says what a job's
// state is and when it should move.
#include <fmt/format.h>

#include "invariants/multikueue_registry.hpp"
#include "model/fingerprint.hpp"

namespace kmc::invariants {

namespace {

using protocols::MultiKueue;

std::uint64_t job_key(const MultiKueue& p, const MultiKueue::State& s, int j) {
  model::Hasher h;
  for (auto v : {s.phase[j], s.cluster[j], s.mgr_flavor[j]}) h.word(static_cast<std::uint64_t>(v));
  for (int w = 0; w < p.params().W(); ++w) {
    const int i = p.jw(j, w);
    for (auto v : {s.nominated[i], s.remote[i], s.remote_flavor[i], s.prov[i], s.attempts[i]})
      h.word(static_cast<std::uint64_t>(v));
  }
  return model::mix64(h.h);
}

// Could worker w run job j now: physical capacity and ClusterQueue quota
// for the whole job in one flavor, not counting j's own reservation there?
bool could_run_on(const MultiKueue& p, const MultiKueue::State& s, int j, int w) {
  const auto& mp = p.params();
  const int cq = mp.worker_cq[w][j];
  if (cq < 0) return false;
  const auto& q = mp.cqs[cq];
  const auto own = s.remote_flavor[p.jw(j, w)];
  for (std::size_t f = 0; f < q.flavors.size(); ++f) {
    bool ok = true;
    for (int r = 0; r < mp.R() && ok; ++r) {
      const auto need = mp.req(j, r);
      if (need == 0) continue;
      const auto nominal = q.nominal[f * mp.R() + r];
      const auto used = s.usage[p.u(cq, static_cast<int>(f), r)] - (own == static_cast<std::int64_t>(f) ? need : 0);
      const auto booked = s.prov[p.jw(j, w)] == protocols::kProvProvisioned && own == static_cast<std::int64_t>(f) ? need : 0;
      ok = nominal >= 0 && used + need <= nominal && s.capacity[p.c(w, q.flavor_slot[f], r)] + booked >= need;
    }
    if (ok) return true;
  }
  return false;
}

bool waiting(const MultiKueue& p, const MultiKueue::State& s, int j) {
  if (s.phase[j] == protocols::kMgrFinished) return false;
  for (int w = 0; w < p.params().W(); ++w)
    if (s.remote[p.jw(j, w)] == protocols::kRemoteRunning) return false;
  return true;
}

}  // namespace

MkProperty no_stuck_job(const protocols::MultiKueue& p) {
  MkProperty prop;
  prop.name = "no-stuck-job";
  prop.description = "no job waits forever, frozen, while some worker could run it";
  prop.kind = model::PropertyKind::StuckFree;
  prop.subjects = p.params().J();
  prop.key = [&p](const MultiKueue::State& s, int j) { return job_key(p, s, j); };
  prop.should_move = [&p](const MultiKueue::State& s, int j) {
    if (!waiting(p, s, j)) return false;
    for (int w = 0; w < p.params().W(); ++w)
      if (could_run_on(p, s, j, w)) return true;
    return false;
  };
  prop.explain = [&p](const MultiKueue::State& s, int j) {
    std::vector<std::string> able;
    for (int w = 0; w < p.params().W(); ++w)
      if (could_run_on(p, s, j, w)) able.push_back(p.params().workers[w]);
    return fmt::format("job {} can never change again, yet {} could run it now", p.params().jobs[j],
                       fmt::join(able, " and "));
  };
  return prop;
}

}  // namespace kmc::invariants
