// One scheduling cycle (kueue-semantics.md §2.2, §2.5; scheduler.go's
// schedule and processEntry): every ClusterQueue's head nominated against
// one snapshot, the entries in the classical iterator's order, each
// re-checked against the snapshot as earlier entries changed it.
#include <algorithm>

#include "protocols/kueue_admission/fair_sharing.hpp"
#include "protocols/kueue_admission/scheduler.hpp"

namespace kmc::protocols::ka {

namespace {

struct Entry {
  int w;
  Assignment a;
};

bool overlaps(const std::vector<int>& targets, const std::vector<bool>& preempted) {
  return std::any_of(targets.begin(), targets.end(), [&](int t) { return preempted[t]; });
}

// Kueue before #2641 (v0.7; the MultiplePreemptions gate off in v0.8-v0.9):
// processEntry kept, per cohort, what the cycle's entries reserved
// (cycleCohortsUsage) and whether one of them had preempted or been admitted
// (cycleCohortsSkipPreemption). A later entry of that cohort asking for the
// same flavor and resource was skipped if it was a preemptor after such an
// entry, or a Fit that no longer fit the cohort's quota (FitInCohort, without
// borrowing limits). A head re-issuing preemptions that are already in flight
// counts too: it holds every other queue of its cohort back until its victims
// stop (K11, kubernetes-sigs/kueue#2596).
class OnePreemptionPerCohort {
 public:
  OnePreemptionPerCohort(const QuotaTree& tree, const Snapshot& start)
      : tree_(tree),
        start_(start),
        k_(tree.frs()),
        usage_(static_cast<std::size_t>(tree.nodes()) * k_, 0),
        touched_(usage_.size(), false),
        skip_(static_cast<std::size_t>(tree.nodes()), false) {}

  // Whether the entry of ClusterQueue cq asking for `cells` goes on; if so,
  // `reserve` (resourcesToReserve) is counted against its cohort.
  bool admits(int cq, Mode mode, const std::vector<std::int64_t>& cells,
              const std::vector<std::int64_t>& reserve) {
    if (tree_.parent(cq) < 0) return true;
    const int root = tree_.root(cq);
    bool common = false;
    for (int fr = 0; fr < k_; ++fr) common = common || (cells[fr] > 0 && touched_[at(root, fr)]);
    if (common && mode == Mode::Preempt && skip_[root]) return false;
    if (common && mode == Mode::Fit)
      for (int fr = 0; fr < k_; ++fr)
        if (cells[fr] > 0 && start_.tree().subtree_quota(root, fr) - start_.usage(root, fr) <
                                 usage_[at(root, fr)] + cells[fr])
          return false;
    for (int fr = 0; fr < k_; ++fr)
      if (cells[fr] > 0) usage_[at(root, fr)] += reserve[fr], touched_[at(root, fr)] = true;
    return true;
  }
  // An entry of cq issued preemptions (new or in flight) or was admitted.
  void acted(int cq) {
    if (tree_.parent(cq) >= 0) skip_[tree_.root(cq)] = true;
  }

