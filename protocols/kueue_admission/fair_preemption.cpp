// Fair sharing's preemption (kueue-semantics.md §4.7;
// pkg/scheduler/preemption/fairsharing/): candidates in the preemptor's
// queue and in the cohort's borrowing queues, target queues taken by
// highest share first, each candidate preempted when the strategy allows
// (LessThanOrEqualToFinalShare, then LessThanInitialShare on what was left),
// and within nominal quota unconditionally (FairSharingPreemptWithinNominal).
// Flat cohorts: compile_admission refuses fair sharing over nested ones.
#include <algorithm>
#include <limits>
#include <map>

#include "protocols/kueue_admission/fair_sharing.hpp"
#include "protocols/kueue_admission/scheduler.hpp"

namespace kmc::protocols::ka {

std::vector<int> Scheduler::fair_targets(const XState& s, const Snapshot& snap, int w,
                                         const std::vector<int>& need,
                                         const std::vector<std::int64_t>& usage,
                                         const std::vector<bool>& gone) const {
  const auto& pre = p_.workloads[w];
  const int home = pre.cq, R = p_.R();
  const auto& cq = p_.cqs[home];
  auto uses_needed = [&](int v) {
    for (int fr : need)
      if (s.flavor[v] >= 0 && p_.workloads[v].req[fr % R] > 0 &&
          p_.cell(p_.workloads[v].cq, static_cast<int>(s.flavor[v]), fr % R) == fr)
        return true;
    return false;
  };
  // findCandidates, per ClusterQueue, each list in CandidatesOrdering.
  std::map<int, std::vector<int>> lists;
  for (int v = 0; v < p_.W(); ++v) {
    if (v == w || gone[v] || !holds(s, v) || !uses_needed(v)) continue;
    if (!cq_active(s, p_.workloads[v].cq)) continue;  // out of the snapshot
    const auto& c = p_.workloads[v];
    bool ok = false;
    if (c.cq == home) {
      ok = (cq.within != WithinCq::Never && pre.priority > c.priority) ||
           (cq.within == WithinCq::LowerOrNewerEqualPriority && pre.priority == c.priority &&
            older(s, w, v));
    } else if (cq.reclaim != Reclaim::Never && snap.tree().root(c.cq) == snap.tree().root(home) &&
               snap.tree().parent(home) >= 0) {
      bool borrowing = false;
      for (int fr : need) borrowing = borrowing || !snap.within_nominal(c.cq, fr);
      ok = borrowing && (cq.reclaim == Reclaim::Any || pre.priority > c.priority);
    }
    if (ok) lists[c.cq].push_back(v);
  }
  for (auto& [q, list] : lists)
    std::sort(list.begin(), list.end(), [&](int a, int b) { return before(s, home, a, b); });

  Snapshot sim = snap;
  sim.add_cells(home, usage, +1);  // SimulateUsageAddition: shares include the incoming workload
  std::vector<int> chosen;
  auto fits = [&] {
    Snapshot t = sim;
    t.add_cells(home, usage, -1);
    return fits_in(t, home, usage, true);
  };
  auto remove = [&](int v) {
    sim.add(p_.workloads[v].cq, static_cast<int>(s.flavor[v]), p_.workloads[v].req, -1);
    chosen.push_back(v);
  };
  auto share = [&](int q) { return drs(p_, sim, q, {}); };
  // TargetClusterQueueOrdering for a flat cohort: the highest share first,
  // a tie to the queue whose next candidate comes first; a queue that does
  // not borrow (but the preemptor's own) is pruned.
  auto next_target = [&](std::map<int, std::vector<int>>& from) {
    int best = -1;
    Drs best_share;
    for (auto& [q, list] : from) {
      if (list.empty()) continue;
      const Drs d = share(q);
      if (q != home && !d.borrowing) continue;
      const int c = best < 0 ? 1 : compare_drs(d, best_share);
      if (c > 0 || (c == 0 && before(s, home, list.front(), from[best].front())))
        best = q, best_share = d;
    }
    return best;
  };
  bool done = false;
  std::map<int, std::vector<int>> retry;
  const bool first_rule = p_.fs_strategies.empty() || p_.fs_strategies[0];
  // FairSharingPreemptWithinNominal: decided once, with the incoming workload
  // added and before any victim goes (runFirstFsStrategy), so victims of its
  // own queue that bring it back within nominal change nothing.
  bool within_nominal = p_.fs_preempt_within_nominal;
  for (int fr : need) within_nominal = within_nominal && sim.within_nominal(home, fr);
  while (!done) {
    const int t = next_target(lists);
    if (t < 0) break;
    auto& list = lists[t];
    if (t == home || within_nominal) {
      remove(list.front());
      list.erase(list.begin());
      done = fits();
      continue;
    }
    const Drs preemptor_new = share(home), target_old = share(t);
    if (preemptor_new.weighted == std::numeric_limits<double>::infinity() &&
        target_old.weighted != std::numeric_limits<double>::infinity()) {
      auto& r = retry[t];
      r.insert(r.end(), list.begin(), list.end());
      list.clear();
      continue;
    }
    while (!list.empty()) {
      const int v = list.front();
      list.erase(list.begin());
      Snapshot without = sim;
      without.add(t, static_cast<int>(s.flavor[v]), p_.workloads[v].req, -1);
      const Drs target_new = drs(p_, without, t, {});
      const bool pass = first_rule ? compare_drs(preemptor_new, target_new) <= 0
                                   : compare_drs(preemptor_new, target_old) < 0;
      if (!pass) {
        retry[t].push_back(v);
        continue;
      }
      remove(v);
      done = fits();
      break;  // the ordering is recomputed after every preemption
    }
  }
  if (!done && p_.fs_strategies.size() > 1) {
    // The second strategy (LessThanInitialShare) on what the first left: at
    // most one candidate per queue, highest share first.
    while (!done) {
      const int t = next_target(retry);
      if (t < 0) break;
      if (compare_drs(share(home), share(t)) < 0) {
        remove(retry[t].front());
        done = fits();
      }
      retry[t].clear();  // DropQueue
    }
  }
  if (!done) return {};
  Snapshot after = sim;
  after.add_cells(home, usage, -1);
  fill_back(s, after, home, usage, true, chosen);
  return chosen;
}

}  // namespace kmc::protocols::ka
