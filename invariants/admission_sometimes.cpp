// Guards against vacuity: a scenario where nothing is ever admitted, or
// where preemption is configured and never happens, passes its safety
// properties for no reason.
#include <vector>

#include "invariants/admission_registry.hpp"

namespace kmc::invariants {

using protocols::ka::kAdmitted;
using protocols::ka::kEvicted;
using protocols::ka::kInadmissible;
using protocols::ka::kPending;
using protocols::ka::kStuck;

AdmissionProperty some_workload_admitted(const AdmissionInstance& p) {
  const int W = p.params().W();
  return AdmissionProperty::sometimes("some-workload-admitted", "some workload is admitted",
                                      {.holds = [W](const AdmissionInstance::State& s) {
                                        for (int w = 0; w < W; ++w)
                                          if (s.phase[w] == kAdmitted) return true;
                                        return false;
                                      }});
}

// A preemption shows in a state as an evicted workload (its pods
// terminating, or stuck), as the preemptor kept at its queue's head
// (BestEffortFIFO, or any queue under PrioritizePreemptorWorkloads), or as a
// workload that held quota from the start back in its queue (nothing else
// takes an admitted workload's quota away unfinished). A Job victim admitted
// during the run, under StrictFIFO without that gate or before #7157, leaves
// no such mark: the guard is registered only where every preemption
// does (AdmissionParams::preemption_observable). An eviction the dump caught
// halfway (WorkloadParams::initial_evicted) happened before the run: that
// workload's Evicted phase witnesses nothing, and a later preemption of it is
// witnessed by its preemptor sticking (preemption_observable asks for that).
AdmissionProperty some_preemption(const AdmissionInstance& p) {
  const int W = p.params().W(), Q = p.params().Q();
  std::vector<bool> held, dumped;
  for (const auto& w : p.params().workloads) {
    held.push_back(w.initial_flavor >= 0 && !w.initial_evicted);
    dumped.push_back(w.initial_evicted);
  }
  return AdmissionProperty::sometimes(
      "some-preemption", "some workload is preempted",
      {.holds = [W, Q, held, dumped](const AdmissionInstance::State& s) {
        for (int w = 0; w < W; ++w) {
          if (!dumped[w] && (s.phase[w] == kEvicted || s.phase[w] == kStuck)) return true;
          if (held[w] && (s.phase[w] == kPending || s.phase[w] == kInadmissible)) return true;
        }
        for (int q = 0; q < Q; ++q)
          if (s.sticky[q] >= 0) return true;
        return false;
      }});
}

}  // namespace kmc::invariants
