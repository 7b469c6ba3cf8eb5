// Stopped queues in protocol kueue-admission: spec.stopPolicy of ClusterQueues
// and LocalQueues, from the manifests and edited during the run
// (environment.queueEdits). A stopped ClusterQueue has no heads and is out of
// the scheduler's snapshot; the workload controller unsets reservations not
// yet Admitted and, under HoldAndDrain, evicts Admitted workloads
// (workload_controller.go reconcileOn{Local,Cluster}QueueActiveState).
// Exact state counts by hand.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using namespace ka_check::steps;
using kmc::checker::Verdict;
using kmc::model::StopPolicy;

namespace {

// cq0 {cpu: 1}, w0 asking for 1; the operator's edits of cq0, in order.
ka::AdmissionParams one_edit(std::vector<StopPolicy> edits, StopPolicy initial = StopPolicy::None) {
  auto p = ka_check::queue_of_one(1, 1);
  p.cqs[0].stop = initial;
  for (auto e : edits) p.queue_edits.push_back({false, 0, e, {}, false});
  p.finish();
  return p;
}

// Cohort "co" with cq0 {cpu: 1, reclaimWithinCohort Any} and cq1 {cpu: 1};
// w0 (cq0, 1 cpu) pending, w1 (cq1, 2 cpu) admitted from the start, borrowing cq0's.
ka::AdmissionParams borrowed(StopPolicy cq1) {
  auto p = ka_check::queue_of_one(2, 1);
  p.cohorts.push_back({"co", -1, {0}, {ka::kNoLimit}, {ka::kNoLimit}});
  p.cqs.push_back(p.cqs[0]);
  p.cqs[1].quota.name = "cq1";
  p.cqs[0].quota.parent = p.cqs[1].quota.parent = 0;
  p.cqs[0].reclaim = ka::Reclaim::Any;
  p.cqs[1].stop = cq1;
  p.workloads[1].cq = 1;
  p.workloads[1].req = {2};
  p.workloads[1].initial_flavor = 0;
  p.finish();
  return p;
}

// w0 in LocalQueue ns/held, w1 in ns/open.
void two_local_queues(ka::AdmissionParams& p) {
  p.local_queues = {{"ns/held", StopPolicy::None}, {"ns/open", StopPolicy::None}};
  p.workloads[0].lq = 0, p.workloads[1].lq = 1;
}

ka::Action stopped(std::int16_t w) {
  return ka::Action{ka::kQueueStopped, w};
}

}  // namespace

TEST_CASE("queue edits: exact state counts of one Hold and one HoldAndDrain",
          "[admission][stop-policy][counts]") {
  const std::vector<std::string> safety = {"no-over-admission", "usage-counted-once",
                                           "guarantee-not-stuck"};
  // By hand. s0: w0 Pending, the edit left. Schedule: s1 (w0 Admitted); the edit:
  // s4 (w0 Pending in a stopped queue: nothing is enabled). From s1, Finish: s2;
  // the edit: s3 (still Admitted: Hold keeps it). s2 and s3 both lead to s5 (w0
  // Finished, no edit left). 6 states, 6 edges.
  auto o = check(one_edit({StopPolicy::Hold}), safety);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 6);
  CHECK(o.result.stats.transitions == 6);
  // HoldAndDrain: s3 has w0 Admitted in a draining queue, and QueueStopped(w0)
  // evicts it; a Job's quota goes at once, so it is back Pending: s4. One more edge.
  o = check(one_edit({StopPolicy::HoldAndDrain}), safety);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 6);
  CHECK(o.result.stats.transitions == 7);
  // Loaded Hold, resumed by the edit: s0 has no head, only the edit; then
  // Schedule, Finish: 4 states in a line.
  o = check(one_edit({StopPolicy::None}, StopPolicy::Hold), safety);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 4);
  CHECK(o.result.stats.transitions == 3);
}

TEST_CASE("queue edits: a guarantee the operator withdraws is not owed; one in force is",
          "[admission][stop-policy][liveness]") {
  // w0 is within its guarantee at the start; the edit may put its own queue on
  // Hold first, for good: the operator withdrew the guarantee, so it is not owed.
  auto o = check(one_edit({StopPolicy::Hold}), {"guarantee-eventually-admitted"});
  CHECK(o.result.verdict == Verdict::Verified);
  // A guarantee an edit leaves in force is owed (held-queue-borrowed-quota:
  // the borrower's queue is held, w0's guarantee stands, and it waits).
  o = check(borrowed(StopPolicy::Hold), {"guarantee-eventually-admitted"});
  CHECK(o.result.verdict == Verdict::Violated);
}

