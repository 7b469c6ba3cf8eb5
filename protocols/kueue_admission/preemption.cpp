// Classical preemption (kueue-semantics.md §4.2 to §4.4;
// pkg/scheduler/preemption/preemption.go, classical/): candidates in the
// preemptor's ClusterQueue and, through the cohort tree, in ClusterQueues
// above their nominal quota; Kueue's candidate order; one attempt with
// borrowing and one without; victims removed until the preemptor fits, then
// filled back so that the set is minimal.
#include <algorithm>

#include "protocols/kueue_admission/scheduler.hpp"

namespace kmc::protocols::ka {

namespace {

enum Variant { kSameQueue, kHierarchical, kWithoutBorrowing, kWhileBorrowing };

struct Candidate {
  int w;
  Variant variant;
};

}  // namespace

// CandidatesOrdering (§4.3): evicted first, other queues first, lower
// priority first, the newest reservation first, then the name.
bool Scheduler::before(const XState& s, int home, int a, int b) const {
  auto evicted = [&](int v) { return s.phase[v] == kEvicted || s.phase[v] == kStuck; };
  if (evicted(a) != evicted(b)) return evicted(a);
  const auto& x = p_.workloads[a];
  const auto& y = p_.workloads[b];
  if ((x.cq != home) != (y.cq != home)) return x.cq != home;
  if (x.priority != y.priority) return x.priority < y.priority;
  if (s.rank[a] != s.rank[b]) return s.rank[a] > s.rank[b];
  return x.name < y.name;
}

// fillBackWorkloads: every victim but the last removed is put back while
// the preemptor still fits without it; sim has them all removed.
void Scheduler::fill_back(const XState& s, Snapshot& sim, int home,
                          const std::vector<std::int64_t>& usage, bool allow_borrowing,
                          std::vector<int>& chosen) const {
  for (int i = static_cast<int>(chosen.size()) - 2; i >= 0; --i) {
    const auto& c = p_.workloads[chosen[i]];
    sim.add(c.cq, static_cast<int>(s.flavor[chosen[i]]), c.req, +1);
    if (fits_in(sim, home, usage, allow_borrowing))
      chosen.erase(chosen.begin() + i);
    else
      sim.add(c.cq, static_cast<int>(s.flavor[chosen[i]]), c.req, -1);
  }
}

std::vector<int> Scheduler::targets(const XState& s, const Snapshot& snap, int w, int f,
                                    const std::vector<int>& need,
                                    const std::vector<std::int64_t>& usage,
                                    const std::vector<bool>& gone,
                                    std::vector<int>* while_borrowing) const {
  // The tree in force where the snapshot was taken: an edit may have reshaped it.
  const QuotaTree& tree = snap.tree();
  if (p_.fair_sharing) return fair_targets(s, snap, w, need, usage, gone);
  const auto& pre = p_.workloads[w];
  const int home = pre.cq;
  const auto& cq = p_.cqs[home];
  const int R = p_.R();
  auto uses_needed = [&](int v) {
    if (s.flavor[v] < 0) return false;
    for (int fr : need)
      if (p_.workloads[v].req[fr % R] > 0 &&
          p_.cell(p_.workloads[v].cq, static_cast<int>(s.flavor[v]), fr % R) == fr)
        return true;
    return false;
  };
  auto candidate = [&](int v) {
    return v != w && !gone[v] && holds(s, v) && uses_needed(v) && cq_active(s, p_.workloads[v].cq);
  };
  auto within_nominal = [&](const Snapshot& sn, int node) {
    for (int fr : need)
      if (!sn.within_nominal(node, fr)) return false;
    return true;
  };

  std::vector<Candidate> same, hierarchy, priority;
  if (cq.within != WithinCq::Never)
    for (int v = 0; v < p_.W(); ++v) {
      if (!candidate(v) || p_.workloads[v].cq != home) continue;
      const auto& c = p_.workloads[v];
      const bool lower = pre.priority > c.priority;
      const bool newer_equal = pre.priority == c.priority && older(s, w, v);
      if (lower || (cq.within == WithinCq::LowerOrNewerEqualPriority && newer_equal))
        same.push_back({v, kSameQueue});
    }
  if (tree.parent(home) >= 0 && cq.reclaim != Reclaim::Never) {
    // collectCandidatesForHierarchicalReclaim: level by level up the tree.
    bool advantage = true;
    std::vector<std::int64_t> remaining = usage;
    for (int fr = 0; fr < tree.frs(); ++fr) {
      if (usage[fr] == 0) continue;
      if (snap.tree().subtree_quota(home, fr) < snap.usage(home, fr) + usage[fr]) advantage = false;
      remaining[fr] = std::max<std::int64_t>(0, usage[fr] - snap.local_available(home, fr));
    }
    int prev = home;
    for (int cur : tree.ancestors(home)) {
      // ClusterQueues in cur's subtree, outside prev's, reached through
      // cohorts above their nominal quota, and themselves above theirs.
      for (int v = 0; v < p_.W(); ++v) {
        if (!candidate(v)) continue;
        const int vcq = p_.workloads[v].cq;
        if (vcq == home || !tree.contains(cur, vcq) || tree.contains(prev, vcq)) continue;
        bool reachable = !within_nominal(snap, vcq);
        for (int a = tree.parent(vcq); reachable && a != cur; a = tree.parent(a))
          reachable = !within_nominal(snap, a);
        if (!reachable) continue;
        const auto& c = p_.workloads[v];
        if (cq.reclaim == Reclaim::LowerPriority && !(pre.priority > c.priority)) continue;
        Variant variant = kWhileBorrowing;
        if (advantage)
          variant = kHierarchical;
        else if (!cq.borrow_within_cohort || c.priority >= pre.priority ||
                 c.priority > cq.max_priority_threshold)
          variant = kWithoutBorrowing;
        (advantage ? hierarchy : priority).push_back({v, variant});
      }
      // QuantitiesFitInQuota: every resource of the request, one already
      // covered below (remaining 0) too: a cohort above its subtree's quota
      // on it does not fit.
      bool fits = true;
      for (int fr = 0; fr < tree.frs(); ++fr) {
        if (usage[fr] == 0) continue;
        if (snap.tree().subtree_quota(cur, fr) < snap.usage(cur, fr) + remaining[fr]) fits = false;
        remaining[fr] = std::max<std::int64_t>(0, remaining[fr] - snap.local_available(cur, fr));
      }
      advantage = advantage || fits;
      prev = cur;
    }
  }

  auto evicted = [&](int v) { return s.phase[v] == kEvicted || s.phase[v] == kStuck; };
  auto order = [&](const Candidate& a, const Candidate& b) { return before(s, home, a.w, b.w); };
  for (auto* list : {&hierarchy, &priority, &same}) std::sort(list->begin(), list->end(), order);
  std::vector<Candidate> all;
  for (bool ev : {true, false})
    for (auto* list : {&hierarchy, &priority, &same})
      for (const auto& c : *list)
        if (evicted(c.w) == ev) all.push_back(c);

  const bool forbidden = !cq.borrow_within_cohort;
  bool under_nominal = true;
  for (int fr : need)
    under_nominal = under_nominal && snap.tree().nominal(home, fr) > snap.usage(home, fr);
  std::vector<bool> attempts;
  if ((hierarchy.empty() && priority.empty()) || (forbidden && !under_nominal))
    attempts = {true};
  else if (forbidden && hierarchy.empty())
    attempts = {false, true};
  else
    attempts = {true, false};

  for (const bool allow : attempts) {
    Snapshot sim = snap;
    std::vector<int> chosen;
    auto remove = [&](int v, int sign) {
      sim.add(p_.workloads[v].cq, static_cast<int>(s.flavor[v]), p_.workloads[v].req, sign);
    };
    for (const auto& c : all) {
      const int vcq = p_.workloads[c.w].cq;
      if (c.variant != kSameQueue) {  // candidateIsValid, on the partly preempted snapshot
        if (allow && c.variant == kWithoutBorrowing) continue;
        if (within_nominal(sim, vcq)) continue;
        bool valid = true;
        for (int a = tree.parent(vcq); valid && a >= 0 && !tree.contains(a, home);
             a = tree.parent(a))
          valid = !within_nominal(sim, a);
        if (!valid) continue;
      }
      remove(c.w, -1);
      chosen.push_back(c.w);
      if (!fits_in(sim, home, usage, allow)) continue;
      fill_back(s, sim, home, usage, allow, chosen);
      // The reason each victim's Preempted condition gets (PreemptionReason).
      if (while_borrowing != nullptr)
        for (const auto& k : all)
          if (k.variant == kWhileBorrowing &&
              std::find(chosen.begin(), chosen.end(), k.w) != chosen.end())
            while_borrowing->push_back(k.w);
      return chosen;
    }
  }
  (void)f;
  return {};
}

}  // namespace kmc::protocols::ka
