// The guard against vacuity: in some reachable state a job runs on a worker.
// A scenario so constrained that nothing ever runs fails here instead of
// passing every safety property. The predicate is multikueue_safety.hpp's,
// shared with bounded model checking, which looks for a witness.
#include "invariants/multikueue_registry.hpp"
#include "invariants/multikueue_safety.hpp"

namespace kmc::invariants {

MkProperty some_job_runs(const protocols::MultiKueue& p) {
  auto holds = [&p](const protocols::MultiKueue::State& s) {
    return mk::some_job_runs<std::int64_t>(p.params(), s, {});
  };
  return MkProperty::sometimes("some-job-runs", "some job runs on a worker", {.holds = holds});
}

}  // namespace kmc::invariants
