// The accept-then-hang (GPU Hunter, K22/K25): a job that has not run yet,
// that some worker could run right now (free physical capacity and free
// quota in the ClusterQueue its LocalQueue points to there), and that no
// sequence of actions — the controllers', the autoscalers', the
// environment's — can ever change again. The checker decides "ever" over
// the explored graph (checker/stuck.hpp); this file says what a job's
// state is and when it should move.
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "invariants/multikueue_progress.hpp"
#include "invariants/multikueue_registry.hpp"
#include "model/fingerprint.hpp"

namespace kmc::invariants {

namespace {

using protocols::MultiKueue;

// A job's fields are small integers (phases, worker and flavor indices with
// -1 for none, attempts under the retry limit), so four of them share each
// hashed word as 16-bit lanes. The key is computed for every job on every
// edge: with one hashed word per field it took 8.9% of a search of
// examples/three-workers, with four fields per word 7.4% (the rest is
// reading the fields).
class LaneHasher {
 public:
  void add(std::int64_t v) {
    word_ |= std::uint64_t{static_cast<std::uint16_t>(v)} << 16 * lanes_;
    if (++lanes_ == 4) flush();
  }
  std::uint64_t done() {
    if (lanes_ > 0) flush();
    return h_.done();
  }

 private:
  void flush() { h_.word(word_), word_ = 0, lanes_ = 0; }
  model::KeyHasher h_;
  std::uint64_t word_ = 0;
  int lanes_ = 0;
};

std::uint64_t job_key(const MultiKueue& p, const MultiKueue::State& s, int j) {
  LaneHasher h;
  for (auto v : {s.phase[j], s.cluster[j], s.mgr_flavor[j]}) h.add(v);
  for (int w = 0; w < p.params().W(); ++w) {
    const int i = p.jw(j, w);
    for (auto v : {s.nominated[i], s.remote[i], s.remote_flavor[i], s.prov[i], s.attempts[i]})
      h.add(v);
  }
  return h.done();
}

// Where the manager's namespaceSelector is why a job never moves, the detail
// says so (MkParams::namespace_mismatch). A worker that never admits it is
// not one that could run it (could_run_on), so it is never named.
std::string namespace_note(const protocols::MkParams& mp, int j) {
  if (!mp.mismatched(-1, j)) return "";
  return " (the manager never admits it: its ClusterQueue's namespaceSelector leaves the "
         "namespace out)";
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
               return fmt::format(
                   "job {} can never change again, yet {} could run it now{}", p.params().jobs[j],
                   fmt::join(workers_able_to_run(p, s, j), " and "), namespace_note(p.params(), j));
             })
      .over("job");
}

}  // namespace kmc::invariants
