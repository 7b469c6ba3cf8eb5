// Heads, quota bookkeeping and flavor assignment (kueue-semantics.md §2.1,
// §2.4); preemption targets are in preemption.cpp, the cycle in cycle.cpp.
#include "protocols/kueue_admission/scheduler.hpp"

#include <algorithm>

#include "model/assert.hpp"

namespace kmc::protocols::ka {

namespace {

// The granular modes of one flavor (flavorassigner.go), worst first.
enum Granular { kNoFit, kNoCandidates, kPreemptMode, kReclaim, kFitMode };

struct FlavorMode {
  int pm = kFitMode;
  int borrow = 0;
};

// isPreferred(a, b) under the CQ's preference (§2.4 step 7).
bool preferred(const CqParams& cq, const FlavorMode& a, const FlavorMode& b) {
  if (a.pm == kNoFit) return false;
  if (b.pm == kNoFit) return true;
  if ((a.pm == kNoCandidates) != (b.pm == kNoCandidates)) return b.pm == kNoCandidates;
  if (cq.preemption_over_borrowing) {
    if (a.borrow != b.borrow) return a.borrow < b.borrow;
    return a.pm > b.pm;
  }
  if (a.pm != b.pm) return a.pm > b.pm;
  return a.borrow < b.borrow;
}

// shouldTryNextFlavor (§2.4 step 6).
bool try_next(const CqParams& cq, const FlavorMode& m) {
  if (m.pm == kNoFit || m.pm == kNoCandidates) return true;
  if ((m.pm == kPreemptMode || m.pm == kReclaim) && cq.try_next_when_preempt) return true;
  return m.borrow != 0 && cq.try_next_when_borrow;
}

}  // namespace

Scheduler::Scheduler(const AdmissionParams& p)
    : p_(p),
      tree_(*p.tree),
      stops_(p.any_stop() || p.any_cq_deletions()),
      order_moves_(p.queue_order_moves()) {}

// canPreemptWhileBorrowing: borrowWithinCohort, or under fair sharing any reclaim policy.
bool Scheduler::preempts_while_borrowing(const CqParams& cq) const {
  return p_.fair_sharing ? cq.reclaim != Reclaim::Never : cq.borrow_within_cohort;
}

int Scheduler::head(const XState& s, int cq) const {
  if (!cq_active(s, cq)) return -1;  // heads() skips inactive ClusterQueues
  // Sticky only in BestEffortFIFO: a StrictFIFO queue's cell holds its
  // preemptor for PrioritizePreemptorWorkloads alone.
  const auto sticky = p_.cqs[cq].strict_fifo ? -1 : s.sticky[cq];
  if (sticky >= 0 && in_heap(s, static_cast<int>(sticky)) && queued(s, static_cast<int>(sticky)))
    return static_cast<int>(sticky);
  // Workloads are in queue order already: priority, then creation, then name;
  // a workload a check or a PodsReady timeout evicted waits in order of that eviction
  // (queue_order.cpp).
  int best = -1;
  for (int w = 0; w < p_.W(); ++w) {
    if (p_.workloads[w].cq != cq || !in_heap(s, w) || !queued(s, w)) continue;
    if (best < 0) {
      best = w;
      if (!order_moves_) break;
    } else if (p_.workloads[w].priority == p_.workloads[best].priority &&
               queued_before(s, w, best)) {
      best = w;
    }
  }
  return best;
}

bool Scheduler::any_head(const XState& s) const {
  for (int w = 0; w < p_.W(); ++w)
    if (in_heap(s, w) && queued(s, w)) return true;
  return false;
}

std::vector<std::int64_t> Scheduler::usage_cells(int w, int f) const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(p_.F()) * p_.R(), 0);
  for (int r = 0; r < p_.R(); ++r) out[p_.cell(p_.workloads[w].cq, f, r)] = p_.workloads[w].req[r];
  return out;
}

