// What "a job should make progress" means, shared by the stuck and the
// liveness properties so they can never disagree about it.
#pragma once

#include <string>
#include <vector>

#include "protocols/multikueue.hpp"

namespace kmc::invariants {

// Worker w could run job j now: its ClusterQueue there admits j's namespace,
// and physical capacity and quota hold the whole job in one flavor, not
// counting j's own reservation there.
bool could_run_on(const protocols::MultiKueue& p, const protocols::MultiKueue::State& s, int j,
                  int w);
// Job j has not run yet and some worker could run it now.
bool waiting_while_runnable(const protocols::MultiKueue& p, const protocols::MultiKueue::State& s,
                            int j);
// Job j waits at the manager (queued, or reserved and not yet dispatched to a worker) while a
// worker that runs nothing could run it now: work-conservation's premise.
bool waits_beside_idle_worker(const protocols::MultiKueue& p, const protocols::MultiKueue::State& s,
                              int j);
// Job j runs or has finished.
bool has_run(const protocols::MultiKueue& p, const protocols::MultiKueue::State& s, int j);
// The step from -> to retries job j: a ProvisioningRequest of one of its
// copies Failed or timed out (attempts grows: the check goes Retry, or
// Rejected past backoffLimitCount), the manager evicted it and requeued it
// (QuotaReserved or Admitted back to Pending: RetryDispatch), or the
// dispatcher dropped a rejected copy's worker to nominate again
// (Renominate). Selecting a worker also clears nominations, but it moves
// the job forward, so it is not a retry.
bool retried(const protocols::MultiKueue& p, const protocols::MultiKueue::State& from,
             const protocols::MultiKueue::State& to, int j);
std::vector<std::string> workers_able_to_run(const protocols::MultiKueue& p,
                                             const protocols::MultiKueue::State& s, int j);

}  // namespace kmc::invariants
