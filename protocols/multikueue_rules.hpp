// Guards and updates of the MultiKueue protocol, written once over V.
//
// Included by multikueue.cpp (V = std::int64_t, the explicit engine) and by
// the symbolic test (V = sym::Int). Branches on V go through ite(); `if` is
// used only on parameters and action fields, which are concrete. Each
// action's paragraph names the Kueue code it abstracts (kueue-semantics.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/assert.hpp"
#include "model/value.hpp"
#include "protocols/multikueue_params.hpp"
#include "protocols/multikueue_state.hpp"

namespace kmc::protocols {

using model::ite;

template <class V>
class MkRules {
 public:
  using B = decltype(std::declval<V>() == std::declval<V>());
  using S = MkState<V>;

  // `values` makes the constants (literals, true and false) of the engine's kind.
  MkRules(const MkParams& p, model::Values<V> values)
      : p_(p),
        val_(values),
        J_(p.J()),
        Q_(static_cast<int>(p.cqs.size())),
        F_(p.flavors_max),
        R_(p.R()),
        W_(p.W()),
        S_(p.slots_max) {}

  B enabled(const S& s, const MkAction& a) const;
  S apply(S s, const MkAction& a) const {
    apply_in_place(s, a);
    return s;
  }
  void apply_in_place(S& s, const MkAction& a) const;

  // Index helpers, public for invariants and display.
  int jw(int j, int w) const {
    KMC_ASSERT(0 <= j && j < J_ && 0 <= w && w < W_);
    return j * W_ + w;
  }
  int u(int cq, int f, int r) const {
    KMC_ASSERT(0 <= cq && cq < Q_ && 0 <= f && f < F_ && 0 <= r && r < R_);
    return (cq * F_ + f) * R_ + r;
  }
  int c(int w, int slot, int r) const {
    KMC_ASSERT(0 <= w && w < W_ && 0 <= slot && slot < S_ && 0 <= r && r < R_);
    return (w * S_ + slot) * R_ + r;
  }

