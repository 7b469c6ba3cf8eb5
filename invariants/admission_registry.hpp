// The named properties of the Kueue admission protocol (one cluster). Each
// lives in its own file (invariants/admission_*.cpp); this registry lists
// them in the order they are checked and printed.
#pragma once

#include <vector>

#include "model/property.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace kmc::invariants {

using AdmissionInstance = protocols::ka::Instance;
using AdmissionProperty = model::Property<AdmissionInstance::State>;

AdmissionProperty no_over_admission(const AdmissionInstance& p);
AdmissionProperty usage_counted_once(const AdmissionInstance& p);
AdmissionProperty no_head_of_line_blocking(const AdmissionInstance& p);
AdmissionProperty guarantee_not_stuck(const AdmissionInstance& p);
AdmissionProperty some_workload_admitted(const AdmissionInstance& p);
AdmissionProperty some_preemption(const AdmissionInstance& p);
AdmissionProperty guarantee_eventually_admitted(const AdmissionInstance& p);
AdmissionProperty no_preemption_livelock(const AdmissionInstance& p);
// Registered where a deleted pod group may be re-adopted (K12).
AdmissionProperty no_workload_for_terminating_pods(const AdmissionInstance& p);
// Registered where a restart or a queue edit can push a workload in backoff (I8).
AdmissionProperty no_requeue_before_backoff(const AdmissionInstance& p);

// Every property, in registry order (some-preemption only where preemption
// is configured). The instance must outlive them. Liveness comes last and
// is checked only when named.
std::vector<AdmissionProperty> admission_properties(const AdmissionInstance& p);

}  // namespace kmc::invariants
