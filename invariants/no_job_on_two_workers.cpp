// I4, single placement: at most one worker runs a job's pods. AllAtOnce may
// hold copies (even Admitted ones) on several workers while dispatch is in
// flight; only the selected copy may run.
#include "invariants/multikueue_registry.hpp"

namespace kmc::invariants {

MkProperty no_job_on_two_workers(const protocols::MultiKueue& p) {
  auto holds = [&p](const protocols::MultiKueue::State& s) {
    for (int j = 0; j < p.params().J(); ++j) {
      int running = 0;
      for (int w = 0; w < p.params().W(); ++w)
        running += s.remote[p.jw(j, w)] == protocols::kRemoteRunning;
      if (running > 1) return false;
    }
    return true;
  };
  return MkProperty::always("no-job-on-two-workers", "no job runs on two workers at once",
                            {.holds = holds});
}

}  // namespace kmc::invariants