 private:
  std::size_t at(int node, int fr) const { return static_cast<std::size_t>(node) * k_ + fr; }
  const QuotaTree& tree_;
  const Snapshot& start_;
  int k_;
  std::vector<std::int64_t> usage_;
  std::vector<bool> touched_, skip_;
};

}  // namespace

// updateAssignmentIfNeeded: an entry whose targets overlap the cycle's
// victims is planned again without them, on its nominated flavor (the
// nomination mapping), and a Fit then is DeferredFit.
Assignment Scheduler::replan(const XState& at, const Snapshot& snap,
                             const std::vector<bool>& preempted, int w, int flavor) const {
  Snapshot without = snap;
  for (int v = 0; v < p_.W(); ++v)
    if (preempted[v])
      without.add(p_.workloads[v].cq, static_cast<int>(at.flavor[v]), p_.workloads[v].req, -1);
  Assignment again = assign(at, without, w, preempted, flavor);
  if (again.mode == Mode::Fit) again.mode = Mode::DeferredFit;
  return again;
}

// The fits check: every entry must fit on the projected snapshot, the
// cycle's victims and its own targets gone.
bool Scheduler::fits_projected(const XState& at, const Snapshot& snap,
                               const std::vector<bool>& preempted, int w,
                               const Assignment& a) const {
  Snapshot projected = snap;
  for (int v = 0; v < p_.W(); ++v)
    if (preempted[v] || std::find(a.targets.begin(), a.targets.end(), v) != a.targets.end())
      projected.add(p_.workloads[v].cq, static_cast<int>(at.flavor[v]), p_.workloads[v].req, -1);
  return fits_in(projected, p_.workloads[w].cq, usage_cells(w, a.flavor), true);
}

// The fair-sharing tournament for flat cohorts (fair_sharing_iterator.go):
// within a cohort, the entry whose queue does not borrow on what it asks
// for, then the lowest share with its usage added, then priority, then
// creation. Entries of different trees share nothing, so their order among
// themselves (Go's map order upstream) does not matter; here it is the
// queues' order.
int Scheduler::tournament(const XState& s, const Snapshot& snap, const std::vector<int>& heads,
                          const std::vector<Assignment>& plans,
                          std::vector<bool>& remaining) const {
  int first = -1;
  for (std::size_t i = 0; i < heads.size() && first < 0; ++i)
    if (remaining[i]) first = static_cast<int>(i);
  const int root = snap.tree().root(p_.workloads[heads[first]].cq);
  int best = -1;
  bool best_lends = false;
  Drs best_share;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    const int w = heads[i], cq = p_.workloads[w].cq;
    if (!remaining[i] || snap.tree().root(cq) != root) continue;
    const auto cells = plans[i].flavor >= 0 ? usage_cells(w, plans[i].flavor)
                                            : std::vector<std::int64_t>(snap.tree().frs(), 0);
    const Drs d = drs(p_, snap, cq, cells);
    bool lends = true;  // not borrowing on any cell it requests
    for (int fr = 0; fr < snap.tree().frs(); ++fr)
      if (cells[fr] > 0 && snap.usage(cq, fr) + cells[fr] > snap.tree().subtree_quota(cq, fr))
        lends = false;
    bool wins = best < 0;
    // entryComparer.less: a preemptor first (PrioritizePreemptorWorkloads).
    if (!wins && preemptor(s, w) != preemptor(s, heads[best]))
      wins = preemptor(s, w);
    else if (!wins && lends != best_lends)
      wins = lends;
    else if (!wins && compare_drs(d, best_share) != 0)
      wins = compare_drs(d, best_share) < 0;
    else if (!wins) {
      const auto& x = p_.workloads[w];
      const auto& y = p_.workloads[heads[best]];
      wins = p_.priority_sorting_within_cohort && x.priority != y.priority
                 ? x.priority > y.priority
                 : queued_before(s, w, heads[best]);
    }
    if (wins) best = static_cast<int>(i), best_lends = lends, best_share = d;
  }
  remaining[best] = false;
  return best;
}

// resourcesToReserve for a Preempt entry, as cells: what it could use of
// its ClusterQueue's quota (up to its borrowing limit when it borrows).
std::vector<std::int64_t> Scheduler::reserve_cells(const Snapshot& snap, int w,
                                                   const Assignment& a) const {
  const auto& wl = p_.workloads[w];
  std::vector<std::int64_t> keep(snap.tree().frs(), 0);
  for (int r = 0; r < p_.R(); ++r) {
    const int fr = p_.cell(wl.cq, a.flavor, r);
    const std::int64_t q = snap.tree().nominal(wl.cq, fr), u = snap.usage(wl.cq, fr);
    const std::int64_t bl = snap.tree().borrowing_limit(wl.cq, fr);
    const std::int64_t v = a.borrow > 0
                               ? (bl == kNoLimit ? wl.req[r] : std::min(wl.req[r], q + bl - u))
                               : std::min(wl.req[r], q - u);
    keep[fr] = std::max<std::int64_t>(0, v);
  }
  return keep;
}

