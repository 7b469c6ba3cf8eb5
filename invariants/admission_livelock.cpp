// L2, no preemption livelock (K14): victims are not preempted over and over
// while a workload within its guarantee is never admitted. Before #7157 a
// preemptor could lose the quota its victims freed to a workload ahead of
// it, and preempt them again, forever.
#include "invariants/admission_registry.hpp"
#include "protocols/kueue_admission/observe.hpp"

namespace kmc::invariants {

namespace {

// w's queue drains (HoldAndDrain) in s.
bool drained(const protocols::ka::Scheduler& sched, const AdmissionInstance::State& s, int w) {
  using kmc::model::StopPolicy;
  return sched.lq_stop(s, w) == StopPolicy::HoldAndDrain ||
         sched.cq_stop(s, sched.params().workloads[w].cq) == StopPolicy::HoldAndDrain;
}

}  // namespace

AdmissionProperty no_preemption_livelock(const AdmissionInstance& p) {
  const auto* params = &p.params();
  using protocols::ka::kAdmitted;
  using protocols::ka::kEvicted;
  using protocols::ka::kPending;
  return AdmissionProperty::recurrence_free(
      "no-preemption-livelock",
      "no workload within its guarantee waits forever while others are preempted again and again",
      {.subjects = params->W(),
       .premise =
           [params](const AdmissionInstance::State& s, int w) {
             return protocols::ka::guaranteed(protocols::ka::Scheduler(*params), s, w);
           },
       // A step that preempts: some admitted workload is evicted (or, its
       // quota going at once, put back in its queue) by the scheduler.
       // A queue stopped since (stopPolicy) unsets or drains its workloads itself:
       // not a preemption.
       .step =
           [params, stops = params->any_stop()](const AdmissionInstance::State& from,
                                                const AdmissionInstance::State& to, int) {
             for (int v = 0; v < params->W(); ++v) {
               if ((from.phase[v] != kAdmitted && from.phase[v] != protocols::ka::kReserved) ||
                   (to.phase[v] != kEvicted && to.phase[v] != kPending))
                 continue;
               if (!stops) return true;
               const protocols::ka::Scheduler sched(*params);
               if (!(from.phase[v] == protocols::ka::kReserved ? !sched.queued(to, v)
                                                               : drained(sched, to, v)))
                 return true;
             }
             return false;
           }});
}

}  // namespace kmc::invariants
