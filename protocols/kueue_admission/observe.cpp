#include "protocols/kueue_admission/observe.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kmc::protocols::ka {

namespace {

bool evicted(const XState& s, int w) {
  return s.phase[w] == kEvicted || s.phase[w] == kStuck;
}

// w fits its ClusterQueue's nominal quota once the workloads it may preempt
// are gone, and, with `ahead_too`, those of its own queue that Kueue's queue
// order puts ahead of it (higher priority, or one priority and queued before).
bool fits_nominal_after(const Scheduler& sched, const XState& s, int w, bool ahead_too) {
  const auto& p = sched.params();
  const auto& tree = sched.tree_at(s);
  const auto& wl = p.workloads[w];
  const auto& cq = p.cqs[wl.cq];
  // A stopped or deleted queue admits nothing by its operator's choice: no
  // guarantee holds there (a deleted one's heads may pop until the cache
  // marks it terminating; nothing is owed from the deletion on).
  if (!sched.queued(s, w) || sched.deleted(s, wl.cq)) return false;
  Snapshot snap = sched.snapshot(s);
  if (s.phase[w] == kReserved) {
    // It holds its reservation, and its queue is within nominal quota: only its
    // checks stand between it and admission (accept-then-hang, K22).
    for (int r = 0; r < p.R(); ++r)
      if (wl.req[r] > 0 &&
          !snap.within_nominal(wl.cq, p.cell(wl.cq, static_cast<int>(s.flavor[w]), r)))
        return false;
    return true;
  }
  // Its ClusterQueue does not take its namespace: misconfigured, nothing is owed.
  if (wl.namespace_mismatch) return false;
  if (!Scheduler::in_heap(s, w) && s.phase[w] != kInadmissible && s.phase[w] != kBackoff)
    return false;
  // Remove what w may preempt: its own queue's by withinClusterQueue, and
  // other queues' that borrow, by reclaimWithinCohort.
  for (int v = 0; v < p.W(); ++v) {
    if (!Scheduler::holds(s, v)) continue;
    const auto& c = p.workloads[v];
    bool may = false;
    if (c.cq == wl.cq) {
      may = (cq.within != WithinCq::Never && wl.priority > c.priority) ||
            (cq.within == WithinCq::LowerOrNewerEqualPriority && wl.priority == c.priority &&
             sched.older(s, w, v));
    } else if (tree.root(c.cq) == tree.root(wl.cq) && tree.parent(wl.cq) >= 0) {
      bool borrows = false;
      for (int r = 0; r < p.R(); ++r)
        borrows =
            borrows || !snap.within_nominal(c.cq, p.cell(c.cq, static_cast<int>(s.flavor[v]), r));
      may = borrows && (cq.reclaim == Reclaim::Any ||
                        (cq.reclaim == Reclaim::LowerPriority && wl.priority > c.priority));
    }
    may = may || evicted(s, v);  // on its way out anyway
    may =
        may ||
        (ahead_too && c.cq == wl.cq &&
         (c.priority > wl.priority || (c.priority == wl.priority && sched.queued_before(s, v, w))));
    if (may) snap.add(c.cq, static_cast<int>(s.flavor[v]), c.req, -1);
  }
  for (int f : cq.flavors) {
    if (!wl.eligible[f]) continue;
    bool fits = true;
    for (int r = 0; r < p.R() && fits; ++r) {
      const std::int64_t v = wl.req[r];
      if (v == 0) continue;
      const int fr = p.cell(wl.cq, f, r);
      fits = std::find(cq.covered.begin(), cq.covered.end(), r) != cq.covered.end() &&
             snap.usage(wl.cq, fr) + v <= snap.tree().nominal(wl.cq, fr) &&
             v <= snap.available(wl.cq, fr);
    }
    if (fits) return true;
  }
  return false;
}

}  // namespace

bool guaranteed(const Scheduler& sched, const XState& s, int w) {
  return fits_nominal_after(sched, s, w, false);
}

bool overtaken(const Scheduler& sched, const XState& s, int w) {
  const auto phase = s.phase[w];
  if (!Scheduler::in_heap(s, w) && phase != kInadmissible && phase != kBackoff) return false;
  return !fits_nominal_after(sched, s, w, false) && fits_nominal_after(sched, s, w, true);
}

