// The accept-then-hang (GPU Hunter, K22/K25): a job that has not run yet,
// that some worker could run right now (free physical capacity and free
// quota in the ClusterQueue its LocalQueue points to there), and that no
// sequence of actions — the controllers', the autoscalers', the
// environment's — can ever change again. The checker decides "ever" over
// the explored graph (checker/stuck.hpp); this file says what a job's
// state is and when it should move.
#include <fmt/format.h>

#include "invariants/multikueue_progress.hpp"
#include "invariants/multikueue_registry.hpp"
#include "model/fingerprint.hpp"

namespace kmc::invariants {

namespace {

using protocols::MultiKueue;

std::uint64_t job_key(const MultiKueue& p, const MultiKueue::State& s, int j) {
  model::KeyHasher h;  // computed for every edge: the cheap hash
  for (auto v : {s.phase[j], s.cluster[j], s.mgr_flavor[j]}) h.word(static_cast<std::uint64_t>(v));
  for (int w = 0; w < p.params().W(); ++w) {
    const int i = p.jw(j, w);
    for (auto v : {s.nominated[i], s.remote[i], s.remote_flavor[i], s.prov[i], s.attempts[i]})
      h.word(static_cast<std::uint64_t>(v));
  }
  return h.done();
}

}  // namespace

MkProperty no_stuck_job(const protocols::MultiKueue& p) {
  return MkProperty::stuck_free(
             "no-stuck-job", "no job waits forever, frozen, while some worker could run it",
             {.subjects = p.params().J(),
              .key = [&p](const MultiKueue::State& s, int j) { return job_key(p, s, j); },
              .should_move = [&p](const MultiKueue::State& s,
                                  int j) { return waiting_while_runnable(p, s, j); }},
             [&p](const MultiKueue::State& s, int j) {
               return fmt::format("job {} can never change again, yet {} could run it now",
                                  p.params().jobs[j],
                                  fmt::join(workers_able_to_run(p, s, j), " and "));
             })
      .over("job");
}

}  // namespace kmc::invariants