 private:
  B fits_flavor(const S& s, int cq, int j, int f, const V* own_flavor = nullptr) const;
  B fits(const S& s, int cq, int j) const;
  V first_fit(const S& s, int cq, int j) const;
  void add_usage(S& s, int cq, int j, const V& flavor, int sign) const;
  std::int64_t usage_max(int cq, int r) const;
  B capacity_fits(const S& s, int w, int j, const V& flavor) const;
  B snapshot_fits(const S& s, int w, int j) const;
  void take_capacity(S& s, int w, int j, const V& flavor, int sign) const;
  V count_nominated(const S& s, int j) const;
  // The condition a copy must have to be selected, and to stay selected (reconcileGroup's
  // bestMatchByCondition): Admitted with MultiKueueWaitForWorkloadAdmitted (#8592), else
  // QuotaReserved, which an Admitted copy has too.
  B winning(const V& remote) const {
    return p_.wait_for_admitted ? remote == kRemoteAdmitted
                                : (remote == kRemoteQuotaReserved || remote == kRemoteAdmitted);
  }
  // Queue order (multikueue_rules_queue.hpp): job k is ahead of job j in ClusterQueue cq, both
  // queued there; j joins the back of cq's queue, or leaves it (only where *when holds).
  B ahead(const S& s, int cq, int k, int j) const;
  void enqueue(S& s, int cq, int j, const B* when = nullptr) const;
  void dequeue(S& s, int cq, int j, const B* when = nullptr) const;
  std::vector<V>& ranks(S& s, int cq) const;
  int rank_cell(int cq, int j) const;
  bool shared(int cq) const;
  void check_queue_order(const S& s, int j) const;
  // A queued job ahead of j in its ClusterQueue (on the manager, or on worker w) that blocks it:
  // any under StrictFIFO, one that fits under BestEffortFIFO (it would be the head instead).
  B ahead_blocks(const S& s, int j, int w) const;
  B holds_worker_quota(const S& s, int j, int w) const;
  // Whether the manager reaches worker w (always, in a fleet without connection faults).
  B connected(const S& s, int w) const {
    return p_.connection_faults() ? s.connected[w] == 1 : val_.truth(true);
  }
  // A copy on a reachable worker other than w that reconcileGroup's bestMatchByCondition would
  // pick (Admitted, running or not): with one in view the check is not Retried (step 6a).
  B visible_winner_elsewhere(const S& s, int j, int w) const;
  // Deletes job j's copy on w; with `when`, only where *when holds.
  void delete_remote(S& s, int j, int w, const B* when = nullptr) const;
  // The manager deletes job j's copies on every worker it reaches; a copy on an unreachable
  // worker stays (Kueue: "cleaned up ... once the cluster reconnects"). Nominations go, unless
  // `keep_nominations` (only an eviction or a selection clears nominatedClusterNames).
  void delete_reachable_remotes(S& s, int j, bool keep_nominations = false) const;
  // A copy's job completed on its worker (whose quota and nodes the caller released): the
  // manager finishes its workload at once if it reaches the worker it selected; otherwise the
  // copy stays Finished until the manager sees it (FinishFromRemote) or deletes it.
  void finish_on_worker(S& s, int j, int w) const;
  void fail_provisioning(S& s, int j, int w) const;
  void capacity_changed(S& s, int w, const B& changed) const;
  // The nodes of one capacity slot that copies hold: booked for their ProvisioningRequest, or
  // running their pods. Free capacity comes back to what the slot had, less these.
  V held_nodes(const S& s, int w, int slot, int r) const;
  // Budgets count down; -1 means unlimited and stays -1.
  static void spend(S& s, int which) {
    V& b = s.budget[which];
    b = ite(b > 0, b - 1, b);
    if constexpr (model::is_explicit<V>)
      KMC_ASSERT_MSG(b >= -1, "a budget is a count left, or -1: unlimited");
  }
  B enabled_dispatch(const S& s, const MkAction& a) const;
  B enabled_worker(const S& s, const MkAction& a) const;
  B enabled_environment(const S& s, const MkAction& a) const;
  void apply_dispatch(S& s, const MkAction& a) const;
  void check_action(const MkAction& a) const;
  void check_after(const S& s, const MkAction& a) const;