std::string over_admission(const Scheduler& sched, const XState& s) {
  const auto& p = sched.params();
  const auto& tree = sched.tree_at(s);
  // The projected usage: victims still terminating hold quota that Kueue's
  // scheduler has already counted as gone (scheduler.fits, §2.5). `earlier`:
  // the part that quotas no longer in force admitted (an edit shrank them;
  // Kueue evicts nothing for that), which only the scheduler's later
  // admissions must not add to.
  std::vector<std::int64_t> usage(s.usage.size(), 0), earlier(s.usage.size(), 0);
  const int k = tree.frs();
  for (int w = 0; w < p.W(); ++w)
    if (Scheduler::reserved(s, w))
      for (int r = 0; r < p.R(); ++r) {
        const std::size_t cell =
            p.workloads[w].cq * k + p.cell(p.workloads[w].cq, static_cast<int>(s.flavor[w]), r);
        usage[cell] += p.workloads[w].req[r];
        if (s.before_edit[w] != 0) earlier[cell] += p.workloads[w].req[r];
      }
  const Snapshot snap(tree, usage), before(tree, earlier);
  auto node_name = [&](int n) {
    return tree.is_cq(n) ? "ClusterQueue " + p.cqs[n].quota.name
                         : "cohort " + p.cohorts[n - p.Q()].name;
  };
  for (int n = 0; n < tree.nodes(); ++n)
    for (int fr = 0; fr < k; ++fr) {
      const std::int64_t u = snap.usage(n, fr), st = tree.subtree_quota(n, fr);
      if (u <= before.usage(n, fr)) continue;  // nothing admitted since the quotas shrank
      const std::int64_t bl = tree.borrowing_limit(n, fr);
      const std::string cell = fmt::format("{} {}", p.flavors[fr / p.R()], p.resources[fr % p.R()]);
      if (tree.parent(n) < 0 && u > st)
        return fmt::format("{} uses {} of {}, more than the {} its tree has", node_name(n), u, cell,
                           st);
      if (bl != kNoLimit && u > st + bl)
        return fmt::format("{} uses {} of {}, more than its quota {} and borrowing limit {}",
                           node_name(n), u, cell, st, bl);
    }
  return {};
}

namespace {

// The head of cq when it waits for victims it has already evicted to stop
// (their pods terminating); -1 else. `after` is the state with its claim
// already granted: the head admitted in the flavor it planned, out of its
// queue, while its victims still hold their quota. A cycle from there says
// what the others could do now beside what the head waits for (they do not
// get the victims' quota, which the head will take, nor the head's own).
struct Waiting {
  int head = -1;
  XState after;
};

Waiting waiting_head(const Scheduler& sched, const XState& s, int cq) {
  const auto& p = sched.params();
  const int h = sched.head(s, cq);
  if (h < 0 || p.workloads[h].namespace_mismatch) return {-1, {}};  // never nominated
  const std::vector<bool> none(p.W(), false);
  const Assignment a = sched.assign(s, sched.snapshot(s), h, none);
  const bool waits =
      a.mode == Mode::Preempt && !a.targets.empty() &&
      std::all_of(a.targets.begin(), a.targets.end(), [&](int t) { return evicted(s, t); });
  if (!waits) return {-1, {}};
  // Its claim taken now, its victims still holding theirs: what is left is
  // what others could use beside it.
  XState after = s;
  sched.reserve(after, h, a.flavor);
  return {h, after};
}

// Whether the next scheduling cycle from `after` lets a workload of queue q act.
bool acts_after(const Scheduler& sched, const Waiting& wait, int q, int& who) {
  const auto& p = sched.params();
  XState next = wait.after;
  CycleOutcome out;
  sched.cycle(next, &out);
  for (int w : out.acted)
    if (p.workloads[w].cq == q) return who = w, true;
  return false;
}

}  // namespace

int blocked_behind_head(const Scheduler& sched, const XState& s, int cq) {
  const Waiting wait = waiting_head(sched, s, cq);
  int who = -1;
  // The head pops alone: nothing behind it is looked at while it waits.
  if (wait.head >= 0 && acts_after(sched, wait, cq, who)) return who;
  return -1;
}

int held_back_in_cohort(const Scheduler& sched, const XState& s, int cq) {
  const auto& p = sched.params();
  const auto& tree = sched.tree_at(s);
  if (tree.parent(cq) < 0) return -1;
  const Waiting wait = waiting_head(sched, s, cq);
  if (wait.head < 0) return -1;
  XState next = s;
  CycleOutcome now;
  sched.cycle(next, &now);
  for (int w : now.skipped) {
    const int other = p.workloads[w].cq;
    if (other == cq || tree.root(other) != tree.root(cq)) continue;
    int who = -1;
    if (acts_after(sched, wait, other, who)) return who;
  }
  return -1;
}

}  // namespace kmc::protocols::ka
