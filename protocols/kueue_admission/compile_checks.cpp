// The ClusterQueues' admission checks, compiled for compile_admission: which
// checks each flavor's reservation waits for, which a workload needs, and how
// the autoscaler may answer each.
#include <fmt/format.h>

#include <algorithm>

#include "model/provisioning_class.hpp"
#include "protocols/kueue_admission/compile_parts.hpp"
#include "protocols/kueue_admission/state.hpp"

namespace kmc::protocols::ka {

using model::InputError;

// The ClusterQueue's admission checks as bits over p.checks, per flavor
// (AdmissionChecksForWorkload with an admission: onFlavors, or every flavor).
// Only the ProvisioningRequest controller's are modelled: its answers are the
// autoscaler's (kmc.yaml autoscaler.answer).
std::vector<std::int64_t> compile_checks(const model::ClusterManifests& m, AdmissionParams& p,
                                         const model::ClusterQueue& q,
                                         const std::vector<int>& flavors) {
  std::vector<std::int64_t> on(p.F(), 0);
  const char* field = "spec.admissionChecksStrategy";
  for (const auto& rule : q.admission_checks) {
    const model::AdmissionCheck* ac = m.find_admission_check(rule.name);
    if (ac == nullptr)
      throw InputError(q.meta.pos, field,
                       fmt::format("no AdmissionCheck {} (Kueue keeps the ClusterQueue "
                                   "inactive: it admits nothing)",
                                   rule.name));
    if (ac->controller_name == model::kMultiKueueController)
      throw InputError(ac->meta.pos, "spec.controllerName",
                       fmt::format("{} is a MultiKueue check: check the manager and its "
                                   "workers with protocol: multikueue",
                                   rule.name));
    if (ac->controller_name != model::kProvisioningController)
      throw InputError(ac->meta.pos, "spec.controllerName",
                       fmt::format("kueue-admission models the ProvisioningRequest "
                                   "controller's checks ({}) only; {} answers for {}",
                                   model::kProvisioningController, ac->controller_name, rule.name));
    const auto* cfg = m.find_provisioning_config(ac->parameters.name);
    if (cfg == nullptr)
      throw InputError(ac->meta.pos, "spec.parameters.name",
                       fmt::format("no ProvisioningRequestConfig {} (Kueue keeps the check "
                                   "inactive, and so the ClusterQueue)",
                                   ac->parameters.name));
    int k = 0;
    while (k < p.K() && p.checks[k].name != rule.name) ++k;
    if (k == p.K()) {
      CheckParams c;
      c.name = rule.name;
      c.check_capacity = cfg->provisioning_class_name == "check-capacity.autoscaling.x-k8s.io";
      c.retries_later = c.check_capacity && !model::check_capacity_no_retry(*cfg);
      c.backoff_limit = std::max(cfg->retry_strategy.backoff_limit_count, 0);
      // A resource that no ClusterQueue covers and no workload requests is
      // needed by none: -1 matches nothing (an empty list would mean every
      // resource), and the names, sized already, must not grow.
      for (const auto& r : cfg->managed_resources) {
        const auto it = std::find(p.resources.begin(), p.resources.end(), r);
        c.managed.push_back(it == p.resources.end() ? -1
                                                    : static_cast<int>(it - p.resources.begin()));
      }
      p.checks.push_back(std::move(c));
      if (p.K() > 8)
        throw InputError(q.meta.pos, field,
                         "kueue-admission models at most 8 admission checks in a cluster");
    }
    for (int f : flavors) {
      const bool applies =
          rule.on_flavors.empty() || std::find(rule.on_flavors.begin(), rule.on_flavors.end(),
                                               p.flavors[f]) != rule.on_flavors.end();
      if (applies) on[f] |= std::int64_t{1} << k;
    }
  }
  return on;
}

// reqIsNeeded: the checks whose ProvisioningRequest w needs, of those in `mask`.
std::int64_t needed_checks(const AdmissionParams& p, const WorkloadParams& w, std::int64_t mask) {
  std::int64_t out = 0;
  for (int k = 0; k < p.K(); ++k) {
    if ((mask >> k & 1) == 0) continue;
    const auto& managed = p.checks[k].managed;
    for (int r = 0; r < p.R(); ++r)
      if (w.req[r] > 0 &&
          (managed.empty() || std::find(managed.begin(), managed.end(), r) != managed.end()))
        out |= std::int64_t{1} << k;
  }
  return out;
}

// A check-capacity request that is retried later is answered only once the
// autoscaler finds room: it is Provisioned where autoscaler.answer says the
// autoscaler provisions (Provisions, Any), and never answered where it says
// it does not (Fails, AcceptsThenHangs: no room, tried again forever).
bool AdmissionParams::may_provision(int k) const {
  if (checks[k].retries_later)
    return answer == model::AutoscalerAnswer::Provisions || answer == model::AutoscalerAnswer::Any;
  return checks[k].check_capacity || answer != model::AutoscalerAnswer::AcceptsThenHangs;
}

bool AdmissionParams::may_fail(int k) const {
  if (checks[k].retries_later) return false;
  if (checks[k].check_capacity) return true;  // no capacity now: Failed at once
  return answer == model::AutoscalerAnswer::Fails || answer == model::AutoscalerAnswer::Any;
}

std::int64_t AdmissionParams::checks_on_every_flavor(int cq) const {
  const CqParams& q = cqs[static_cast<std::size_t>(cq)];
  if (q.checks_on.empty()) return 0;
  std::int64_t all = ~std::int64_t{0};
  for (int f : q.flavors) all &= q.checks_on[static_cast<std::size_t>(f)];
  for (int f : q.fixed_flavor)
    if (f >= 0) all &= q.checks_on[static_cast<std::size_t>(f)];
  return all;
}

// The checks w waits for with each flavor chosen, and its checks' status in a
// dump: retryCount, Ready, and whether a reservation is Admitted already.
void compile_workload_checks(const AdmissionParams& p, const model::Workload& wl,
                             WorkloadParams& w) {
  w.checks.assign(p.F(), 0);
  // Kueue's checks for an admission are those on any flavor assigned to what
  // the workload requests (findAdmissionFlavors), in whichever group.
  for (int f = 0; f < p.F(); ++f) {
    std::int64_t on = 0;
    for (int r = 0; r < p.R(); ++r)
      if (w.req[r] > 0) on |= p.cqs[w.cq].checks_on[p.cell(w.cq, f, r) / p.R()];
    w.checks[f] = needed_checks(p, w, on);
  }
  w.initial_retries.assign(p.K(), 0);
  bool retry = false;
  for (int k = 0; k < p.K(); ++k) {
    const auto st = std::find_if(wl.admission_checks.begin(), wl.admission_checks.end(),
                                 [&](const auto& a) { return a.name == p.checks[k].name; });
    if (st == wl.admission_checks.end()) continue;
    // A retryCount past the limit fails the next attempt as the limit does.
    w.initial_retries[k] = std::min<std::int64_t>(st->retry_count, p.checks[k].backoff_limit);
    if (st->state == model::CheckState::Ready) w.initial_ready |= std::int64_t{1} << k;
    // Retry while it holds its reservation: held until requeueAt, its
    // count one up, as the eviction then sets it (rules.hpp kProvisioningFailed).
    if (st->state == model::CheckState::Retry && w.initial_flavor >= 0) {
      retry = true;
      w.initial_retries[k] = std::min<std::int64_t>(st->retry_count + 1, p.checks[k].backoff_limit);
    }
  }
  if (w.initial_flavor >= 0) {
    w.initial_admitted = std::any_of(wl.conditions.begin(), wl.conditions.end(), [](const auto& c) {
      return c.type == "Admitted" && c.status == "True";
    });
    const std::int64_t waits = w.checks[w.initial_flavor];
    // Without checks Kueue sets Admitted with QuotaReserved; a dump that shows
    // only the reservation is read as Admitted, as before checks were modelled.
    if (waits == 0) w.initial_admitted = true;
    w.initial_ready &= waits;
    if (!w.initial_admitted && (w.initial_ready & waits) == waits) w.initial_admitted = true;
    if (retry && !w.initial_admitted) w.initial_ready |= retry_hold_bit(p.K());
  }
}

}  // namespace kmc::protocols::ka
