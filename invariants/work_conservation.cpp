// Work conservation (issue 12, item 6): no job waits at the manager forever
// while a worker that runs nothing could run it. Weaker than eventually-runs
// (the job need not run, only stop waiting beside an idle worker: dispatched,
// or the worker busy) and stronger than no-stuck-job (the waiting need not be
// frozen: a dispatcher that keeps retrying on a dry region while another sits
// idle fails it). A leads-to from the premise to its negation, so its verdict
// depends on fairness, like eventually-runs; not in the default set.
#include "invariants/multikueue_progress.hpp"
#include "invariants/multikueue_registry.hpp"

namespace kmc::invariants {

MkProperty work_conservation(const protocols::MultiKueue& p) {
  using State = protocols::MultiKueue::State;
  return MkProperty::leads_to(
             "work-conservation",
             "no job waits at the manager forever while a worker that could run it idles",
             {.subjects = p.params().J(),
              .premise = [&p](const State& s, int j) { return waits_beside_idle_worker(p, s, j); },
              .goal = [&p](const State& s, int j) { return !waits_beside_idle_worker(p, s, j); }})
      .over("job");
}

}  // namespace kmc::invariants
