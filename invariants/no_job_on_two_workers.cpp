// I4, single placement: at most one worker runs a job's pods. AllAtOnce may
// hold copies (even Admitted ones) on several workers while dispatch is in
// flight; only the selected copy may run. The predicate is multikueue_safety.hpp's,
// shared with the SMT engines.
#include "invariants/multikueue_registry.hpp"
#include "invariants/multikueue_safety.hpp"

namespace kmc::invariants {

MkProperty no_job_on_two_workers(const protocols::MultiKueue& p) {
  auto holds = [&p](const protocols::MultiKueue::State& s) {
    return mk::no_job_on_two_workers<std::int64_t>(p.params(), s, {});
  };
  return MkProperty::always("no-job-on-two-workers", "no job runs on two workers at once",
                            {.holds = holds});
}

}  // namespace kmc::invariants