TEST_CASE("queue edits: a stopped queue has no head; resumed, its heap pops again",
          "[admission][stop-policy]") {
  const auto p = one_edit({StopPolicy::Hold, StopPolicy::None});
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kEdit);
  CHECK_FALSE(step.rules.enabled(s, kSchedule));
  CHECK_FALSE(step.rules.enabled(s, stopped(0)));  // nothing to unset: it holds no quota
  step(kEdit);
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK_FALSE(step.rules.enabled(s, kEdit));  // no edit left
}

TEST_CASE("queue edits: a stopped ClusterQueue's borrowed quota is not reclaimed",
          "[admission][stop-policy][preemption]") {
  // Running: w0 reclaims cq0's nominal quota from the borrower.
  {
    const auto running = borrowed(StopPolicy::None);  // Walk keeps a reference
    ka_check::Walk step(running);
    step(kSchedule);
    CHECK(step.s.phase[1] == ka::kPending);  // a Job: evicted, its quota gone at once
    step(kSchedule);
    CHECK(step.s.phase[0] == ka::kAdmitted);
  }
  // cq1 on Hold: out of the snapshot, so w1 is no candidate; w0 is parked.
  const auto held = borrowed(StopPolicy::Hold);
  ka_check::Walk step(held);
  step(kSchedule);
  CHECK(step.s.phase[1] == ka::kAdmitted);
  CHECK(step.s.phase[0] == ka::kInadmissible);
  // Kueue's guarantee is broken while the borrower runs: w0 fits cq0's nominal
  // quota after what reclaimWithinCohort allows, and waits as long as w1 runs.
  auto o = check(borrowed(StopPolicy::Hold), {"guarantee-eventually-admitted"});
  CHECK(o.result.verdict == Verdict::Violated);
  o = check(borrowed(StopPolicy::None), {"guarantee-eventually-admitted"});
  CHECK(o.result.verdict == Verdict::Verified);
}

TEST_CASE("queue edits: a LocalQueue's stop holds only its own workloads",
          "[admission][stop-policy]") {
  auto p = ka_check::queue_of_one(2, 2);
  two_local_queues(p);
  p.queue_edits.push_back({true, 0, StopPolicy::HoldAndDrain, {}, false});
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);  // w0 first: created first
  CHECK(s.phase[0] == ka::kAdmitted);
  step(kEdit);
  CHECK(step.rules.enabled(s, stopped(0)));
  CHECK_FALSE(step.rules.enabled(s, stopped(1)));
  step(stopped(0));
  CHECK(s.phase[0] == ka::kPending);
  CHECK(s.usage[0] == 0);
  step(kSchedule);  // w1's LocalQueue still runs
  CHECK(s.phase[1] == ka::kAdmitted);
  CHECK(s.phase[0] == ka::kPending);
  CHECK_FALSE(step.rules.enabled(s, kSchedule));  // w0 is out of the queues
}

