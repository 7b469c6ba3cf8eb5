#include "protocols/multikueue.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "model/fingerprint.hpp"
#include "protocols/multikueue_rules.hpp"

namespace kmc::protocols {

template class MkRules<std::int64_t>;

const char* manager_phase_name(std::int64_t v) {
  static const char* names[] = {"Pending", "QuotaReserved", "Admitted", "Finished"};
  return v >= 0 && v < 4 ? names[v] : "?";
}
const char* remote_phase_name(std::int64_t v) {
  static const char* names[] = {"-", "Pending", "QuotaReserved", "Admitted", "Running", "Finished", "Rejected"};
  return v >= 0 && v < 7 ? names[v] : "?";
}
const char* prov_phase_name(std::int64_t v) {
  static const char* names[] = {"-", "Requested", "Accepted", "Provisioned"};
  return v >= 0 && v < 4 ? names[v] : "?";
}
const char* action_kind_name(ActionKind k) {
  static const char* names[] = {
      "ReserveQuota", "Nominate", "NominateNextRound", "NominateWorker", "Renominate",
      "CreateRemoteWorkload", "ReserveQuotaOnWorker", "ProvisioningAccepted", "ProvisioningProvisioned",
      "ProvisioningFailed", "ProvisioningTimeout", "SelectWorker", "JobStarted", "JobFinished",
      "SpotReclaim", "CapacityLost", "RefreshSnapshot", "RetryDispatch"};
  return names[static_cast<int>(k)];
}

MultiKueue::MultiKueue(MkParams params) : p_(std::move(params)) { build_candidates(); }

void MultiKueue::build_candidates() {
  const auto J = static_cast<std::int16_t>(p_.J()), W = static_cast<std::int16_t>(p_.W());
  auto add = [&](ActionKind k, std::int16_t j, std::int16_t w, std::int16_t slot = -1) {
    candidates_.push_back(MkAction{k, j, w, slot, static_cast<std::int16_t>(candidates_.size())});
  };
  const bool snapshot = p_.dispatcher == Dispatcher::CapacitySnapshot;
  for (std::int16_t j = 0; j < J; ++j) {
    add(ActionKind::ReserveQuota, j, -1);
    if (!snapshot) add(ActionKind::Nominate, j, -1);
    if (p_.dispatcher == Dispatcher::Incremental) add(ActionKind::NominateNextRound, j, -1);
    if (snapshot) {
      for (std::int16_t w = 0; w < W; ++w) add(ActionKind::NominateWorker, j, w);
      add(ActionKind::Renominate, j, -1);
    }
    for (std::int16_t w = 0; w < W; ++w) {
      add(ActionKind::CreateRemoteWorkload, j, w);
      add(ActionKind::ReserveQuotaOnWorker, j, w);
      const int cq = p_.worker_cq[w][j];
      if (cq >= 0 && p_.cqs[cq].provisioning) {
        add(ActionKind::ProvisioningAccepted, j, w);
        add(ActionKind::ProvisioningProvisioned, j, w);
        add(ActionKind::ProvisioningFailed, j, w);
        if (p_.provisioning_timeout) add(ActionKind::ProvisioningTimeout, j, w);
      }
      add(ActionKind::SelectWorker, j, w);
      add(ActionKind::JobStarted, j, w);
      add(ActionKind::JobFinished, j, w);
      if (p_.spot_reclaims != 0) add(ActionKind::SpotReclaim, j, w);
      add(ActionKind::RetryDispatch, j, w);
    }
  }
  for (std::int16_t w = 0; w < W; ++w) {
    if (p_.capacity_losses != 0)
      for (std::int16_t slot = 0; slot < static_cast<std::int16_t>(p_.worker_flavors[w].size()); ++slot)
        add(ActionKind::CapacityLost, -1, w, slot);
    if (snapshot && p_.snapshot_refreshes != 0) add(ActionKind::RefreshSnapshot, -1, w);
  }
}

std::vector<MultiKueue::State> MultiKueue::init_states() const {
  const int J = p_.J(), W = p_.W();
  State s;
  s.phase.assign(J, kMgrPending);
  s.cluster.assign(J, -1);
  s.mgr_flavor.assign(J, -1);
  s.nominated.assign(J * W, 0);
  s.remote.assign(J * W, kRemoteNone);
  s.remote_flavor.assign(J * W, -1);
  s.prov.assign(J * W, kProvNone);
  s.attempts.assign(J * W, 0);
  s.usage.assign(p_.cqs.size() * p_.flavors_max * p_.R(), 0);
  s.capacity = p_.capacity0;
  s.snapshot = p_.snapshot0;
  s.staleness.assign(W, 0);
  if (p_.dispatcher == Dispatcher::CapacitySnapshot)
    for (int w = 0; w < W; ++w)
      for (int k = 0; k < p_.slots_max * p_.R(); ++k)
        if (p_.snapshot0[w * p_.slots_max * p_.R() + k] != p_.capacity0[w * p_.slots_max * p_.R() + k]) s.staleness[w] = 1;
  s.budget = {p_.spot_reclaims, p_.capacity_losses, p_.snapshot_refreshes};
  return {std::move(s)};
}

void MultiKueue::actions(const State& s, std::vector<Action>& out) const {
  const MkRules<std::int64_t> rules(p_, model::ExplicitValues{});
  for (const auto& a : candidates_)
    if (rules.enabled(s, a)) out.push_back(a);
}

MultiKueue::State MultiKueue::next(const State& s, const Action& a) const {
  return MkRules<std::int64_t>(p_, model::ExplicitValues{}).apply(s, a);
}

void MultiKueue::next_into(const State& s, const Action& a, State& out) const {
  out = s;  // copy-assignment keeps out's capacity: no allocation after the first
  MkRules<std::int64_t>(p_, model::ExplicitValues{}).apply_in_place(out, a);
}

namespace {
enum Family { kManagerScheduler, kMultiKueueController, kWorkerScheduler, kJobController, kAutoscaler,
              kProvisioningTimeout, kJobCompletion, kEnvironment, kSnapshotRefresh, kFamilies };
}  // namespace

int MultiKueue::family(const Action& a) const {
  switch (a.kind) {
    case ActionKind::ReserveQuota: return kManagerScheduler;
    case ActionKind::ReserveQuotaOnWorker: return kWorkerScheduler;
    case ActionKind::JobStarted: return kJobController;
    case ActionKind::ProvisioningAccepted:
    case ActionKind::ProvisioningProvisioned:
    case ActionKind::ProvisioningFailed: return kAutoscaler;
    case ActionKind::ProvisioningTimeout: return kProvisioningTimeout;
    case ActionKind::JobFinished: return kJobCompletion;
    case ActionKind::SpotReclaim:
    case ActionKind::CapacityLost: return kEnvironment;
    case ActionKind::RefreshSnapshot: return kSnapshotRefresh;
    default: return kMultiKueueController;  // nomination, creation, selection, re-dispatch
  }
}

std::vector<std::string> MultiKueue::families() const {
  return {"manager-scheduler", "multikueue-controller", "worker-scheduler", "job-controller", "autoscaler",
          "provisioning-timeout", "job-completion", "environment", "snapshot-refresh"};
}

std::vector<int> MultiKueue::default_fairness() const { return {1, 1, 1, 1, 0, 1, 1, 0, 1}; }

std::uint64_t MultiKueue::identity() const {
  model::Hasher h;
  auto add = [&](const auto& v) { model::hash_append(h, v); };
  add(p_.resources), add(p_.jobs), add(p_.request), add(p_.manager_cq), add(p_.workers);
  for (const auto& row : p_.worker_cq) add(std::vector<std::int64_t>(row.begin(), row.end()));
  for (const auto& q : p_.cqs) {
    add(q.name), add(q.flavors), add(q.nominal);
    add(std::vector<std::int64_t>{q.cluster, q.strict_fifo, q.provisioning, static_cast<std::int64_t>(q.provisioning_class), q.backoff_limit});
  }
  add(p_.capacity0), add(p_.snapshot0);
  for (auto a : p_.answer) add(static_cast<std::int64_t>(a));
  add(std::vector<std::int64_t>(p_.dispatch_order.begin(), p_.dispatch_order.end()));
  add(std::vector<std::int64_t>{static_cast<std::int64_t>(p_.dispatcher), p_.step_size, p_.pin, p_.max_staleness,
                                p_.wait_for_admitted, p_.redispatch_on_worker_eviction, p_.provisioning_timeout,
                                static_cast<std::int64_t>(p_.timeout_vs_boot),
                                p_.broken_worker_ignores_quota, p_.broken_keep_losers, p_.spot_reclaims,
                                p_.capacity_losses, p_.snapshot_refreshes});
  // Hashed only when some worker turns waitForPodsReady off, so the identities
  // (and replay tokens) of scenarios that keep the default did not change.
  if (std::find(p_.pods_ready_eviction.begin(), p_.pods_ready_eviction.end(), false) != p_.pods_ready_eviction.end())
    add(std::vector<std::int64_t>(p_.pods_ready_eviction.begin(), p_.pods_ready_eviction.end()));
  return model::mix64(h.h);
}

std::uint64_t MultiKueue::fingerprint(const State& s) const { return model::fingerprint(s); }

std::string MultiKueue::action_name(const Action& a) const {
  std::string out = action_kind_name(a.kind);
  std::vector<std::string> args;
  if (a.job >= 0) args.push_back(p_.jobs[a.job]);
  if (a.worker >= 0) args.push_back(p_.workers[a.worker]);
  if (a.slot >= 0) args.push_back(p_.worker_flavors[a.worker][a.slot]);
  return args.empty() ? out : fmt::format("{}({})", out, fmt::join(args, ", "));
}

std::vector<std::pair<std::string, std::string>> MultiKueue::picks(const Action& a) const {
  std::vector<std::pair<std::string, std::string>> out;
  if (a.job >= 0) out.emplace_back("job", p_.jobs[a.job]);
  if (a.worker >= 0) out.emplace_back("cluster", p_.workers[a.worker]);
  if (a.slot >= 0) out.emplace_back("flavor", p_.worker_flavors[a.worker][a.slot]);
  return out;
}

}  // namespace kmc::protocols