void Scheduler::reserve(XState& s, int w, int f, bool landed) const {
  const auto& wl = p_.workloads[w];
  // Its checks were reset to Pending when it was last evicted; only a check on
  // every flavor kept through an unset reservation (stop_policy.cpp) is Ready.
  const std::int64_t waits = wl.checks.empty() ? 0 : wl.checks[static_cast<std::size_t>(f)];
  const std::int64_t ready = s.ready.empty() ? 0 : s.ready[w] & waits;
  s.phase[w] = ready == waits ? kAdmitted : kReserved;
  if (!s.ready.empty()) s.ready[w] = s.phase[w] == kReserved ? ready : 0;
  s.flavor[w] = f;
  if (landed) {
    unstamp(s, w, false);
    if (s.phase[w] == kAdmitted) start_job(s, w);
  } else {
    s.writing[w] = 1;
  }
  // The newest reservation among holders of its priority: the candidate order
  // (before(), preemption.cpp) compares reservation times only between workloads
  // of equal priority, so the order across priorities is never read, and
  // keeping it would only split states Kueue cannot tell apart. Where no
  // ClusterQueue may preempt, the order is never read at all.
  if (p_.preemption_configured()) {
    std::int64_t holders = 0;
    for (int v = 0; v < p_.W(); ++v)
      holders += s.rank[v] >= 0 && p_.workloads[v].priority == wl.priority;
    s.rank[w] = holders;
  }
  const int k = p_.F() * p_.R();
  for (int r = 0; r < p_.R(); ++r) s.usage[wl.cq * k + p_.cell(wl.cq, f, r)] += wl.req[r];
  // It stays its queue's preemptor until the workload controller sees its
  // reservation and deletes it from the queue: a patch that fails keeps it so.
  if (s.sticky[wl.cq] == w && s.writing[w] == 0) s.sticky[wl.cq] = -1;
}

void Scheduler::land(XState& s, int w) const {
  s.writing[w] = 0;
  if (s.sticky[p_.workloads[w].cq] == w) s.sticky[p_.workloads[w].cq] = -1;
  unstamp(s, w, false);
  if (s.phase[w] == kAdmitted) start_job(s, w);
}

void Scheduler::start_job(XState& s, int w) const {
  if (p_.pods_may_be_late() && s.budget[p_.budget_timeouts()] > 0) s.unready[w] = kNotStarted;
}

void Scheduler::release(XState& s, int w, bool requeue) const {
  const auto& wl = p_.workloads[w];
  const auto f = s.flavor[w];
  KMC_ASSERT_MSG(f >= 0, "only a holder releases quota");
  const int k = p_.F() * p_.R();
  for (int r = 0; r < p_.R(); ++r)
    s.usage[wl.cq * k + p_.cell(wl.cq, static_cast<int>(f), r)] -= wl.req[r];
  if (s.rank[w] >= 0)
    for (int v = 0; v < p_.W(); ++v)
      if (p_.workloads[v].priority == wl.priority && s.rank[v] > s.rank[w]) --s.rank[v];
  s.rank[w] = -1;
  s.flavor[w] = -1;
  // Without an admission the workload controller keeps only the checks on
  // every flavor of the queue (syncAdmissionCheckConditions,
  // AdmissionChecksForWorkload): the others are dropped, retryCount and all.
  if (!s.retries.empty()) {
    const std::int64_t kept = p_.checks_on_every_flavor(wl.cq);
    for (int c = 0; c < p_.K(); ++c)
      if ((kept >> c & 1) == 0) s.retries[static_cast<std::size_t>(w) * p_.K() + c] = 0;
  }
  s.unready[w] = 0;      // out of the cache: nothing to wait for
  s.before_edit[w] = 0;  // a reservation again is made under the quotas then in force
  // QueueAssociatedInadmissibleWorkloadsAfter finds the tree through w's
  // LocalQueue: one stopped or deleted is gone from the queue manager, so
  // nothing is requeued, unless a Cohort object above the ClusterQueue (its
  // controller requeues the tree on the queue's status update).
  if (requeue && (lq_stop(s, w) == model::StopPolicy::None || p_.cqs[wl.cq].cohort_object_above))
    requeue_tree(s, wl.cq);
}

