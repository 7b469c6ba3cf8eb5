// Guards and updates of the Kueue admission protocol.
//
// Explicit values only, for now: the scheduling cycle (scheduler.hpp) is
// Kueue's algorithm with sorting and loops over the state's values, which
// the symbolic engine (V = sym::Int) cannot run; writing it over ite() terms
// is the SMT issue's work. Everything else about the protocol (layout,
// traces, replay, shrinking) is derived from the definition as for any other.
#pragma once

#include <cstdint>

#include "model/value.hpp"
#include "protocols/kueue_admission/scheduler.hpp"

namespace kmc::protocols::ka {

enum Kind : std::int16_t {
  kSchedule,        // one scheduling cycle
  kFinish,          // an admitted workload's job completes
  kPodsTerminated,  // an evicted Pod group's pods are gone: its quota is released
  kKubeletLost,     // an evicted workload's pods get stuck terminating (a fault)
  kForceFail,       // the PodTermination controller fails stuck pods (#7312)
  kRestart,         // Kueue's manager restarts: its in-memory queue state is lost (a fault)
  kArrive,          // a workload of environment.arrivals is created
};

struct Action {
  Kind kind = kSchedule;
  std::int16_t workload = -1;
  int id = -1;
};

template <class V>
class Rules {
  static_assert(model::is_explicit<V>, "the admission protocol runs on explicit values only");

 public:
  Rules(const AdmissionParams& p, model::Values<V>) : p_(p), sched_(p) {}

  bool enabled(const State<V>& s, const Action& a) const {
    const int w = a.workload;
    switch (a.kind) {
      case kSchedule:
        return sched_.any_head(s);
      case kFinish:
        return s.phase[w] == kAdmitted;
      case kPodsTerminated:
        return s.phase[w] == kEvicted;
      case kKubeletLost:
        return s.phase[w] == kEvicted && s.budget[kBudgetStuck] > 0;
      case kForceFail:
        return s.phase[w] == kStuck;
      case kRestart:
        // Only a restart that loses something: a parked workload or a sticky head.
        if (p_.controller_restarts >= 0 && s.budget[kBudgetRestart] <= 0) return false;
        for (const auto& v : s.sticky)
          if (v >= 0) return true;
        for (const auto& v : s.phase)
          if (v == kInadmissible) return true;
        return false;
      case kArrive: {
        const int before = p_.workloads[w].arrives_after;
        return s.phase[w] == kAbsent && (before < 0 || s.phase[before] != kAbsent);
      }
    }
    return false;
  }

  void apply_in_place(State<V>& s, const Action& a) const {
    const int w = a.workload;
    switch (a.kind) {
      case kSchedule:
        sched_.cycle(s);
        break;
      case kFinish:
        sched_.release(s, w);
        s.phase[w] = kFinished;
        break;
      case kPodsTerminated:
      case kForceFail:
        // The job reconciler unsets the reservation (Requeued: preempted),
        // and the workload goes back to its queue.
        sched_.release(s, w);
        s.phase[w] = kPending;
        break;
      case kKubeletLost:
        s.phase[w] = kStuck;
        --s.budget[kBudgetStuck];
        break;
      case kRestart:
        // The queues rebuilt from the Workloads: every waiting one back in its
        // heap, no preemptor kept at a head. Reservations are in status, kept.
        for (auto& v : s.sticky) v = -1;
        for (auto& v : s.phase)
          if (v == kInadmissible) v = kPending;
        if (p_.controller_restarts > 0) --s.budget[kBudgetRestart];
        break;
      case kArrive:
        // Into its ClusterQueue's heap; a new workload frees no quota, so
        // nothing parked is requeued.
        s.phase[w] = kPending;
        break;
    }
  }

 private:
  const AdmissionParams& p_;
  Scheduler sched_;
};

}  // namespace kmc::protocols::ka
