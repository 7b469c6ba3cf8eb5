// Whether the guard some-preemption can be decided on kmc's states: every
// preemption must leave a mark in some state, and nothing else may look like one.
#include <algorithm>
#include <string>

#include "protocols/kueue_admission/params.hpp"

namespace kmc::protocols::ka {

std::string AdmissionParams::some_preemption_unchecked() const {
  if (!preemption_configured()) return "no ClusterQueue of this cluster may preempt";
  if (!preemption_observable())
    return "a Job victim admitted during the run (or a Pod group the dump shows evicted, admitted "
           "again) leaves no mark in kmc's state under StrictFIFO (without "
           "PrioritizePreemptorWorkloads) or before #7157, so no state could witness its "
           "preemption";
  if (any_drain())
    return "a queue's stopPolicy HoldAndDrain evicts workloads as a preemption would, so a "
           "state could not tell the two apart";
  return "";
}

bool AdmissionParams::preemption_observable() const {
  // Under PrioritizePreemptorWorkloads a StrictFIFO queue keeps its preemptor
  // in the sticky cell too (Scheduler::cycle's stick).
  const bool sticks = sticky_head && std::none_of(cqs.begin(), cqs.end(), [&](const CqParams& c) {
                        return c.strict_fifo && !prioritize_preemptors &&
                               (c.within != WithinCq::Never || c.reclaim != Reclaim::Never);
                      });
  // A Pod group the dump caught halfway through an eviction: its Evicted phase
  // witnesses nothing (that eviction came before the run), so neither does a
  // later preemption of it, unless the preemptor sticks.
  return sticks || std::none_of(workloads.begin(), workloads.end(), [&](const WorkloadParams& w) {
           return ((!w.pods || fast_quota_release) && w.initial_flavor < 0) || w.initial_evicted;
         });
}

}  // namespace kmc::protocols::ka
