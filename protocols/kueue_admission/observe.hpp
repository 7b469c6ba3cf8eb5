// Questions the properties ask of a state, in Kueue's terms: what a
// workload is guaranteed (its ClusterQueue's nominal quota, after what it
// may preempt), whether a head waits for its victims, whether a workload
// behind it could be admitted now. Written on the scheduler's own
// arithmetic (quota.hpp), so a property and the cycle agree on what fits.
#pragma once

#include <string>

#include "protocols/kueue_admission/scheduler.hpp"

namespace kmc::protocols::ka {

// w waits (Pending or Inadmissible) and some flavor of its ClusterQueue
// would take it within the queue's nominal quota once every workload it
// may preempt under the queue's policies were gone.
bool guaranteed(const Scheduler& sched, const XState& s, int w);

// The quota held by workloads not being evicted stays within every limit
// of the cohort tree; empty when it does, else the first cell over, in words.
std::string over_admission(const Scheduler& sched, const XState& s);

// A ClusterQueue's head waits for its victims to stop while another
// workload of that queue waits behind it that could go ahead now: it would
// fit, or have victims of its own to preempt, beside what the head waits
// for. -1 when none does, else that workload.
int blocked_behind_head(const Scheduler& sched, const XState& s, int cq);

}  // namespace kmc::protocols::ka
