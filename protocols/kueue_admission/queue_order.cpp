// The heap's order among waiting workloads (kueue-semantics.md §2.1), as far
// as the state moves it: GetQueueOrderTimestamp is a workload's
// creationTimestamp, except for one a check or a PodsReady timeout evicted
// (Evicted with reason AdmissionCheck or PodsReadyTimeout, and
// requeuingStrategy.timestamp Eviction), which waits in order of that eviction,
// and, with PrioritySortingWithinCohort off, one preempted with reason
// InCohortReclaimWhileBorrowing, which waits from that preemption (plus 1 ms,
// after everything on the timeline at that moment).
//
// Workloads there from the start keep their static order (the params' queue
// order). Later points in time, an arrival's creation and such an eviction,
// are ranks on one timeline (`born`, `requeued`), kept dense so that states
// that order their workloads alike are one state.
#include <algorithm>
#include <map>

#include "protocols/kueue_admission/scheduler.hpp"

namespace kmc::protocols::ka {

namespace {

// The workload's point on the timeline; -1: its creation (static, before every point).
std::int64_t key(const XState& s, int w) {
  return s.requeued[w] >= 0 ? s.requeued[w] : s.born[w];
}

// Ranks 0..n-1 in place of the values in use, their order kept.
void compact(XState& s) {
  std::map<std::int64_t, std::int64_t> rank;
  for (auto v : s.requeued)
    if (v >= 0) rank[v] = 0;
  for (auto v : s.born)
    if (v >= 0) rank[v] = 0;
  std::int64_t n = 0;
  for (auto& [v, r] : rank) r = n++;
  for (auto& v : s.requeued)
    if (v >= 0) v = rank[v];
  for (auto& v : s.born)
    if (v >= 0) v = rank[v];
}

std::int64_t next_point(const XState& s) {
  std::int64_t most = -1;
  for (auto v : s.requeued) most = std::max(most, v);
  for (auto v : s.born) most = std::max(most, v);
  return most + 1;
}

}  // namespace

bool Scheduler::older(const XState& s, int a, int b) const {
  const auto ka = order_moves_ ? key(s, a) : -1, kb = order_moves_ ? key(s, b) : -1;
  if (ka < 0 && kb < 0) return p_.workloads[a].created < p_.workloads[b].created;
  if (ka < 0 || kb < 0) return ka < 0;
  return ka < kb;
}

bool Scheduler::queued_before(const XState& s, int a, int b) const {
  if (older(s, a, b)) return true;
  if (older(s, b, a)) return false;
  return p_.workloads[a].name < p_.workloads[b].name;
}

Phase Scheduler::pushed_phase(const XState& s, int w) const {
  const int eq = p_.workloads[w].equivalence;
  if (eq < 0 || p_.cqs[p_.workloads[w].cq].strict_fifo) return kPending;
  for (int v = 0; v < p_.W(); ++v)
    // Parked by NamespaceMismatch, it bulk-parked no hash (hashToBulkMoveReason).
    if (v != w && p_.workloads[v].equivalence == eq && s.phase[v] == kInadmissible &&
        !p_.workloads[v].namespace_mismatch)
      return kInadmissible;
  return kPending;
}

void Scheduler::stamp_born(XState& s, int w) const {
  if (!order_moves_) return;
  s.born[w] = next_point(s);
}

void Scheduler::stamp_requeued(XState& s, int w) const {
  if (!order_moves_) return;
  s.requeued[w] = next_point(s);
}

void Scheduler::stamp_reclaimed(XState& s, int w) const {
  if (!order_moves_) return;  // the cells are there: victims_queue_from_preemption()
  stamp_requeued(s, w);
  if (s.phase[w] == kEvicted) s.reclaimed[w] = 1;  // a Pod group, its pods terminating
}

void Scheduler::stamp_timed_out(XState& s, int w, bool terminating) const {
  if (!p_.timeout_requeue_by_creation) return stamp_requeued(s, w);
  // Marked only while the marker is read: a creation-ordered workload in
  // backoff or waiting is otherwise the one that was never evicted.
  if (terminating) s.requeued[w] = kRequeuedInCreationOrder;
}

// The dump's evictions and the creations after the first of them, on the
// timeline in the order of their times; equal times share a rank, and a time
// 1 ms after a second (WorkloadParams::evicted_after) comes after it.
void Scheduler::stamp_dumped_evictions(XState& s) const {
  for (int w = 0; w < p_.W(); ++w) {
    const auto& wl = p_.workloads[w];
    if (wl.evicted_at >= 0)
      s.requeued[w] = 2 * wl.evicted_at + (wl.evicted_after ? 1 : 0);
    else if (p_.born_on_timeline(w) && !wl.arrives)
      s.born[w] = 2 * wl.created;
  }
  compact(s);
}

// Its pods terminate, holding its quota. Their end puts it into a backoff that
// is still ahead (a timeout's by creation is marked), or back in its queue with
// its stamp (reclaimed); with neither, back in its queue by creation.
void Scheduler::resume_dumped_evictions(XState& s) const {
  for (int w = 0; w < p_.W(); ++w) {
    const auto& wl = p_.workloads[w];
    if (!wl.initial_evicted || wl.initial_flavor < 0) continue;  // a Job: released
    s.phase[w] = kEvicted;
    if (!s.ready.empty()) s.ready[w] = 0;  // Evict resets its checks
    if (wl.initial_backoff && s.requeued[w] == kNotRequeued)
      s.requeued[w] = kRequeuedInCreationOrder;
    else if (!wl.initial_backoff && s.requeued[w] >= 0)
      s.reclaimed[w] = 1;
  }
}

void Scheduler::unstamp(XState& s, int w, bool gone) const {
  if (!order_moves_) return;
  s.requeued[w] = kNotRequeued;
  s.reclaimed[w] = 0;
  if (gone) s.born[w] = -1;
  compact(s);
}

}  // namespace kmc::protocols::ka
