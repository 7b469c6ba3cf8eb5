// Guards against vacuity: a scenario where nothing is ever admitted, or
// where preemption is configured and never happens, passes its safety
// properties for no reason.
#include "invariants/admission_registry.hpp"

namespace kmc::invariants {

using protocols::ka::kAdmitted;
using protocols::ka::kEvicted;

AdmissionProperty some_workload_admitted(const AdmissionInstance& p) {
  const int W = p.params().W();
  return AdmissionProperty::sometimes("some-workload-admitted", "some workload is admitted",
                                      {.holds = [W](const AdmissionInstance::State& s) {
                                        for (int w = 0; w < W; ++w)
                                          if (s.phase[w] == kAdmitted) return true;
                                        return false;
                                      }});
}

// A preemption shows in a state as an evicted workload whose pods are
// terminating, or as the preemptor kept at its queue's head
// (BestEffortFIFO). A Job victim under StrictFIFO leaves no such trace (its
// quota goes at once and nothing is sticky): there this guard cannot tell.
AdmissionProperty some_preemption(const AdmissionInstance& p) {
  const int W = p.params().W(), Q = p.params().Q();
  return AdmissionProperty::sometimes("some-preemption", "some workload is preempted",
                                      {.holds = [W, Q](const AdmissionInstance::State& s) {
                                        for (int w = 0; w < W; ++w)
                                          if (s.phase[w] == kEvicted) return true;
                                        for (int q = 0; q < Q; ++q)
                                          if (s.sticky[q] >= 0) return true;
                                        return false;
                                      }});
}

}  // namespace kmc::invariants
