// The PrioritySortingWithinCohort gate (beta, on by default) in protocol
// kueue-admission. Kueue reads it in three places: the classical iterator
// orders a cycle's entries by priority before their queue-order timestamps
// (scheduler.go makeClassicalIterator), so does fair sharing's tournament
// (fair_sharing_iterator.go), and with it off a workload preempted with reason
// InCohortReclaimWhileBorrowing waits from its preemption, not its creation
// (workload.go GetQueueOrderTimestamp). A ClusterQueue's heap orders by
// priority either way (cluster_queue.go queueOrderingFunc).
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/params.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using kmc::checker::Verdict;
using namespace ka_check::steps;

namespace {

// Cohort "co" {cpu: 0} over cq0 {cpu: 1} and cq1 {cpu: 1}: 2 cpu to share.
// w0 (cq0, created first, priority 0) and w1 (cq1, priority 10) both ask for
// 2 cpu, so both borrow and only one fits.
// With fair_sharing, the tournament orders them: neither lends, and both
// would borrow 1 of 2, an equal share.
ka::AdmissionParams rivals(bool priority_sorting, bool fair_sharing = false) {
  auto p = ka_check::two_in_cohort(1, 1);
  p.workloads[1].req = {2};
  p.workloads[1].priority = 10;
  p.priority_sorting_within_cohort = priority_sorting;
  if (fair_sharing) {
    p.fair_sharing = true;
    p.fs_strategies = {true, false};
  }
  p.finish();
  return p;
}

// As rivals, but w0 holds the cohort's 2 cpu from the start (borrowing 1),
// and cq1 may reclaim while borrowing (reclaimWithinCohort: Any,
// borrowWithinCohort: LowerPriority): w1 evicts w0 with reason
// InCohortReclaimWhileBorrowing. w2 (cq0, 1 cpu, priority 0) was created
// after w0 and waits behind it. With pod_group, w0 is a Pod group: its quota
// stays until its pods are gone.
ka::AdmissionParams reclaim_while_borrowing(bool priority_sorting, bool pod_group = false) {
  auto p = ka_check::two_in_cohort(1, 1);
  p.workloads[0].initial_flavor = 0;
  p.workloads[0].pods = pod_group;
  p.workloads[1].req = {2};
  p.workloads[1].priority = 10;
  p.cqs[1].reclaim = ka::Reclaim::Any;
  p.cqs[1].borrow_within_cohort = true;
  p.workloads.push_back(ka_check::workload("ns/w2", 0, 0, {1}, -1, 2));
  p.priority_sorting_within_cohort = priority_sorting;
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("PrioritySortingWithinCohort: a cycle's entries by priority, or by age with it off",
          "[admission][priority-sorting]") {
  SECTION("on (the default): the higher priority goes first") {
    const auto p = rivals(true);
    ka_check::Walk step(p);
    step(kSchedule);
    CHECK(step.s.phase[1] == ka::kAdmitted);
    CHECK(step.s.phase[0] != ka::kAdmitted);
  }
  SECTION("off: the older entry goes first") {
    const auto p = rivals(false);
    ka_check::Walk step(p);
    step(kSchedule);
    CHECK(step.s.phase[0] == ka::kAdmitted);
    CHECK(step.s.phase[1] != ka::kAdmitted);
  }
}

TEST_CASE("PrioritySortingWithinCohort: fair sharing's tournament, by priority or by age",
          "[admission][priority-sorting][fair-sharing]") {
  for (const bool on : {true, false}) {
    INFO("PrioritySortingWithinCohort " << on);
    const auto p = rivals(on, true);
    ka_check::Walk step(p);
    step(kSchedule);
    // On: w1, the higher priority, wins the tie of shares; off: w0, the older.
    CHECK(step.s.phase[on ? 1 : 0] == ka::kAdmitted);
    CHECK(step.s.phase[on ? 0 : 1] != ka::kAdmitted);
  }
}

TEST_CASE("PrioritySortingWithinCohort off: a victim reclaimed while borrowing queues anew",
          "[admission][priority-sorting][order]") {
  for (const bool on : {true, false}) {
    INFO("PrioritySortingWithinCohort " << on);
    const auto p = reclaim_while_borrowing(on);
    ka_check::Walk step(p);
    auto& s = step.s;
    // w1 preempts w0 (a Job: its quota goes at once); w2 does not fit.
    step(kSchedule);
    REQUIRE(s.phase[0] == ka::kPending);
    REQUIRE(s.usage[0] == 0);
    REQUIRE(s.phase[1] != ka::kAdmitted);
    if (!on) CHECK(s.requeued[0] >= 0);  // on the timeline, after every creation so far
    // Next cycle. On: cq0's head is w0, by creation; both heads borrow and w1,
    // the higher priority, goes first. Off: w0 waits from its preemption, so
    // cq0's head is w2, which fits within cq0's nominal quota and goes first;
    // w1 no longer fits.
    step(kSchedule);
    if (on) {
      CHECK(s.phase[1] == ka::kAdmitted);
      CHECK(s.phase[2] != ka::kAdmitted);
    } else {
      CHECK(s.phase[2] == ka::kAdmitted);
      CHECK(s.phase[1] != ka::kAdmitted);
    }
  }
}

TEST_CASE("PrioritySortingWithinCohort off: reservation takes the victim off the timeline",
          "[admission][priority-sorting][order]") {
  // SetQuotaReservation resets the Preempted condition: admitted again, w0 is
  // ordered by its creation, and the state forgets the preemption.
  const auto p = reclaim_while_borrowing(false);
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  step(kSchedule);
  REQUIRE(s.phase[2] == ka::kAdmitted);
  step(finish(2));
  step(kSchedule);
  REQUIRE(s.phase[1] == ka::kAdmitted);
  step(finish(1));
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(s.requeued[0] == ka::kNotRequeued);
}

TEST_CASE(
    "PrioritySortingWithinCohort off: a Pod group victim goes back to its queue, not a backoff",
    "[admission][priority-sorting][order]") {
  // Preemption sets no requeueAt (only a PodsReady timeout or a Retry check
  // does): once its pods are gone the victim is pending, still ordered from
  // its preemption.
  const auto p = reclaim_while_borrowing(false, true);
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  REQUIRE(s.phase[0] == ka::kEvicted);
  CHECK(s.requeued[0] >= 0);
  CHECK(s.reclaimed[0] == 1);
  step(ka::Action{ka::kPodsTerminated, 0});
  CHECK(s.phase[0] == ka::kPending);
  CHECK(s.usage[0] == 0);
  CHECK(s.requeued[0] >= 0);
  CHECK(s.reclaimed[0] == 0);  // read only while its pods terminate
  step(kSchedule);
  CHECK(s.phase[2] == ka::kAdmitted);
  CHECK(s.phase[0] != ka::kAdmitted);
}

TEST_CASE("PrioritySortingWithinCohort: exact state counts on and off",
          "[admission][priority-sorting][counts]") {
  // Read against a breadth-first listing of both graphs. w0 finishing first
  // gives 7 states either way (w2 admitted, then w1, each finishing). After
  // w1 preempts w0, on (9 more states, 16 in all, 20 edges): w1 runs first,
  // cq0's head is w0, and BestEffortFIFO parks w0, then w2; w0 runs once w1
  // finishes, and w2 last. Off (8 more, 15 in all, 18 edges): w2 runs first,
  // then w1, then w0, which keeps its stamp (requeued 0) until it is admitted
  // again; no state has w2 still waiting once w1 finished.
  const auto on = check(reclaim_while_borrowing(true));
  const auto off = check(reclaim_while_borrowing(false));
  CHECK(on.result.verdict == Verdict::Verified);
  CHECK(off.result.verdict == Verdict::Verified);
  CHECK(on.result.stats.states == 16);
  CHECK(on.result.stats.transitions == 20);
  CHECK(off.result.stats.states == 15);
  CHECK(off.result.stats.transitions == 18);
}
