// Fair sharing: dominant resource share, the tournament between ClusterQueue
// heads and fair preemption (kueue-semantics.md §4.7).
#include "engine/preemption.hpp"
#include "engine/scheduler.hpp"

namespace kmc::engine {

// Placeholder until the tournament lands: classical order, one at a time.
Entry* pop_fair_sharing(const Engine& engine, Snapshot& snapshot, std::vector<Entry*>& remaining) {
  (void)snapshot;
  order_classical(engine, remaining);
  Entry* first = remaining.front();
  remaining.erase(remaining.begin());
  return first;
}

std::vector<Target> fair_preemptions(PreemptionCtx& ctx) { return classical_preemptions(ctx); }

}  // namespace kmc::engine
