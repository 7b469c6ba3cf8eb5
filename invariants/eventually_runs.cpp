// L4, admission progress (known-bugs.md): every job that some worker could
// run eventually runs (or has run). A leads-to property, so its verdict
// depends on the fairness assumed per action family, which the report
// prints beside it. Not in the default set: a liveness verdict means
// nothing until someone has said what is fair.
#include "invariants/multikueue_registry.hpp"
#include "invariants/multikueue_progress.hpp"

namespace kmc::invariants {

MkProperty eventually_runs(const protocols::MultiKueue& p) {
  MkProperty prop;
  prop.name = "eventually-runs";
  prop.description = "every job that some worker could run eventually runs";
  prop.kind = model::PropertyKind::LeadsTo;
  prop.subjects = p.params().J();
  prop.premise = [&p](const protocols::MultiKueue::State& s, int j) { return waiting_while_runnable(p, s, j); };
  prop.goal = [&p](const protocols::MultiKueue::State& s, int j) { return has_run(p, s, j); };
  return prop;
}

}  // namespace kmc::invariants