  const MkParams& p_;
  model::Values<V> val_;
  int J_, Q_, F_, R_, W_, S_;
};

template <class V>
auto MkRules<V>::fits_flavor(const S& s, int cq, int j, int f, const V* own_flavor) const -> B {
  const CqParams& q = p_.cqs[cq];
  if (f >= static_cast<int>(q.flavors.size())) return val_.truth(false);
  B ok = val_.truth(true);
  for (int r = 0; r < R_; ++r) {
    const std::int64_t need = p_.req(j, r);
    if (need == 0) continue;
    const std::int64_t nominal = q.nominal[f * R_ + r];
    if (nominal < 0) return val_.truth(false);  // this flavor does not cover r
    // A job already holding quota here is not counted against itself.
    V used = s.usage[u(cq, f, r)];
    if (own_flavor) used = used - ite(*own_flavor == f, val_.lit(need), val_.lit(0));
    ok = ok && (used + need <= nominal);
  }
  return ok;
}

template <class V>
auto MkRules<V>::fits(const S& s, int cq, int j) const -> B {
  B any = val_.truth(false);
  for (int f = 0; f < static_cast<int>(p_.cqs[cq].flavors.size()); ++f)
    any = any || fits_flavor(s, cq, j, f);
  return any;
}

// Kueue's flavor assignment within one resource group: the first flavor, in
// the ClusterQueue's order, where the whole pod set fits (whenCanBorrow:
// MayStopSearch; no borrowing in this protocol).
template <class V>
V MkRules<V>::first_fit(const S& s, int cq, int j) const {
  V result = val_.lit(-1);
  for (int f = static_cast<int>(p_.cqs[cq].flavors.size()) - 1; f >= 0; --f)
    result = ite(fits_flavor(s, cq, j, f), val_.lit(f), result);
  return result;
}

template <class V>
void MkRules<V>::add_usage(S& s, int cq, int j, const V& flavor, int sign) const {
  KMC_ASSERT(0 <= cq && cq < Q_ && 0 <= j && j < J_);
  const int flavors = static_cast<int>(p_.cqs[cq].flavors.size());
  if constexpr (model::is_explicit<V>)
    KMC_ASSERT_MSG(-1 <= flavor && flavor < flavors, "a flavor of cq, or -1: none");
  for (int f = 0; f < flavors; ++f)
    for (int r = 0; r < R_; ++r) {
      const std::int64_t need = p_.req(j, r);
      if (need == 0) continue;
      V& used = s.usage[u(cq, f, r)];
      used = ite(flavor == f, used + sign * need, used);
      // Released only what was reserved, and reserved once per holder.
      if constexpr (model::is_explicit<V>)
        KMC_ASSERT_MSG(0 <= used && (flavor != f || used <= usage_max(cq, r)),
                       "quota usage is never negative nor more than its holders request");
    }
}

// The most usage cq can hold of r: every job that may reserve there, once in
// each place it may do so (its manager ClusterQueue, its copy on each worker).
// Only for assertions, and only when a flavor is charged: not in a hot loop.
template <class V>
std::int64_t MkRules<V>::usage_max(int cq, int r) const {
  std::int64_t most = 0;
  for (int j = 0; j < J_; ++j) {
    int places = p_.manager_cq[j] == cq ? 1 : 0;
    for (int w = 0; w < W_; ++w) places += p_.worker_cq[w][j] == cq ? 1 : 0;
    most += places * p_.req(j, r);
  }
  return most;
}

template <class V>
auto MkRules<V>::capacity_fits(const S& s, int w, int j, const V& flavor) const -> B {
  const int cq = p_.worker_cq[w][j];
  B any = val_.truth(false);
  if (cq < 0) return any;
  for (int f = 0; f < static_cast<int>(p_.cqs[cq].flavors.size()); ++f) {
    B ok = flavor == f;
    const int slot = p_.cqs[cq].flavor_slot[f];
    for (int r = 0; r < R_; ++r)
      if (p_.req(j, r) > 0) ok = ok && (s.capacity[c(w, slot, r)] >= p_.req(j, r));
    any = any || ok;
  }
  return any;
}

template <class V>
void MkRules<V>::take_capacity(S& s, int w, int j, const V& flavor, int sign) const {
  const int cq = p_.worker_cq[w][j];
  KMC_ASSERT_MSG(0 <= cq && cq < Q_, "capacity is taken only for a job with a LocalQueue on w");
  for (int f = 0; f < static_cast<int>(p_.cqs[cq].flavors.size()); ++f) {
    const int slot = p_.cqs[cq].flavor_slot[f];
    for (int r = 0; r < R_; ++r) {
      if (p_.req(j, r) == 0) continue;
      V& cap = s.capacity[c(w, slot, r)];
      cap = ite(flavor == f, cap - sign * p_.req(j, r), cap);
      // Booked only after capacity_fits said the nodes are there.
      if constexpr (model::is_explicit<V>)
        KMC_ASSERT_MSG(cap >= 0, "free capacity is never negative");
    }
  }
  capacity_changed(s, w, flavor >= 0);
}

// The snapshot dispatcher's question: does the manager's (possibly stale)
// view of w show room for j in some flavor of j's ClusterQueue there?
template <class V>
auto MkRules<V>::snapshot_fits(const S& s, int w, int j) const -> B {
  const int cq = p_.worker_cq[w][j];
  B any = val_.truth(false);
  if (cq < 0) return any;
  for (int f = 0; f < static_cast<int>(p_.cqs[cq].flavors.size()); ++f) {
    B ok = val_.truth(true);
    const int slot = p_.cqs[cq].flavor_slot[f];
    for (int r = 0; r < R_; ++r)
      if (p_.req(j, r) > 0) ok = ok && (s.snapshot[c(w, slot, r)] >= p_.req(j, r));
    any = any || ok;
  }
  return any;
}

template <class V>
V MkRules<V>::count_nominated(const S& s, int j) const {
  V n = val_.lit(0);
  for (int w = 0; w < W_; ++w) n = n + s.nominated[jw(j, w)];
  if constexpr (model::is_explicit<V>)
    KMC_ASSERT_MSG(0 <= n && n <= W_, "nominated is 0 or 1 per worker");
  return n;
}

template <class V>
auto MkRules<V>::ahead_blocks(const S& s, int j, int w) const -> B {
  const int cq = w < 0 ? p_.manager_cq[j] : p_.worker_cq[w][j];
  B blocked = val_.truth(false);
  for (int k = 0; k < J_; ++k) {
    // A namespace the ClusterQueue does not select: popped once and parked, it holds no head.
    if (k == j || !p_.queues_in(cq, k) || p_.mismatched(w, k)) continue;
    const B pending = w < 0 ? s.phase[k] == kMgrPending : s.remote[jw(k, w)] == kRemotePending;
    const B before = pending && ahead(s, cq, k, j);
    blocked = blocked || (p_.cqs[cq].strict_fifo ? before : before && fits(s, cq, k));
  }
  return blocked;
}

template <class V>
auto MkRules<V>::holds_worker_quota(const S& s, int j, int w) const -> B {
  const V& r = s.remote[jw(j, w)];
  return r == kRemoteQuotaReserved || r == kRemoteAdmitted || r == kRemoteRunning;
}

// Deleting a remote Workload: its worker quota is released, and the nodes it
// holds (booked for its ProvisioningRequest, or running its pods) go back to the pool.
template <class V>
void MkRules<V>::delete_remote(S& s, int j, int w, const B* when) const {
  const int i = jw(j, w);
  const int cq = p_.worker_cq[w][j];
  auto only = [&](const B& c) -> B { return when != nullptr ? (*when && c) : c; };
  if (cq >= 0) {
    const V flavor = ite(only(holds_worker_quota(s, j, w)), s.remote_flavor[i], val_.lit(-1));
    add_usage(s, cq, j, flavor, -1);
    // Nodes held: booked by the ProvisioningRequest, or taken when the pods started. Only a
    // partition lets the manager delete a running copy (one it gave up on, seen again).
    const B holds_nodes =
        p_.cqs[cq].provisioning ? s.prov[i] == kProvProvisioned : s.remote[i] == kRemoteRunning;
    const V booked = ite(only(holds_nodes), s.remote_flavor[i], val_.lit(-1));
    if (p_.cqs[cq].provisioning || p_.connection_faults()) take_capacity(s, w, j, booked, -1);
  }
  auto reset = [&](V& cell, std::int64_t v) {
    cell = when != nullptr ? ite(*when, val_.lit(v), cell) : val_.lit(v);
  };
  if (cq >= 0) dequeue(s, cq, j, when);
  reset(s.remote[i], kRemoteNone);
  reset(s.remote_flavor[i], -1);
  reset(s.prov[i], kProvNone);
  reset(s.attempts[i], 0);
  reset(s.nominated[i], 0);
  if (p_.connection_faults()) reset(s.job_created[i], 0);
}

template <class V>
auto MkRules<V>::visible_winner_elsewhere(const S& s, int j, int w) const -> B {
  B any = val_.truth(false);
  for (int o = 0; o < W_; ++o) {
    if (o == w) continue;
    const V& r = s.remote[jw(j, o)];
    any = any || (connected(s, o) && (winning(r) || r == kRemoteRunning));
  }
  return any;
}

template <class V>
void MkRules<V>::delete_reachable_remotes(S& s, int j, bool keep_nominations) const {
  for (int o = 0; o < W_; ++o) {
    const V nominated = s.nominated[jw(j, o)];
    if (!p_.connection_faults()) {
      delete_remote(s, j, o);
    } else {
      const B reach = connected(s, o);
      delete_remote(s, j, o, &reach);
    }
    s.nominated[jw(j, o)] = keep_nominations ? nominated : val_.lit(0);
  }
}

template <class V>
void MkRules<V>::finish_on_worker(S& s, int j, int w) const {
  const int i = jw(j, w);
  const B seen = connected(s, w) && s.cluster[j] == w;
  s.remote[i] = ite(seen, val_.lit(kRemoteNone), val_.lit(kRemoteFinished));
  s.job_created[i] = ite(seen, val_.lit(0), s.job_created[i]);  // deleted with its copy
  s.remote_flavor[i] = -1;
  s.prov[i] = kProvNone;
  s.attempts[i] = 0;
  add_usage(s, p_.manager_cq[j], j, ite(seen, s.mgr_flavor[j], val_.lit(-1)), -1);
  s.phase[j] = ite(seen, val_.lit(kMgrFinished), s.phase[j]);
  s.mgr_flavor[j] = ite(seen, val_.lit(-1), s.mgr_flavor[j]);
}

// ProvisioningRequest Failed (or timed out): attempt n <= backoffLimitCount
// maps the check to Retry, so the worker evicts the copy and requeues it;
// past the limit the check is Rejected and the copy is deactivated
// (provisioning/controller.go: syncCheckStates; workload_controller.go).
template <class V>
void MkRules<V>::fail_provisioning(S& s, int j, int w) const {
  const int i = jw(j, w);
  const int cq = p_.worker_cq[w][j];
  KMC_ASSERT_MSG(0 <= cq && cq < Q_,
                 "only a copy in a worker ClusterQueue has a ProvisioningRequest");
  add_usage(s, cq, j, s.remote_flavor[i], -1);
  const V attempt = s.attempts[i] + 1;
  s.attempts[i] = attempt;
  const B retried = attempt <= p_.cqs[cq].backoff_limit;
  s.remote[i] = ite(retried, val_.lit(kRemotePending), val_.lit(kRemoteRejected));
  enqueue(s, cq, j, &retried);  // evicted by the check: it waits from the eviction's time
  s.remote_flavor[i] = -1;
  s.prov[i] = kProvNone;
}

template <class V>
V MkRules<V>::held_nodes(const S& s, int w, int slot, int r) const {
  V held = val_.lit(0);
  for (int j = 0; j < J_; ++j) {
    const int cq = p_.worker_cq[w][j];
    if (cq < 0 || p_.req(j, r) == 0) continue;
    const int i = jw(j, w);
    const B holds =
        p_.cqs[cq].provisioning ? s.prov[i] == kProvProvisioned : s.remote[i] == kRemoteRunning;
    B here = val_.truth(false);
    for (int f = 0; f < static_cast<int>(p_.cqs[cq].flavors.size()); ++f)
      if (p_.cqs[cq].flavor_slot[f] == slot) here = here || s.remote_flavor[i] == f;
    held = held + ite(holds && here, val_.lit(p_.req(j, r)), val_.lit(0));
  }
  return held;
}

template <class V>
void MkRules<V>::capacity_changed(S& s, int w, const B& changed) const {
  if (p_.dispatcher != Dispatcher::CapacitySnapshot)
    return;  // only that dispatcher reads snapshots
  const std::int64_t cap = p_.max_staleness >= 0 ? p_.max_staleness + 1 : 1;
  V& st = s.staleness[w];
  st = ite(changed, ite(st + 1 > cap, val_.lit(cap), st + 1), st);
}

}  // namespace kmc::protocols

#include "protocols/multikueue_rules_actions.hpp"
#include "protocols/multikueue_rules_dispatch.hpp"
#include "protocols/multikueue_rules_queue.hpp"
