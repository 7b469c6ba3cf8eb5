// L3 in its bounded form (K10, seed 3): a ClusterQueue's head that waits
// for its victims' pods to terminate (a grace period of up to 15 minutes)
// must not hold back a workload of its queue that could be admitted, or
// issue its own preemptions, now. With Job victims, or with
// FastQuotaReleaseInPodIntegration, quota goes when the victims are evicted
// and nothing waits. Nor may it hold back another ClusterQueue's head in its
// cohort that the scheduling cycle skips for it (K11: before #2641, one
// preemption per cohort per cycle, an in-flight one included).
#include <fmt/format.h>

#include "invariants/admission_registry.hpp"
#include "protocols/kueue_admission/observe.hpp"

namespace kmc::invariants {

AdmissionProperty no_head_of_line_blocking(const AdmissionInstance& p) {
  const auto* params = &p.params();
  return AdmissionProperty::always(
      "no-head-of-line-blocking",
      "no workload that could be admitted now waits behind a head waiting for its victims to "
      "stop, in its ClusterQueue or its cohort",
      {.holds = [params](const AdmissionInstance::State& s) {
        const protocols::ka::Scheduler sched(*params);
        for (int cq = 0; cq < params->Q(); ++cq)
          if (protocols::ka::blocked_behind_head(sched, s, cq) >= 0 ||
              protocols::ka::held_back_in_cohort(sched, s, cq) >= 0)
            return false;
        return true;
      }});
}

}  // namespace kmc::invariants
