// Failed admission writes in protocol kueue-admission: the scheduler assumes a
// workload in its cache, then sends the admission patch; the environment may
// fail it (environment.admissionWriteFailures). Kueue then forgets the
// workload in its cache and requeues it at once, and nothing else
// (scheduler.go admit). Exact state counts by hand.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using namespace ka_check::steps;
using kmc::checker::Verdict;

namespace {

// cq0 {cpu: quota}; n Jobs of 1 cpu, created in index order; `failures` writes may fail.
ka::AdmissionParams jobs(int n, std::int64_t quota, int failures, bool block = false) {
  auto p = ka_check::queue_of_one(n, quota);
  p.admission_write_failures = failures;
  p.block_admission = block;
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("admission write failures: exact state counts of one job",
          "[admission][write-failures][counts]") {
  // By hand (phase, writing, failures left): s0 (Pending, 0, 1); s1 (Admitted,
  // 1, 1) once a cycle assumed it; s2 (Admitted, 0, 1) when the patch lands;
  // s3 (Finished, 0, 1); s4 (Pending, 0, 0) when it fails; s5 (Admitted, 0, 0):
  // no failure left, so the next patch lands with the cycle; s6 (Finished, 0, 0).
  // Edges: s0-s1 s1-s2 s1-s4 s2-s3 s4-s5 s5-s6.
  auto o = check(jobs(1, 1, 1));
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 7);
  CHECK(o.result.stats.transitions == 6);
  // Without the budget the protocol is what it was: s0 s1 s2, two edges.
  o = check(jobs(1, 1, 0));
  CHECK(o.result.stats.states == 3);
  CHECK(o.result.stats.transitions == 2);
}

TEST_CASE("admission write failures: the failed workload is requeued, what it parked is not",
          "[admission][write-failures]") {
  const auto p = jobs(2, 1, 1);
  ka_check::Walk step(p);
  auto& s = step.s;
  const auto& rules = step.rules;
  step(kSchedule);
  REQUIRE(s.phase[0] == ka::kAdmitted);
  CHECK(s.writing[0] == 1);
  CHECK(s.usage[0] == 1);  // assumed: the cache counts it
  // Its job cannot start before the API server has the admission.
  CHECK_FALSE(rules.enabled(s, ka::Action{ka::kFinish, 0}));
  step(kSchedule);  // w1 does not fit beside the assumed w0: parked
  REQUIRE(s.phase[1] == ka::kInadmissible);
  step(ka::Action{ka::kAdmissionWriteFailed, 0});
  CHECK(s.phase[0] == ka::kPending);
  CHECK(s.usage[0] == 0);
  CHECK(s.writing[0] == 0);
  // cache.DeleteWorkload sends no event to the queues: w1 stays parked.
  CHECK(s.phase[1] == ka::kInadmissible);
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(s.writing[0] == 0);  // the budget is spent: this patch lands
  step(ka::Action{ka::kFinish, 0});
  CHECK(s.phase[1] == ka::kPending);  // a real release requeues it
}

TEST_CASE("admission write failures: a workload whose patch is in flight is not PodsReady",
          "[admission][write-failures][block-admission]") {
  // blockAdmission: cache.WaitForPodsReady counts the assumed workload, whose
  // pods are still gated, so the next Fit admission waits until the patch lands.
  const auto p = jobs(2, 2, 1, true);
  ka_check::Walk step(p);
  auto& s = step.s;
  const auto& rules = step.rules;
  step(kSchedule);
  REQUIRE(s.writing[0] == 1);
  step(kSchedule);
  CHECK(rules.scheduler().blocked_entry(s).w == 1);
  CHECK(s.phase[1] == ka::kPending);
  CHECK_FALSE(rules.enabled(s, kSchedule));
  step(ka::Action{ka::kAdmissionWritten, 0});
  CHECK(rules.enabled(s, kSchedule));
  step(kSchedule);
  CHECK(s.phase[1] == ka::kAdmitted);
  CHECK(s.writing[1] == 1);
}

TEST_CASE("admission write failures: an evicted or deleted workload whose patch is in flight",
          "[admission][write-failures]") {
  // Deleted before its patch landed: its pods never ran, so a pod group leaves
  // none terminating.
  auto p = jobs(1, 1, 1);
  p.workloads[0].pods = true;
  p.workloads[0].deletable = true;
  p.finish();
  ka_check::Walk step(p);
  step(kSchedule);
  REQUIRE(step.s.writing[0] == 1);
  step(ka::Action{ka::kDelete, 0});
  CHECK(step.s.phase[0] == ka::kDeleted);
  CHECK(step.s.writing[0] == 0);
  CHECK(step.s.usage[0] == 0);
}