TEST_CASE("queue edits: an unset reservation keeps its checks on every flavor, not the others",
          "[admission][stop-policy][checks]") {
  // UnsetQuotaReservationWithCondition (pkg/workload) clears the admission and
  // leaves the check states alone; the workload controller's
  // syncAdmissionCheckConditions then keeps, without an admission, only the
  // checks on every flavor of the queue (AdmissionChecksForWorkload). So a
  // Ready check on every flavor is still Ready when the queue resumes, and a
  // check on one flavor starts over. cq0 {f0: 1, f1: 1}; check "all" on both
  // flavors, "f0-only" on f0; w0 reserves on f0 and waits for both.
  ka::AdmissionParams p = ka_check::queue_of_one(1, 1);
  p.flavors = {"f0", "f1"};
  auto& q = p.cqs[0];
  q.quota.nominal = {1, 1};
  q.quota.borrowing_limit = q.quota.lending_limit = {ka::kNoLimit, ka::kNoLimit};
  q.flavors = {0, 1};
  q.checks_on = {0b11, 0b01};
  p.checks.push_back({"all", false, 3, {}});
  p.checks.push_back({"f0-only", false, 3, {}});
  p.answer = kmc::model::AutoscalerAnswer::Any;
  auto& w = p.workloads[0];
  w.eligible = {true, true};
  w.checks = {0b11, 0b01};
  w.initial_retries = {0, 0};
  p.queue_edits.push_back({false, 0, StopPolicy::Hold, {}, false});
  p.queue_edits.push_back({false, 0, StopPolicy::None, {}, false});
  p.finish();
  auto provisioned = [](std::int16_t k) { return ka::Action{ka::kProvisioned, 0, 0, k}; };

  SECTION("the Ready check on every flavor survives the stop") {
    ka_check::Walk step(p);
    auto& s = step.s;
    step(kSchedule);
    REQUIRE(s.phase[0] == ka::kReserved);
    REQUIRE(s.flavor[0] == 0);
    step(provisioned(0));
    step(kEdit);  // Hold
    step(ka::Action{ka::kQueueStopped, 0});
    CHECK(s.phase[0] == ka::kPending);
    CHECK(s.ready[0] == 0b01);  // before: 0, and "all" was asked again
    step(kEdit);                // resumed
    step(kSchedule);
    REQUIRE(s.phase[0] == ka::kReserved);
    CHECK_FALSE(step.rules.enabled(s, provisioned(0)));  // Ready already
    step(provisioned(1));
    CHECK(s.phase[0] == ka::kAdmitted);
  }
  SECTION("a Ready check on one flavor starts over") {
    ka_check::Walk step(p);
    auto& s = step.s;
    step(kSchedule);
    step(provisioned(1));
    step(kEdit);
    step(ka::Action{ka::kQueueStopped, 0});
    CHECK(s.ready[0] == 0);  // its state was removed with the admission
    step(kEdit);
    step(kSchedule);
    REQUIRE(s.phase[0] == ka::kReserved);
    CHECK(step.rules.enabled(s, provisioned(1)));
  }
  SECTION("retryCount stays with a kept check and goes with a dropped one") {
    // Once the reservation is gone, by a Retry's eviction or a stop, only the
    // checks on every flavor are kept (AdmissionChecksForWorkload).
    ka_check::Walk step(p);
    auto& s = step.s;
    step(kSchedule);
    step(ka::Action{ka::kProvisioningFailed, 0, 0, 1});  // f0-only: retryCount 1
    CHECK(s.retries[1] == 1);
    step(ka::Action{ka::kBackoffExpired, 0});  // evicted: the f0-only check dropped
    CHECK(s.retries[1] == 0);
    step(kSchedule);
    step(ka::Action{ka::kProvisioningFailed, 0, 0, 0});  // all: retryCount 1
    step(ka::Action{ka::kBackoffExpired, 0});
    step(kSchedule);
    REQUIRE(s.phase[0] == ka::kReserved);
    REQUIRE(s.retries[0] == 1);
    step(kEdit);
    step(ka::Action{ka::kQueueStopped, 0});
    CHECK(s.retries[0] == 1);
    CHECK(s.retries[1] == 0);
  }
  SECTION("a Retry check's backoff holds off the stop") {
    // While a Retry check holds the reservation the workload controller acts
    // on nothing else, its stopped queue included, until requeueAt; then the
    // check's eviction comes first.
    ka_check::Walk step(p);
    auto& s = step.s;
    step(kSchedule);
    step(ka::Action{ka::kProvisioningFailed, 0, 0, 0});
    step(kEdit);  // Hold
    CHECK_FALSE(step.rules.enabled(s, ka::Action{ka::kQueueStopped, 0}));
    step(ka::Action{ka::kBackoffExpired, 0});
    CHECK(s.phase[0] == ka::kPending);
    CHECK(s.retries[0] == 1);
    CHECK_FALSE(step.rules.enabled(s, ka::Action{ka::kQueueStopped, 0}));
  }
}

TEST_CASE("queue edits: quota freed in a held LocalQueue requeues nothing without a Cohort object",
          "[admission][stop-policy][requeue]") {
  // QueueAssociatedInadmissibleWorkloadsAfter finds the tree through the
  // finishing workload's LocalQueue, gone from the queue manager once stopped:
  // w1, parked as NoFit, stays parked. A Cohort object above cq0, below the
  // root, would requeue the tree on cq0's status update.
  for (const bool cohort_object : {false, true}) {
    auto p = ka_check::queue_of_one(2, 1);
    two_local_queues(p);
    p.cqs[0].cohort_object_above = cohort_object;
    p.queue_edits.push_back({true, 0, StopPolicy::Hold, {}, false});
    p.finish();
    ka_check::Walk step(p);
    auto& s = step.s;
    step(kSchedule);
    step(kSchedule);
    REQUIRE(s.phase[1] == ka::kInadmissible);
    step(kEdit);
    step(finish(0));
    CHECK(s.phase[1] == (cohort_object ? ka::kPending : ka::kInadmissible));
    CHECK(step.rules.enabled(s, kSchedule) == cohort_object);
  }
}

TEST_CASE("queue edits: ClusterQueue HoldAndDrain does not drain a held LocalQueue's workloads",
          "[admission][stop-policy]") {
  // ClusterQueueForWorkload finds no ClusterQueue for a workload whose
  // LocalQueue is stopped, so the workload controller reads no ClusterQueue
  // stopPolicy for it.
  auto p = ka_check::queue_of_one(2, 2);
  two_local_queues(p);
  p.queue_edits.push_back({true, 0, StopPolicy::Hold, {}, false});
  p.queue_edits.push_back({false, 0, StopPolicy::HoldAndDrain, {}, false});
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  step(kSchedule);
  REQUIRE(s.phase[0] == ka::kAdmitted);
  REQUIRE(s.phase[1] == ka::kAdmitted);
  step(kEdit);
  step(kEdit);
  CHECK_FALSE(step.rules.enabled(s, stopped(0)));
  CHECK(step.rules.enabled(s, stopped(1)));
}
