// "Can still thrash" (the talk, on check-capacity) and "too short and you
// abandon a node that was about to boot" (on the ProvisioningRequest
// timeout): no job retries forever while some worker could run it. A fair
// behaviour violates it when, from some point on, the job waits while
// runnable (eventually-runs' premise) in every state and a retry step
// (multikueue_progress.hpp: retried) happens again and again. A frozen job
// retries nothing: that is no-stuck-job's to find. Like eventually-runs it
// depends on fairness and runs only when named.
#include <fmt/format.h>

#include "invariants/multikueue_progress.hpp"
#include "invariants/multikueue_registry.hpp"

namespace kmc::invariants {

MkProperty no_endless_retry(const protocols::MultiKueue& p) {
  using protocols::MultiKueue;
  return MkProperty::recurrence_free(
             "no-endless-retry", "no job retries forever while some worker could run it",
             {.subjects = p.params().J(),
              .premise = [&p](const MultiKueue::State& s,
                              int j) { return waiting_while_runnable(p, s, j); },
              .step = [&p](const MultiKueue::State& from, const MultiKueue::State& to,
                           int j) { return retried(p, from, to, j); }},
             [&p](const MultiKueue::State& s, int j) {
               return fmt::format("job {} retries forever, and {} could run it all along",
                                  p.params().jobs[j],
                                  fmt::join(workers_able_to_run(p, s, j), " or "));
             })
      .over("job");
}

}  // namespace kmc::invariants
