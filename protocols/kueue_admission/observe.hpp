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

// w waits, is not within its guarantee, and would be were the quota of the
// workloads its own ClusterQueue orders ahead of it (higher priority, or one
// priority and queued before) given back. Kueue guarantees a queue its
// nominal quota, not each workload: these took it first by Kueue's order,
// so w's guarantee is not owed while they hold it.
bool overtaken(const Scheduler& sched, const XState& s, int w);

// The quota held by workloads not being evicted stays within every limit
// of the cohort tree; empty when it does, else the first cell over, in words.
std::string over_admission(const Scheduler& sched, const XState& s);

// A ClusterQueue's head waits for its victims to stop while the workload
// behind it could go ahead now: were the head's claim granted already (the
// head admitted, its victims still holding), the next scheduling cycle would
// admit it or have it evict victims of its own, beside every other queue's
// head as Kueue orders them. -1 when none does, else that workload.
int blocked_behind_head(const Scheduler& sched, const XState& s, int cq);

// The same across the queues of a cohort (K11): cq's head waits for its
// victims, the scheduling cycle now skips the head of another ClusterQueue
// of its cohort, and with the head's claim granted the next cycle lets that
// queue go ahead. -1 when none is, else who goes ahead.
int held_back_in_cohort(const Scheduler& sched, const XState& s, int cq);

}  // namespace kmc::protocols::ka
