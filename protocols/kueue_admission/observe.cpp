#include "protocols/kueue_admission/observe.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kmc::protocols::ka {

namespace {

bool evicted(const XState& s, int w) {
  return s.phase[w] == kEvicted || s.phase[w] == kStuck;
}

}  // namespace

bool guaranteed(const Scheduler& sched, const XState& s, int w) {
  if (s.phase[w] != kPending && s.phase[w] != kInadmissible) return false;
  const auto& p = sched.params();
  const auto& tree = sched.tree();
  const auto& wl = p.workloads[w];
  const auto& cq = p.cqs[wl.cq];
  Snapshot snap = sched.snapshot(s);
  // Remove what w may preempt: its own queue's by withinClusterQueue, and
  // other queues' that borrow, by reclaimWithinCohort.
  for (int v = 0; v < p.W(); ++v) {
    if (!Scheduler::holds(s, v)) continue;
    const auto& c = p.workloads[v];
    bool may = false;
    if (c.cq == wl.cq) {
      may = (cq.within != WithinCq::Never && wl.priority > c.priority) ||
            (cq.within == WithinCq::LowerOrNewerEqualPriority && wl.priority == c.priority &&
             wl.created < c.created);
    } else if (tree.root(c.cq) == tree.root(wl.cq) && tree.parent(wl.cq) >= 0) {
      bool borrows = false;
      for (int r = 0; r < p.R(); ++r)
        borrows = borrows || !snap.within_nominal(c.cq, p.fr(static_cast<int>(s.flavor[v]), r));
      may = borrows && (cq.reclaim == Reclaim::Any ||
                        (cq.reclaim == Reclaim::LowerPriority && wl.priority > c.priority));
    }
    may = may || evicted(s, v);  // on its way out anyway
    if (may) snap.add(c.cq, static_cast<int>(s.flavor[v]), c.req, -1);
  }
  for (int f : cq.flavors) {
    if (!wl.eligible[f]) continue;
    bool fits = true;
    for (int r = 0; r < p.R() && fits; ++r) {
      const std::int64_t v = wl.req[r];
      if (v == 0) continue;
      const int fr = p.fr(f, r);
      fits = std::find(cq.covered.begin(), cq.covered.end(), r) != cq.covered.end() &&
             snap.usage(wl.cq, fr) + v <= tree.nominal(wl.cq, fr) && v <= snap.available(wl.cq, fr);
    }
    if (fits) return true;
  }
  return false;
}

std::string over_admission(const Scheduler& sched, const XState& s) {
  const auto& p = sched.params();
  const auto& tree = sched.tree();
  // The projected usage: victims still terminating hold quota that Kueue's
  // scheduler has already counted as gone (scheduler.fits, §2.5).
  std::vector<std::int64_t> usage(s.usage.size(), 0);
  const int k = tree.frs();
  for (int w = 0; w < p.W(); ++w)
    if (s.phase[w] == kAdmitted)
      for (int r = 0; r < p.R(); ++r)
        usage[p.workloads[w].cq * k + p.fr(static_cast<int>(s.flavor[w]), r)] +=
            p.workloads[w].req[r];
  const Snapshot snap(tree, usage);
  auto node_name = [&](int n) {
    return tree.is_cq(n) ? "ClusterQueue " + p.cqs[n].quota.name
                         : "cohort " + p.cohorts[n - p.Q()].name;
  };
  for (int n = 0; n < tree.nodes(); ++n)
    for (int fr = 0; fr < k; ++fr) {
      const std::int64_t u = snap.usage(n, fr), st = tree.subtree_quota(n, fr);
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

int blocked_behind_head(const Scheduler& sched, const XState& s, int cq) {
  const auto& p = sched.params();
  const int h = sched.head(s, cq);
  if (h < 0) return -1;
  const std::vector<bool> none(p.W(), false);
  const Snapshot snap = sched.snapshot(s);
  const Assignment a = sched.assign(s, snap, h, none);
  const bool waits =
      a.mode == Mode::Preempt && !a.targets.empty() &&
      std::all_of(a.targets.begin(), a.targets.end(), [&](int t) { return evicted(s, t); });
  if (!waits) return -1;
  // What the others could do once the head has what it waits for: its
  // victims gone, its own request in their place.
  Snapshot after = snap;
  std::vector<bool> gone(p.W(), false);
  for (int t : a.targets) {
    after.add(p.workloads[t].cq, static_cast<int>(s.flavor[t]), p.workloads[t].req, -1);
    gone[t] = true;
  }
  after.add(cq, a.flavor, p.workloads[h].req, +1);
  for (int w = 0; w < p.W(); ++w) {
    if (w == h || p.workloads[w].cq != cq || s.phase[w] != kPending) continue;
    const Assignment b = sched.assign(s, after, w, gone);
    if (b.mode == Mode::Fit) return w;
    if (b.mode == Mode::Preempt &&
        std::any_of(b.targets.begin(), b.targets.end(), [&](int t) { return !evicted(s, t); }))
      return w;
  }
  return -1;
}

}  // namespace kmc::protocols::ka
