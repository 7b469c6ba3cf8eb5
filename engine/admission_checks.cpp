// Two-phase admission (kueue-semantics.md §5): which checks apply, the
// Admitted condition, check-based eviction (Retry) and deactivation
// (Rejected), and the ProvisioningRequest controller's condition mapping.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "engine/controllers.hpp"
#include "engine/lookup.hpp"

namespace kmc::engine {

const char* to_string(model::CheckState s) {
  switch (s) {
    case model::CheckState::Pending:
      return "Pending";
    case model::CheckState::Ready:
      return "Ready";
    case model::CheckState::Retry:
      return "Retry";
    case model::CheckState::Rejected:
      return "Rejected";
  }
  return "?";
}

// AdmissionChecksForWorkload.
std::vector<std::string> checks_for_workload(const Engine& e, const WorkloadInfo& w) {
  std::vector<std::string> out;
  if (w.cluster_queue < 0) return out;
  const ClusterQueueInfo& cq = e.cluster_queues[static_cast<size_t>(w.cluster_queue)];
  std::vector<std::string> all_flavors;
  for (const auto& g : cq.groups)
    all_flavors.insert(all_flavors.end(), g.flavors.begin(), g.flavors.end());
  std::vector<std::string> assigned;
  if (w.obj.admission) {
    for (const auto& psa : w.obj.admission->pod_set_assignments) {
      for (const auto& [r, f] : psa.flavors) assigned.push_back(f);
    }
  }
  for (const auto& rule : cq.spec.admission_checks) {
    const std::vector<std::string>& on = rule.on_flavors.empty() ? all_flavors : rule.on_flavors;
    bool applies = false;
    if (w.obj.admission) {
      for (const auto& f : assigned)
        applies = applies || std::find(on.begin(), on.end(), f) != on.end();
    } else {
      applies = std::all_of(all_flavors.begin(), all_flavors.end(), [&](const auto& f) {
        return std::find(on.begin(), on.end(), f) != on.end();
      });
    }
    if (applies) out.push_back(rule.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void sync_admission_checks(Engine& e, WorkloadInfo& w) {
  const std::vector<std::string> want = checks_for_workload(e, w);
  std::vector<model::AdmissionCheckState> next;
  for (const auto& name : want) {
    auto it = std::find_if(w.obj.admission_checks.begin(), w.obj.admission_checks.end(),
                           [&](const auto& s) { return s.name == name; });
    if (it != w.obj.admission_checks.end()) {
      next.push_back(*it);
    } else {
      next.push_back(
          model::AdmissionCheckState{name, model::CheckState::Pending, 0, std::nullopt, ""});
      w.check_ms[name] = e.now();
    }
  }
  w.obj.admission_checks = std::move(next);
}

bool sync_admitted(Engine& e, WorkloadInfo& w) {
  if (!w.has_quota_reservation() || w.is_admitted()) return false;
  for (const auto& s : w.obj.admission_checks) {
    if (s.state != model::CheckState::Ready) return false;
  }
  w.set_condition("Admitted", true, "Admitted", "The workload is admitted", e.now());
  e.status_changed(w.cluster_queue);  // admittedWorkloads
  e.log_line(fmt::format("{} admitted", w.key));
  start_job_if_admitted(e, w);
  return true;
}

namespace {

// buildAdmissionChecksMessage: the checks in `state`, by name, with their messages.
std::string checks_message(const WorkloadInfo& w, model::CheckState state) {
  std::vector<const model::AdmissionCheckState*> checks;
  for (const auto& s : w.obj.admission_checks)
    if (s.state == state) checks.push_back(&s);
  std::sort(checks.begin(), checks.end(), [](auto* a, auto* b) { return a->name < b->name; });
  std::string parts;
  for (const auto* c : checks) {
    if (!parts.empty()) parts += "; ";
    parts += c->message.empty() ? fmt::format("\"{}\"", c->name)
                                : fmt::format("\"{}\" ({})", c->name, c->message);
  }
  return fmt::format("{} in {} state: {}", checks.size() > 1 ? "AdmissionChecks" : "AdmissionCheck",
                     to_string(state), parts);
}

}  // namespace

// Workload controller Reconcile: NeedsRequeueAtUpdate, then reconcileCheckBasedEviction.
void reconcile_checks(Engine& e, WorkloadInfo& w) {
  std::optional<TimeMs> retry_at;
  bool rejected = false, retry = false;
  for (const auto& s : w.obj.admission_checks) {
    rejected = rejected || s.state == model::CheckState::Rejected;
    if (s.state != model::CheckState::Retry) continue;
    retry = true;
    const TimeMs at = w.check_ms[s.name] + s.requeue_after_seconds.value_or(0) * 1000;
    if (s.requeue_after_seconds) retry_at = std::max(retry_at.value_or(at), at);
  }
  if (retry_at && *retry_at > e.now() && (!w.requeue_at_ms || *retry_at > *w.requeue_at_ms))
    w.requeue_at_ms = retry_at;
  if (retry && e.options.retry_backoff_at_once && w.requeue_at_ms) w.requeue_at_ms = e.now();
  if (!w.has_quota_reservation() || w.is_evicted()) return;
  // Reconcile returns early for an active workload whose requeueAt is ahead
  // ("Waiting for backoff to finish"), before reconcileCheckBasedEviction: a
  // Retry check's workload keeps its reservation, and its quota, until the
  // backoff is over; then it is evicted and requeued at once.
  if (w.obj.active && w.requeue_at_ms && *w.requeue_at_ms > e.now()) {
    e.post(*w.requeue_at_ms, ev::BackoffExpired{w.key});
    return;
  }
  if (rejected) {
    deactivate_workload(
        e, w, "DeactivatedDueToAdmissionCheck",
        "The workload is deactivated due to " + checks_message(w, model::CheckState::Rejected));
    return;
  }
  if (retry) {
    evict_workload(e, w, "AdmissionCheck",
                   "Evicted due to " + checks_message(w, model::CheckState::Retry));
    return;
  }
  sync_admitted(e, w);
}

void set_check_state(Engine& e, WorkloadInfo& w, const std::string& check, model::CheckState state,
                     std::optional<std::int32_t> requeue_after_s, const std::string& message,
                     std::optional<TimeMs> transition_ms) {
  auto it = std::find_if(w.obj.admission_checks.begin(), w.obj.admission_checks.end(),
                         [&](const auto& s) { return s.name == check; });
  if (it == w.obj.admission_checks.end()) return;  // the check does not apply to this workload
  if (it->state != state) w.check_ms[check] = transition_ms.value_or(e.now());
  it->state = state;
  it->message = message;
  if (requeue_after_s) it->requeue_after_seconds = requeue_after_s;
  e.log_line(fmt::format("{} check {} -> {}", w.key, check, to_string(state)));
  reconcile_checks(e, w);
}

// pkg/util/wait Backoff.WaitTime over apimachinery's wait.Backoff (factor 2,
// jitter ignored): the first wait is the base, uncapped; each later one
// doubles and is capped; a cap of 0 is none.
std::int64_t backoff_wait_s(std::int64_t base, std::int64_t cap, std::int32_t n) {
  std::int64_t d = base;
  for (int i = 1; i < n; ++i) {
    if (cap > 0 && d >= cap) return cap;
    d = d > std::numeric_limits<std::int64_t>::max() / 2 ? std::numeric_limits<std::int64_t>::max()
                                                         : d * 2;
    if (cap > 0) d = std::min(d, cap);
  }
  return d;
}

std::int64_t provisioning_backoff_s(const model::RetryStrategy& s, std::int32_t n) {
  return backoff_wait_s(s.backoff_base_seconds, s.backoff_max_seconds, n);
}

namespace {

const model::ProvisioningRequestConfig* pr_config(const Engine& e, const std::string& check) {
  const model::AdmissionCheck* ac = find_admission_check(e.manifests, check);
  if (ac == nullptr || ac->controller_name != model::kProvisioningController) return nullptr;
  return find_provisioning_config(e.manifests, ac->parameters.name);
}

bool pr_needed(const model::ProvisioningRequestConfig& cfg, const WorkloadInfo& w) {
  for (const auto& ps : w.obj.pod_sets) {
    if (ps.count <= 0) continue;
    for (const auto& [r, q] : ps.requests) {
      if (cfg.managed_resources.empty() ||
          std::find(cfg.managed_resources.begin(), cfg.managed_resources.end(), r) !=
              cfg.managed_resources.end()) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

void provisioning_on_reservation(Engine& e, WorkloadInfo& w) {
  for (auto& s : w.obj.admission_checks) {
    const model::AdmissionCheck* ac = find_admission_check(e.manifests, s.name);
    if (ac == nullptr || ac->controller_name != model::kProvisioningController) continue;
    const auto* cfg = pr_config(e, s.name);
    if (cfg == nullptr) {
      s.message = "the check is not active";
    } else if (!pr_needed(*cfg, w)) {
      s.state = model::CheckState::Ready;
      s.message = "the provisioning request is not needed";
      w.check_ms[s.name] = e.now();
    } else {
      s.message = fmt::format("ProvisioningRequest {}-{}-{} created", w.obj.meta.name, s.name,
                              s.retry_count + 1);
    }
  }
}

// syncCheckStates: the first matching condition wins.
void provisioning_condition(Engine& e, WorkloadInfo& w, const std::string& check,
                            const std::string& cond) {
  const auto* cfg = pr_config(e, check);
  auto it = std::find_if(w.obj.admission_checks.begin(), w.obj.admission_checks.end(),
                         [&](const auto& s) { return s.name == check; });
  // An evicted workload's requests are deleted (CleanupProvisioningRequestsOnEviction) or left
  // alone: Reconcile returns before syncCheckStates either way.
  if (cfg == nullptr || it == w.obj.admission_checks.end() || !w.has_quota_reservation() ||
      w.is_evicted())
    return;
  const std::int32_t attempt = it->retry_count + 1;
  const std::string pr = fmt::format("{}-{}-{}", w.obj.meta.name, check, attempt);
  // syncCheckStates patches a copy of the stored check, lastTransitionTime included, and
  // SetAdmissionCheckState keeps a non-zero one: this controller's transitions keep the time the
  // check last went Pending, so a Retry's backoff (GetMaxRetryTime) counts from there, not from
  // the failure.
  // A check loaded from a dump has no known time (model::AdmissionCheckState keeps none): now.
  const auto known = w.check_ms.find(check);
  const TimeMs since = known != w.check_ms.end() ? known->second : e.now();
  auto set = [&](model::CheckState state, std::optional<std::int32_t> after, std::string message) {
    set_check_state(e, w, check, state, after, message, since);
  };
  auto failed = [&](const std::string& why) {
    if (attempt <= cfg->retry_strategy.backoff_limit_count) {
      const auto after = static_cast<std::int32_t>(
          provisioning_backoff_s(cfg->retry_strategy, it->retry_count + 1));
      set(model::CheckState::Retry, after, fmt::format("Retrying after {}: {}", why, pr));
    } else {
      set(model::CheckState::Rejected, std::nullopt, fmt::format("{}: {}", why, pr));
    }
  };
  if (cond == "Failed") {
    failed("ProvisioningRequest failed");
  } else if (cond == "CapacityRevoked") {
    if (w.obj.active && !w.is_finished()) {
      set(model::CheckState::Rejected, std::nullopt, "CapacityRevoked: " + pr);
    }
  } else if (cond == "BookingExpired") {
    if (!w.is_admitted()) failed("BookingExpired");
  } else if (cond == "Provisioned") {
    set(model::CheckState::Ready, std::nullopt, "ProvisioningRequest " + pr + " is provisioned");
  } else if (cond == "Accepted") {
    set(model::CheckState::Pending, std::nullopt, "ProvisioningRequest " + pr + " is accepted");
  }
}

}  // namespace kmc::engine
