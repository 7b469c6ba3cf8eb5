// I1, capacity (known-bugs.md §4): the quota held by admitted workloads
// stays within every ClusterQueue's and cohort's limits. Victims whose pods
// are still terminating are left out: Kueue's scheduler counts them as gone
// once it has chosen them (scheduler.fits), so the cache may exceed a limit
// until they stop, by design.
#include "invariants/admission_registry.hpp"
#include "protocols/kueue_admission/observe.hpp"

namespace kmc::invariants {

AdmissionProperty no_over_admission(const AdmissionInstance& p) {
  const auto* params = &p.params();
  return AdmissionProperty::always(
      "no-over-admission", "no ClusterQueue or cohort holds more than its quota and limits allow",
      {.holds = [params](const AdmissionInstance::State& s) {
        return protocols::ka::over_admission(protocols::ka::Scheduler(*params), s).empty();
      }});
}

}  // namespace kmc::invariants