void Scheduler::reset_checks_on_eviction(XState& s, int w) const {
  if (s.ready.empty()) return;
  const auto f = s.flavor[w];
  if (!s.retries.empty() && f >= 0 && (s.phase[w] == kAdmitted || s.phase[w] == kReserved)) {
    // Admitted: every check it waits for is Ready.
    const std::int64_t ready =
        s.phase[w] == kAdmitted ? p_.workloads[w].checks[static_cast<std::size_t>(f)] : s.ready[w];
    for (int k = 0; k < p_.K(); ++k)
      if (ready >> k & 1) s.retries[static_cast<std::size_t>(w) * p_.K() + k] = 0;
  }
  s.ready[w] = 0;
}

// Quota freed in a tree moves every inadmissible workload of that tree back
// to its heap (QueueAssociatedInadmissibleWorkloadsAfter, §2.1), but one
// whose namespace its ClusterQueue does not select (queueInadmissibleWorkloads).
void Scheduler::requeue_tree(XState& s, int node) const {
  const QuotaTree& tree = tree_at(s);
  const int root = tree.root(node);
  for (int w = 0; w < p_.W(); ++w)
    if (s.phase[w] == kInadmissible && tree.root(p_.workloads[w].cq) == root &&
        !p_.workloads[w].namespace_mismatch)
      s.phase[w] = kPending;
}

// clusterqueue_controller.go notifies its watchers on every Update event, status-only ones too;
// the Cohort controller's cohortCqHandler reconciles every ancestor but the root
// (ClusterQueueAncestors), and reconciling an existing Cohort object calls
// AddOrUpdateCohort, which requeues the root's tree (notifyCohort). Implicit cohorts have no
// object to reconcile.
void Scheduler::status_changed(XState& s, int cq) const {
  if (p_.cqs[cq].cohort_object_above) requeue_tree(s, cq);
}

bool Scheduler::fits_in(const Snapshot& snap, int cq, const std::vector<std::int64_t>& usage,
                        bool allow_borrowing) const {
  for (int fr = 0; fr < tree_.frs(); ++fr) {
    const auto v = usage[fr];
    if (v == 0) continue;
    if (!allow_borrowing && snap.borrowing_with(cq, fr, v)) return false;
    if (v > snap.available(cq, fr)) return false;
  }
  return true;
}

