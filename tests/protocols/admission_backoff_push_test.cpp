// A workload in backoff pushed into its heap before its requeueAt, in protocol
// kueue-admission. Kueue keeps a workload that a PodsReady timeout or a Retry
// check evicted out of the heaps until its backoff ends
// (backoffWaitingTimeExpired), except where AddFromLocalQueue pushes it: a
// LocalQueue created or resumed, a ClusterQueue created, a restart
// (PushActiveIfNotPresent reads no backoff). Property no-requeue-before-backoff
// names it. Exact state counts by hand.
#include <algorithm>
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

const ka::Action kRestartNow{ka::kRestart, -1};

ka::Action timeout(std::int16_t w) {
  return ka::Action{ka::kPodsReadyTimeout, w};
}
ka::Action backoff_over(std::int16_t w) {
  return ka::Action{ka::kBackoffExpired, w};
}

// cq0 {cpu: quota}, n jobs of 1 cpu, one PodsReady timeout and one restart.
ka::AdmissionParams restarting(int n, std::int64_t quota, bool strict_fifo = false) {
  auto p = ka_check::queue_of_one(n, quota);
  p.cqs[0].strict_fifo = strict_fifo;
  p.pods_ready_timeouts = 1;
  p.controller_restarts = 1;
  p.finish();
  return p;
}

bool registers(const ka::AdmissionParams& p) {
  const ka::Instance inst(p);
  const auto props = kmc::invariants::admission_properties(inst);
  return std::any_of(props.begin(), props.end(),
                     [](const auto& x) { return x.name() == "no-requeue-before-backoff"; });
}

}  // namespace

TEST_CASE("backoff push: a restart puts a job in backoff back at its queue's head",
          "[admission][backoff-push]") {
  const auto p = restarting(1, 1);
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  step(timeout(0));
  REQUIRE(s.phase[0] == ka::kBackoff);
  CHECK_FALSE(step.rules.enabled(s, kSchedule));  // out of the heap until requeueAt
  step(kRestartNow);
  CHECK(s.phase[0] == ka::kQueuedInBackoff);
  // Its requeueAt passing first leaves it in the heap (PushOrUpdate updates it in place).
  auto expired = s;
  REQUIRE(step.rules.enabled(expired, backoff_over(0)));
  step.rules.apply_in_place(expired, backoff_over(0));
  CHECK(expired.phase[0] == ka::kPending);
  step(kSchedule);  // admitted with its backoff still ahead
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK_FALSE(step.rules.enabled(s, backoff_over(0)));
}

TEST_CASE("backoff push: a head in backoff that fails is parked until requeueAt, StrictFIFO too",
          "[admission][backoff-push]") {
  for (const bool strict : {false, true}) {
    DYNAMIC_SECTION((strict ? "StrictFIFO" : "BestEffortFIFO")) {
      const auto p = restarting(2, 1, strict);
      ka_check::Walk step(p);
      auto& s = step.s;
      step(kSchedule);
      step(timeout(0));  // w1 takes the quota meanwhile
      step(kSchedule);
      REQUIRE(s.phase[1] == ka::kAdmitted);
      step(kRestartNow);
      REQUIRE(s.phase[0] == ka::kQueuedInBackoff);
      step(kSchedule);  // NoFit: requeueIfNotPresent finds its backoff ahead
      CHECK(s.phase[0] == ka::kBackoff);
      step(finish(1));  // freed quota requeues no workload in backoff
      CHECK(s.phase[0] == ka::kBackoff);
      CHECK_FALSE(step.rules.enabled(s, kSchedule));
      step(backoff_over(0));
      CHECK(s.phase[0] == ka::kPending);
      step(kSchedule);
      CHECK(s.phase[0] == ka::kAdmitted);
    }
  }
}

TEST_CASE("backoff push: a LocalQueue stopped and resumed pushes its jobs, backoff or not",
          "[admission][backoff-push][stop-policy]") {
  auto p = ka_check::queue_of_one(1, 1);
  p.local_queues = {{"ns/lq", StopPolicy::None}};
  p.workloads[0].lq = 0;
  p.pods_ready_timeouts = 1;
  p.queue_edits.push_back({true, 0, StopPolicy::Hold, {}, false});
  p.queue_edits.push_back({true, 0, StopPolicy::None, {}, false});
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  step(timeout(0));
  step(kEdit);  // Hold
  CHECK(s.phase[0] == ka::kBackoff);
  step(kEdit);  // resumed: AddLocalQueue
  CHECK(s.phase[0] == ka::kQueuedInBackoff);
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);

  const auto o = check(p, {"no-requeue-before-backoff"});
  CHECK(o.result.verdict == Verdict::Violated);
}

TEST_CASE("backoff push: exact state counts, and where the property is registered",
          "[admission][backoff-push][counts]") {
  // One job, one timeout, one restart, the other properties. By hand (phase,
  // timeouts left, restarts left): s0 (Pending,1,1), s1 (Admitted,1,1), s2
  // (Finished,1,1), s3 (Backoff,0,1), s4 (Pending,0,1), s5 (Admitted,0,1),
  // s6 (Finished,0,1); the restart, enabled only in s3 where it loses the
  // backoff, to s7 (PendingInBackoff,0,0); s8 (Pending,0,0) once requeueAt
  // passes, s9 (Admitted,0,0), s10 (Finished,0,0). Edges: s0-s1 s1-s2 s1-s3
  // s3-s4 s4-s5 s5-s6 s3-s7 s7-s8 s7-s9 s8-s9 s9-s10.
  const auto p = restarting(1, 1);
  CHECK(registers(p));
  const auto o = check(p, {"no-over-admission", "usage-counted-once"});
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 11);
  CHECK(o.result.stats.transitions == 11);
  // The property itself: violated in the restart's step.
  const auto v = check(p, {"no-requeue-before-backoff"});
  CHECK(v.result.verdict == Verdict::Violated);

  // No restart and no queue edit: nothing pushes a job in backoff.
  auto quiet = ka_check::queue_of_one(1, 1);
  quiet.pods_ready_timeouts = 1;
  quiet.finish();
  CHECK_FALSE(registers(quiet));
}
