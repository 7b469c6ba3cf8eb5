// waitForPodsReady.blockAdmission: the scheduling goroutine asleep inside
// processEntry, and what it does on waking (scheduler.go
// waitForPodsReadyIfNeeded, then admit).
#include "protocols/kueue_admission/scheduler.hpp"

namespace kmc::protocols::ka {

Scheduler::BlockedEntry Scheduler::blocked_entry(const XState& s) const {
  if (s.blocked.empty() || s.blocked[0] == 0) return {};
  const auto code = static_cast<int>(s.blocked[0]) - 1;
  return {code / p_.F(), code % p_.F()};
}

void Scheduler::block(XState& s, int w, int f) const {
  s.blocked[0] = 1 + std::int64_t{w} * p_.F() + f;
}

void Scheduler::wake(XState& s, CycleOutcome* out) const {
  const BlockedEntry e = blocked_entry(s);
  s.blocked[0] = 0;
  // Its status patch (QuotaReserved False, WaitingForPodsReady) put it back in
  // its heap meanwhile, and nothing else popped it: no cycle ran. Scheduler.admit
  // plans nothing again: the assignment stands, though an edit may have cut the
  // quota it counted on since (cache.AddOrUpdateWorkload checks no quota). A
  // workload deleted meanwhile fails the admission patch (NotFound) and is
  // dropped; so is one whose ClusterQueue left the cache (the assume fails).
  const Phase phase = static_cast<Phase>(s.phase[e.w]);
  // In backoff (its cycle requeued it so, or its LocalQueue stopped) it is admitted all the
  // same: processEntry reads no backoff.
  const bool waiting =
      phase == kPending || phase == kInadmissible || phase == kQueuedInBackoff || phase == kBackoff;
  const int cq = p_.workloads[e.w].cq;
  const bool in_cache =
      !p_.any_cq_deletions() || s.deletion[static_cast<std::size_t>(cq)] != kCqGone;
  if (!waiting || !in_cache) return;
  reserve(s, e.w, e.flavor, !patch_in_flight(s));
  status_changed(s, cq);
  if (out != nullptr) out->acted.push_back(e.w);
}

}  // namespace kmc::protocols::ka