void Scheduler::cycle(XState& s, CycleOutcome* out, int failed_eviction,
                      int overwritten_eviction) const {
  // Asleep: the goroutine goes on only once cache.WaitForPodsReady returns.
  if (blocked_entry(s).w >= 0) {
    if (!any_not_ready(s)) wake(s, out);
    return;
  }
  const int W = p_.W();
  const std::vector<bool> none(W, false);
  // The cycle plans on the state it started from (Kueue's snapshot and its
  // workloads' admissions) and writes its outcomes into s.
  const XState at = s;
  Snapshot snap = snapshot(at);
  const Snapshot start = snap;
  OnePreemptionPerCohort legacy(start.tree(), start);
  std::vector<Entry> entries;
  // nominate's inadmissible entries: not planned, requeued after the cycle.
  std::vector<int> mismatched;
  for (int cq = 0; cq < p_.Q(); ++cq) {
    const int w = head(at, cq);
    if (w < 0) continue;
    if (p_.workloads[w].namespace_mismatch)
      mismatched.push_back(w);
    else
      entries.push_back({w, assign(at, snap, w, none)});
  }
  // makeClassicalIterator: a preemptor first (PrioritizePreemptorWorkloads),
  // then lower borrowing, then priority (with
  // PrioritySortingWithinCohort), then the queue-order timestamp (and the
  // name, for a deterministic order). Fair sharing's tournament picks one
  // entry at a time instead (below).
  if (!p_.fair_sharing)
    std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
      if (preemptor(at, a.w) != preemptor(at, b.w)) return preemptor(at, a.w);
      if (a.a.borrow != b.a.borrow) return a.a.borrow < b.a.borrow;
      const auto& x = p_.workloads[a.w];
      const auto& y = p_.workloads[b.w];
      if (p_.priority_sorting_within_cohort && x.priority != y.priority)
        return x.priority > y.priority;
      return queued_before(at, a.w, b.w);
    });

  std::vector<bool> preempted(W, false);
  std::vector<int> freed;        // ClusterQueues whose quota a victim released: requeued at the end
  std::vector<int> reserved_in;  // ClusterQueues whose status the cycle's reservations change
  // Requeueing after the cycle: NoFit and no candidates park a
  // BestEffortFIFO workload until its tree changes; everything else that
  // was nominated is requeued at once (FailedAfterNomination, PendingPreemption).
  auto park = [&](int w) {
    if (p_.cqs[p_.workloads[w].cq].strict_fifo) return;
    s.phase[w] = kInadmissible;
    // handleInadmissibleHash (SchedulingEquivalenceHashing): every workload of
    // its heap with the same scheduling hash is parked with it.
    const int eq = p_.workloads[w].equivalence;
    if (eq < 0) return;
    for (int v = 0; v < W; ++v)
      if (p_.workloads[v].equivalence == eq && in_heap(s, v))
        s.phase[v] = s.phase[v] == kPending ? kInadmissible : kBackoff;
  };
  auto stick = [&](int w) {
    const int cq = p_.workloads[w].cq;
    // preemptorWorkload.set: every queue tracks its preemptor; only a
    // BestEffortFIFO one keeps it at the head, and only the gate reads it in
    // a StrictFIFO one.
    if (p_.sticky_head && (!p_.cqs[cq].strict_fifo || p_.prioritize_preemptors)) s.sticky[cq] = w;
  };
  auto process = [&](Entry& e) {
    // Asleep in cache.WaitForPodsReady: the cycle's later entries go back to their heaps
    // (Kueue processes them after the held one, on the old snapshot; the model's next
    // cycle plans them afresh: a Fit one blocks again behind the woken admission, whose
    // pods are not ready yet).
    if (blocked_entry(s).w >= 0) return;
    const int w = e.w;
    Assignment& a = e.a;
    const auto& wl = p_.workloads[w];
    // Before #805 (K05) an entry acted on its nomination: nothing re-checked
    // it against what earlier entries of the cycle had taken or preempted.
    // Before #2641 the cohort rule below stood in for the re-check.
    const bool rechecks = p_.multiple_preemptions && p_.recheck_in_cycle;
    // Targets that overlap the cycle's victims: planned again (with the gate
    // RecomputeAssignmentUponPreemptionTargetsOverlap), and what that gives
    // is handled as a nomination is; without the gate, skipped.
    if (rechecks && a.mode == Mode::Preempt && overlaps(a.targets, preempted)) {
      if (!p_.recompute_on_overlap) {
        if (out != nullptr) out->skipped.push_back(w);
        return;
      }
      a = replan(at, snap, preempted, w, a.flavor);
    }
    if (a.mode == Mode::NoFit) {
      park(w);
      return;
    }
    if (!p_.multiple_preemptions) {
      const auto cells = usage_cells(w, a.flavor);
      const auto reserve = a.mode == Mode::Preempt ? reserve_cells(snap, w, a) : cells;
      if (!legacy.admits(wl.cq, a.mode, cells, reserve)) {
        if (out != nullptr) out->skipped.push_back(w);
        return;
      }
    }
    if (a.mode == Mode::Preempt && a.targets.empty()) {
      park(w);
      // Unless the ClusterQueue can always reclaim, it keeps what it could
      // use of its quota for the rest of the cycle (resourcesToReserve); so
      // does a preemptor under PrioritizePreemptorWorkloads.
      if (p_.cqs[wl.cq].reclaim != Reclaim::Any || preemptor(at, w))
        snap.add_cells(wl.cq, reserve_cells(snap, w, a), +1);
      return;
    }
    if (rechecks && !fits_projected(at, snap, preempted, w, a)) {
      if (out != nullptr) out->skipped.push_back(w);
      return;
    }
    for (int t : a.targets) preempted[t] = true;
    snap.add(wl.cq, a.flavor, wl.req, +1);
    if (a.mode == Mode::DeferredFit) {
      stick(w);
      return;
    }
    if (a.mode == Mode::Preempt) {
      // IssuePreemptions: Evicted, quota held until the job or pods stop;
      // a Job's quota goes as soon as its pods are terminating (the Job
      // controller does not count them), a Pod group's when they are gone,
      // or at once with FastQuotaReleaseInPodIntegration.
      int preempting = 0;  // IssuePreemptions' count: evicted now, or already on the way out
      for (int t : a.targets) {
        // Already evicted (in an earlier cycle, or, before #805, by an earlier entry of this
        // one): IssuePreemptions counts it as preempted without a new eviction, and the
        // preemptor is requeued pending preemption (sticky) all the same.
        ++preempting;
        if (!reserved(s, t)) continue;
        // Before #11502: an eviction it issued was overwritten, and its
        // preemptionExpectation still waits to observe it. IssuePreemptions
        // counts it preempted ("Preemption already issued, waiting for
        // observation") and issues nothing.
        if (p_.tracks_expectations() && s.expecting[t] != 0) continue;
        if (out != nullptr) out->evicted.push_back(t);
        // The patch failed: nothing changes for the victim. The cycle has
        // counted it preempted all the same (preemptedWorkloads, the snapshot).
        // One write fails: a later entry's patch of the same victim (before
        // #805 two entries could share one) is a write of its own.
        if (t == failed_eviction) {
          failed_eviction = -1;
          --preempting;
          continue;
        }
        if (out != nullptr && (out->acted.empty() || out->acted.back() != w))
          out->acted.push_back(w);
        // The eviction's patch landed first; the admission goroutine's patch,
        // built from the object before the eviction, is applied over it and
        // drops the Evicted condition: the victim is Admitted and its job
        // starts. Since #11502 the goroutine then satisfies the expectation,
        // so a later cycle evicts it again; before, it waits forever.
        if (t == overwritten_eviction) {
          overwritten_eviction = -1;
          land(s, t);
          if (p_.tracks_expectations()) s.expecting[t] = 1;
          continue;
        }
        // One still waiting for its checks never started: its job is suspended,
        // its pods gated, so its quota goes at once. Eviction resets its checks.
        // Nor did one whose admission patch is still in flight; the eviction's
        // patch lands after it (a Preempted eviction orders it by creation again,
        // unless it is stamped below).
        // One a Retry check held waits out the rest of that backoff (its requeueAt
        // keeps it out of the heap: backoffWaitingTimeExpired).
        const bool started = s.phase[t] == kAdmitted && !writing(s, t);
        const bool held = s.phase[t] == kReserved && (s.ready[t] & retry_hold_bit(p_.K())) != 0;
        if (writing(s, t)) land(s, t);
        reset_checks_on_eviction(s, t);
        if (started && p_.workloads[t].pods && !p_.fast_quota_release) {
          s.phase[t] = kEvicted;
        } else {
          release(s, t, false);
          s.phase[t] = held ? kBackoff : kPending;
          freed.push_back(p_.workloads[t].cq);
        }
        // GetQueueOrderTimestamp, PrioritySortingWithinCohort off: a victim reclaimed
        // while the preemptor borrows waits from now on, behind its preemptor.
        if (!p_.priority_sorting_within_cohort &&
            std::find(a.reclaimed_while_borrowing.begin(), a.reclaimed_while_borrowing.end(), t) !=
                a.reclaimed_while_borrowing.end())
          stamp_reclaimed(s, t);
      }
      if (!a.targets.empty()) legacy.acted(wl.cq);
      // markPreemptionOutcome: PendingPreemption makes it the sticky head;
      // with every patch failed, PreemptionFailed only requeues it at once.
      if (preempting > 0) stick(w);
      return;
    }
    // waitForPodsReadyIfNeeded (blockAdmission; Fit entries only): with some
    // workload not PodsReady, the goroutine sleeps before admitting this one,
    // holding it and its assignment (wake()).
    if (p_.block_admission && any_not_ready(s)) {
      block(s, w, a.flavor);
      return;
    }
    // assumeWorkload, then the admission patch, asynchronously: while faults
    // may fail it or land it late, it is in flight until AdmissionWritten or
    // AdmissionWriteFailed (or a preemptor's cycle lands it, EvictionOverwritten).
    reserve(s, w, a.flavor, !patch_in_flight(s));
    reserved_in.push_back(wl.cq);
    legacy.acted(wl.cq);
    if (out != nullptr) out->acted.push_back(w);
  };
  if (!p_.fair_sharing) {
    for (auto& e : entries) process(e);
  } else {
    std::vector<int> heads;
    std::vector<Assignment> plans;
    for (const auto& e : entries) heads.push_back(e.w), plans.push_back(e.a);
    std::vector<bool> remaining(entries.size(), true);
    for (std::size_t n = 0; n < entries.size(); ++n)
      process(entries[tournament(at, snap, heads, plans, remaining)]);
  }
  // A head pushed while its backoff was ahead and not admitted is requeued
  // (requeueIfNotPresent) into the inadmissible set, whatever the reason:
  // backoffWaitingTimeExpired is false, so only its requeueAt brings it back.
  for (const auto& e : entries)
    if (at.phase[e.w] == kQueuedInBackoff &&
        (s.phase[e.w] == kQueuedInBackoff || s.phase[e.w] == kInadmissible))
      s.phase[e.w] = kBackoff;
  // NamespaceMismatch is not immediate even for StrictFIFO (RequeueIfNotPresent),
  // and bulk-parks nothing (only NoFit and no candidates do).
  for (int w : mismatched) s.phase[w] = at.phase[w] == kQueuedInBackoff ? kBackoff : kInadmissible;
  // A requeue-all event during the cycle reaches its in-flight heads too
  // (queueInadmissibleCycle >= popCycle), so it is applied after them; to a
  // mismatched head as well, which requeueIfNotPresent does not check.
  // The ClusterQueue's status update (reservingWorkloads) comes after the cycle: it reaches the
  // parked workloads only, not the heads the cycle requeued (requeueIfNotPresent put them back).
  for (int cq : reserved_in) status_changed(s, cq);
  for (int cq : freed) {
    requeue_tree(s, cq);
    for (int w : mismatched)
      if (s.phase[w] == kInadmissible && tree_at(s).root(p_.workloads[w].cq) == tree_at(s).root(cq))
        s.phase[w] = kPending;
  }
}

}  // namespace kmc::protocols::ka
