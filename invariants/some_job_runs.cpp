// The guard against vacuity: in some reachable state a job runs on a worker.
// A scenario so constrained that nothing ever runs fails here instead of
// passing every safety property.
#include "invariants/multikueue_registry.hpp"

namespace kmc::invariants {

MkProperty some_job_runs(const protocols::MultiKueue& p) {
  auto holds = [&p](const protocols::MultiKueue::State& s) {
    for (int i = 0; i < p.params().J() * p.params().W(); ++i)
      if (s.remote[i] == protocols::kRemoteRunning) return true;
    return false;
  };
  return MkProperty::sometimes("some-job-runs", "some job runs on a worker", {.holds = holds});
}

}  // namespace kmc::invariants
