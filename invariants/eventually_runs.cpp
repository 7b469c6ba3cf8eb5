// L4, admission progress (known-bugs.md): every job that some worker could
// run eventually runs (or has run). A leads-to property, so its verdict
// depends on the fairness assumed per action family, which the report
// prints beside it. Not in the default set: a liveness verdict means
// nothing until someone has said what is fair.
#include "invariants/multikueue_progress.hpp"
#include "invariants/multikueue_registry.hpp"

namespace kmc::invariants {

MkProperty eventually_runs(const protocols::MultiKueue& p) {
  using State = protocols::MultiKueue::State;
  return MkProperty::leads_to(
             "eventually-runs", "every job that some worker could run eventually runs",
             {.subjects = p.params().J(),
              .premise = [&p](const State& s, int j) { return waiting_while_runnable(p, s, j); },
              .goal = [&p](const State& s, int j) { return has_run(p, s, j); }})
      .over("job");
}

}  // namespace kmc::invariants
