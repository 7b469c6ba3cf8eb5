// PrioritizePreemptorWorkloads (alpha, Kueue 0.20, #13662) in protocol
// kueue-admission: a ClusterQueue's preemptor (the sticky cell, kept for a
// StrictFIFO queue too under the gate) goes first in the cycle and, with no
// candidates left to preempt, keeps the quota it could use even where its
// queue can always reclaim (reserveCapacityForUnreclaimablePreempt).
// tests/engine/prioritize_preemptors_test.cpp has the engine's side.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using namespace ka_check::steps;

namespace {

// Cohort "co" over cq0 {cpu: 10} (reclaimWithinCohort Any) and cq1 {cpu: 0}:
// keep (cq0, priority 100, 8 cpu) holds cq0 from the start; high (cq0,
// priority 10, 9 cpu) cannot preempt it; borrower (cq1, 2 cpu) may borrow
// the 2 cpu left.
ka::AdmissionParams cohort(bool gate, bool strict) {
  auto p = ka_check::two_in_cohort(10, 0);
  p.cqs[0].reclaim = ka::Reclaim::Any;
  p.cqs[0].within = ka::WithinCq::LowerPriority;
  p.cqs[0].strict_fifo = strict;
  p.workloads = {ka_check::workload("ns/keep", 0, 100, {8}, 0, 0),
                 ka_check::workload("ns/high", 0, 10, {9}, -1, 1),
                 ka_check::workload("ns/borrower", 1, 0, {2}, -1, 2)};
  p.prioritize_preemptors = gate;
  p.finish();
  return p;
}

// high is its queue's preemptor (its victims going, say) when the cycle runs.
bool borrower_admitted(bool gate, bool strict, int cycles = 1) {
  const auto p = cohort(gate, strict);  // Walk keeps a reference
  ka_check::Walk w(p);
  w.s.sticky[0] = 1;
  for (int i = 0; i < cycles; ++i) w(kSchedule);
  return w.s.phase[2] == ka::kAdmitted;
}

}  // namespace

TEST_CASE("prioritize preemptors: off, a borrower takes what the preemptor would use",
          "[admission][preemption]") {
  CHECK(borrower_admitted(false, false));
}

TEST_CASE("prioritize preemptors: on, the preemptor keeps it, in either queueing strategy",
          "[admission][preemption]") {
  CHECK_FALSE(borrower_admitted(true, false));
  CHECK_FALSE(borrower_admitted(true, true));
  // A BestEffortFIFO queue parks its preemptor with no candidates: the next
  // cycle has the borrower alone. A StrictFIFO one keeps it at its head.
  CHECK(borrower_admitted(true, false, 2));
  CHECK_FALSE(borrower_admitted(true, true, 2));
}

TEST_CASE("prioritize preemptors: a StrictFIFO preemptor sticks, so some-preemption is checked",
          "[admission][preemption][sometimes]") {
  CHECK_FALSE(cohort(false, true).some_preemption_unchecked().empty());
  CHECK(cohort(true, true).some_preemption_unchecked().empty());
  CHECK(cohort(true, false).some_preemption_unchecked().empty());
  // And the guard holds: high reclaims what borrower borrows, and sticks.
  const auto o = ka_check::check(cohort(true, true), {"some-preemption"});
  CHECK(o.result.verdict == kmc::checker::Verdict::Verified);
}
