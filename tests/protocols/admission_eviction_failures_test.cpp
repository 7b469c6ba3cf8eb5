// Failed eviction writes in protocol kueue-admission: the scheduler's
// IssuePreemptions patches each victim's Evicted condition, and the
// environment may fail a patch (environment.evictionWriteFailures). The
// victim then keeps running; the preemptor goes straight back to its heap,
// sticky only if some other eviction went through or was already under way
// (scheduler.go markPreemptionOutcome, cluster_queue.go requeueIfNotPresent).
// Exact state counts by hand.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using namespace ka_check::steps;
using kmc::checker::Verdict;

namespace {

// cq0 {cpu: quota}, withinClusterQueue LowerPriority; w0 (priority 10, asking
// for `ask`) pending; w1.. (priority 0, 1 cpu each) holding quota from the
// start, in index order. `failures` eviction patches may fail.
ka::AdmissionParams preemption(int victims, std::int64_t ask, int failures) {
  auto p = ka_check::queue_of_one(1 + victims, victims);
  p.cqs[0].within = ka::WithinCq::LowerPriority;
  p.workloads[0].priority = 10;
  p.workloads[0].req = {ask};
  for (int v = 1; v <= victims; ++v) p.workloads[v].initial_flavor = 0;
  p.eviction_write_failures = failures;
  p.finish();
  return p;
}

ka::Action failed(std::int16_t victim) {
  return ka::Action{ka::kEvictionWriteFailed, victim};
}

}  // namespace

TEST_CASE("eviction write failures: exact state counts of one preemption",
          "[admission][eviction-failures][counts]") {
  // Without the budget this is admission_test's "preemption in the queue":
  // 9 states, 10 edges (s0..s8 there).
  auto o = check(preemption(1, 1, 0));
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 9);
  CHECK(o.result.stats.transitions == 10);
  // With one failure allowed, by hand: s0..s8 as before with the failure still
  // left (no state after s0 has an eviction to fail), and from s0 the cycle
  // whose patch of w1 fails: t0, w1 still Admitted and w0 back in its heap,
  // not sticky, nothing left to fail. From t0 the protocol is s0's without
  // the budget: t0 and copies of s1..s8, 9 more states. Edges: the 10, s0-t0,
  // t0's two (Schedule, Finish w1) and the 8 among s1..s8 again: 21.
  o = check(preemption(1, 1, 1));
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 18);
  CHECK(o.result.stats.transitions == 21);
}

TEST_CASE("eviction write failures: the victim keeps running, the preemptor is not sticky",
          "[admission][eviction-failures]") {
  const auto p = preemption(1, 1, 1);
  ka_check::Walk step(p);
  auto& s = step.s;
  const auto& rules = step.rules;
  // Only a victim the cycle would evict can see its patch fail.
  CHECK_FALSE(rules.enabled(s, failed(0)));
  step(failed(1));
  CHECK(s.phase[1] == ka::kAdmitted);
  CHECK(s.usage[0] == 1);
  CHECK(s.phase[0] == ka::kPending);         // PreemptionFailed: requeued at once
  CHECK(s.sticky[0] == -1);                  // no preemption is pending, so no sticky head
  CHECK_FALSE(rules.enabled(s, failed(1)));  // the budget is spent
  step(kSchedule);                           // the next cycle tries again
  CHECK(s.phase[1] == ka::kPending);
  CHECK(s.sticky[0] == 0);
}

TEST_CASE("eviction write failures: the preemptor stays sticky when another eviction went through",
          "[admission][eviction-failures]") {
  // w0 needs both victims' quota: the cycle evicts w1 and w2; w1's patch fails.
  const auto p = preemption(2, 2, 1);
  ka_check::Walk step(p);
  auto& s = step.s;
  step(failed(1));
  CHECK(s.phase[1] == ka::kAdmitted);
  CHECK(s.phase[2] == ka::kPending);  // a Job: its quota goes with the eviction
  CHECK(s.usage[0] == 1);
  CHECK(s.sticky[0] == 0);  // PendingPreemption: one preemption went through
  step(kSchedule);          // w0 still needs w1's unit: evicted now
  CHECK(s.phase[1] == ka::kPending);
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
}