// assignFlavors with one pod-set group (§2.4): the flavors of the CQ's
// resource group in order, each resource's fitsResourceQuota, the
// fungibility rule deciding whether to stop. Resources of the ClusterQueue's
// other resource groups, each of one flavor (CqParams::fixed_flavor), are
// assigned that flavor on their own, as Kueue assigns each group: they take
// no part in the choice, and the assignment's mode is the worse of the two.
Assignment Scheduler::assign(const XState& s, const Snapshot& snap, int w,
                             const std::vector<bool>& gone, int only) const {
  const auto& wl = p_.workloads[w];
  const auto& cq = p_.cqs[wl.cq];
  Assignment best;
  for (int r = 0; r < p_.R(); ++r)
    if (wl.req[r] > 0 && std::find(cq.covered.begin(), cq.covered.end(), r) == cq.covered.end())
      return best;  // a requested resource no resource group covers: NoFit
  auto fixed = [&](int r) { return !cq.fixed_flavor.empty() && cq.fixed_flavor[r] >= 0; };
  // A flavor's modes over the resources so far. `rep` is Kueue's
  // representativeMode, which chooses between flavors: the mode of the least
  // preferred resource (isPreferred), preemption mode and borrowing as one
  // pair. `all` is the assignment's: the worst preemption mode and, as
  // Assignment.append keeps it, the highest borrowing of any resource.
  struct Modes {
    FlavorMode rep, all;
  };
  // fitsResourceQuota of resource r in flavor f, into the flavor's modes and
  // the cells that need preemption.
  auto fit = [&](int f, int r, Modes& mode, std::vector<int>& need) {
    const std::int64_t v = wl.req[r];
    const int fr = p_.cell(wl.cq, f, r);
    FlavorMode m{kNoFit, 0};
    const auto [borrow, may_reclaim] = snap.lowest_fitting_height(wl.cq, fr, v);
    if (v > snap.tree().potential_available(wl.cq, fr)) {
      m = {kNoFit, borrow};
    } else if (v <= snap.available(wl.cq, fr)) {
      m = {kFitMode, borrow};
    } else if (snap.tree().nominal(wl.cq, fr) >= v || may_reclaim || preempts_while_borrowing(cq)) {
      // The preemption oracle: GetTargets on this cell alone.
      std::vector<std::int64_t> one(tree_.frs(), 0);
      one[fr] = v;
      const auto victims = targets(s, snap, w, f, {fr}, one, gone);
      if (victims.empty()) {
        m = {kNoCandidates, borrow};
      } else {
        Snapshot after = snap;
        bool own = false;
        for (int t : victims) {
          after.add(p_.workloads[t].cq, static_cast<int>(s.flavor[t]), p_.workloads[t].req, -1);
          own = own || p_.workloads[t].cq == wl.cq;
        }
        m = {own ? kPreemptMode : kReclaim, after.lowest_fitting_height(wl.cq, fr, v).first};
      }
      need.push_back(fr);
    } else {
      m = {kNoFit, borrow};
    }
    if (preferred(cq, mode.rep, m)) mode.rep = m;
    mode.all.pm = std::min(mode.all.pm, m.pm);
    mode.all.borrow = std::max(mode.all.borrow, m.borrow);
    if (m.pm != kFitMode && m.pm != kNoFit && std::find(need.begin(), need.end(), fr) == need.end())
      need.push_back(fr);
  };
  Modes best_mode{{kNoFit, 0}, {kNoFit, 0}};
  std::vector<int> best_need;
  for (int f : cq.flavors) {
    if (only >= 0 && f != only) continue;
    if (!wl.eligible[f]) continue;
    Modes mode;
    std::vector<int> need;
    for (int r = 0; r < p_.R() && mode.all.pm != kNoFit; ++r)
      if (wl.req[r] > 0 && !fixed(r)) fit(f, r, mode, need);
    if (!try_next(cq, mode.rep)) {
      best.flavor = f, best_mode = mode, best_need = need;
      break;
    }
    if (preferred(cq, mode.rep, best_mode.rep)) best.flavor = f, best_mode = mode, best_need = need;
  }
  if (best.flavor < 0 || best_mode.all.pm == kNoFit) return Assignment{};
  for (int r = 0; r < p_.R() && best_mode.all.pm != kNoFit; ++r)
    if (wl.req[r] > 0 && fixed(r)) fit(best.flavor, r, best_mode, best_need);
  if (best_mode.all.pm == kNoFit) return Assignment{};
  best.borrow = best_mode.all.borrow;
  best.need = best_need;
  best.mode = best_mode.all.pm == kFitMode ? Mode::Fit : Mode::Preempt;
  if (best.mode == Mode::Preempt) {
    // GetTargets reads TotalRequestsFor: the pod sets' own requests, without
    // the `pods` assignFlavors adds (it adds them to a clone). The fits check
    // after it counts them (cycle.cpp fits_projected).
    auto usage = usage_cells(w, best.flavor);
    if (wl.implicit_pods >= 0) usage[p_.cell(wl.cq, best.flavor, wl.implicit_pods)] = 0;
    best.targets =
        targets(s, snap, w, best.flavor, best.need, usage, gone, &best.reclaimed_while_borrowing);
  }
  return best;
}

}  // namespace kmc::protocols::ka
