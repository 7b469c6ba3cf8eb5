// Late admission patches in protocol kueue-admission (kubernetes-sigs/kueue#11480):
// the scheduler sends a workload's admission patch from a goroutine, so a later
// cycle may preempt the workload while the patch is still in flight. Where the
// eviction's patch lands first, the admission patch, built before it, drops
// the Evicted condition (environment.lateAdmissionWrites; action
// EvictionOverwritten). Since #11502 the goroutine then satisfies the victim's
// preemption expectation and the next cycle evicts it again; before (variant
// pre-11502) the expectation waits forever and the preemptor with it.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using namespace ka_check::steps;
using kmc::checker::Verdict;

namespace {

// cq0 {cpu: 1}, withinClusterQueue LowerPriority: w0 (priority 10) arrives
// during the run, w1 (priority 0) is pending from the start. `late` admission
// patches may land after their eviction.
ka::AdmissionParams race(int late, bool fixed) {
  auto p = ka_check::queue_of_one(2, 1);
  p.cqs[0].within = ka::WithinCq::LowerPriority;
  p.workloads[0].priority = 10;
  p.workloads[0].arrives = true;
  p.late_admission_writes = late;
  p.satisfy_expectation_on_admission = fixed;
  p.finish();
  return p;
}

const ka::Action kArrive0{ka::kArrive, 0};

ka::Action overwritten(std::int16_t victim) {
  return ka::Action{ka::kEvictionOverwritten, victim};
}

}  // namespace

TEST_CASE("late admission writes: exact state counts", "[admission][late-writes][counts]") {
  // Without the budget, by hand, (w0, w1) with P pending, I parked, A
  // admitted, F finished, - absent: (-,P) (-,A) (P,P) (-,F) (P,A) (A,P)
  // (P,P sticky w0) (A,I) (P,F) (F,P) (A,F) (F,A) (F,F): 13 states, 16 edges.
  const std::vector<std::string> safety{"no-over-admission", "usage-counted-once"};
  auto o = check(race(0, true), safety);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 13);
  CHECK(o.result.stats.transitions == 16);
  // One late write: while the budget is unspent every admission's patch is
  // in flight first, a twin of each of the 6 states above where a workload
  // is Admitted: 19. The budget is spent only from (P,A) with w1's patch in
  // flight, where the cycle's eviction of w1 is overwritten: (P,A sticky w0),
  // and from there the baseline's way on with nothing in flight: (P,P
  // sticky), (P,F sticky), (A,P), (A,I), (A,F), (F,P), (F,A), (F,F): 9 more.
  // The preemptor w0 stays sticky while its own admission's patch is in
  // flight (Kueue forgets it when the workload controller sees the
  // reservation): (A*,P sticky w0) and, after a cycle parks w1, (A*,I sticky
  // w0), each landing where the baseline does: 2 more states, 3 more edges.
  o = check(race(1, true), safety);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 30);
  CHECK(o.result.stats.transitions == 39);
  // Before #11502 the overwritten victim is never evicted again: after the
  // overwrite only (P,A sticky, expecting w1), then w1's end (P,F sticky),
  // (A,F) and (F,F): 19 + 4, and the same 2 sticky twins in flight.
  o = check(race(1, false), safety);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 25);
  CHECK(o.result.stats.transitions == 33);
}

TEST_CASE("late admission writes: before #11502 the preemptor waits forever",
          "[admission][late-writes]") {
  const auto p = race(1, false);
  ka_check::Walk step(p);
  auto& s = step.s;
  const auto& rules = step.rules;
  step(kSchedule);  // w1 admitted, its patch in flight
  CHECK(s.phase[1] == ka::kAdmitted);
  CHECK(s.writing[1] == 1);
  // No cycle would evict w1 yet: nothing preempts.
  CHECK_FALSE(rules.enabled(s, overwritten(1)));
  step(kArrive0);
  step(overwritten(1));
  CHECK(s.phase[1] == ka::kAdmitted);  // the Evicted condition was dropped: it runs on
  CHECK(s.writing[1] == 0);            // the late patch landed
  CHECK(s.expecting[1] == 1);          // the expectation still waits for the eviction
  CHECK(s.sticky[0] == 0);             // w0 counted it preempted: pending preemption
  CHECK(s.phase[0] == ka::kPending);
  const auto stuck = s;
  step(kSchedule);  // "Preemption already issued, waiting for observation"
  CHECK(s == stuck);
  CHECK_FALSE(rules.enabled(s, overwritten(1)));  // landed: nothing left to overwrite
  // Only the job's end frees the quota.
  step(finish(1));
  CHECK(s.expecting[1] == 0);
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
}

TEST_CASE("late admission writes: since #11502 the next cycle evicts the victim again",
          "[admission][late-writes]") {
  const auto p = race(1, true);
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  step(kArrive0);
  step(overwritten(1));
  CHECK(s.phase[1] == ka::kAdmitted);
  CHECK(s.sticky[0] == 0);
  step(kSchedule);  // evicted again; a Job's quota goes with the eviction
  CHECK(s.phase[1] == ka::kPending);
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
}

TEST_CASE("late admission writes: a restart forgets the expectation", "[admission][late-writes]") {
  auto p = race(1, false);
  p.controller_restarts = 1;
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  step(kArrive0);
  step(overwritten(1));
  CHECK(s.expecting[1] == 1);
  step(ka::Action{ka::kRestart, -1});  // preemptionExpectations live in memory
  CHECK(s.expecting[1] == 0);
  step(kSchedule);
  CHECK(s.phase[1] == ka::kPending);
}

TEST_CASE("late admission writes: the guarantee property tells the variant from the fix",
          "[admission][late-writes]") {
  // The example's shape: cq1 {cpu: 0} borrows cq0's unit for w1; w0 (cq0)
  // arrives and reclaims it (reclaimWithinCohort Any). w1 is never within
  // its guarantee, so only the race can keep w0 from admission.
  auto cohort = [](bool fixed) {
    auto p = ka_check::two_in_cohort(1, 0);
    p.cqs[0].reclaim = ka::Reclaim::Any;
    p.workloads[0].req = {1};
    p.workloads[0].arrives = true;
    p.late_admission_writes = 1;
    p.satisfy_expectation_on_admission = fixed;
    p.finish();
    return p;
  };
  auto o = check(cohort(false), {"guarantee-eventually-admitted"});
  CHECK(o.result.verdict == Verdict::Violated);
  o = check(cohort(true), {"guarantee-eventually-admitted"});
  CHECK(o.result.verdict == Verdict::Verified);
  // Without the budget the same cohort verifies before #11502 too.
  auto p = cohort(false);
  p.late_admission_writes = 0;
  p.finish();
  o = check(p, {"guarantee-eventually-admitted"});
  CHECK(o.result.verdict == Verdict::Verified);
}
