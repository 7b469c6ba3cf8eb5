// waitForPodsReady's timeout in protocol kueue-admission: the environment
// keeps an admitted job's pods from being ready (environment.podsReadyTimeouts),
// Kueue evicts it, requeues it after a backoff by the eviction's time, and
// deactivates it past requeuingStrategy.backoffLimitCount. Exact state counts
// by hand.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "model/scenario.hpp"
#include "protocols/kueue_admission/params.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using kmc::checker::Verdict;

namespace {

// cq0 {cpu: 1}; n Jobs of 1 cpu, created in index order, and the timeouts.
ka::AdmissionParams jobs(int n, int timeouts, int limit) {
  auto p = ka_check::queue_of_one(n);
  p.pods_ready_timeouts = timeouts;
  p.pods_ready_limit = limit;
  p.finish();
  return p;
}

// p with requeuingStrategy.timestamp Creation.
ka::AdmissionParams by_creation(ka::AdmissionParams p) {
  p.timeout_requeue_by_creation = true;
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("pods ready timeout: exact state counts of one job", "[admission][pods-ready][counts]") {
  // One timeout, backoffLimitCount nil. By hand (phase, timeouts left): s0
  // (Pending, 1); s1 (Admitted, 1); s2 (Finished, 1); s3 (Backoff, 0) after
  // the timeout, its quota released; s4 (Pending, 0) when the backoff passes;
  // s5 (Admitted, 0); s6 (Finished, 0). Edges: s0-s1 s1-s2 s1-s3 s3-s4 s4-s5 s5-s6.
  auto o = check(jobs(1, 1, -1));
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 7);
  CHECK(o.result.stats.transitions == 6);
  // backoffLimitCount 0: the first timeout deactivates: s0 s1 s2 and
  // (Deactivated, 0); three edges.
  o = check(jobs(1, 1, 0));
  CHECK(o.result.stats.states == 4);
  CHECK(o.result.stats.transitions == 3);
  // Two timeouts, backoffLimitCount 1 (requeueState.count tracked): s0-s6 as
  // above with count 1 after the first, then s7 (Deactivated) from s5.
  o = check(jobs(1, 2, 1));
  CHECK(o.result.stats.states == 8);
  CHECK(o.result.stats.transitions == 7);
}

TEST_CASE("pods ready timeout: the evicted job queues behind one that waited meanwhile",
          "[admission][pods-ready][order]") {
  // requeuingStrategy.timestamp Eviction (the default): w0 times out and,
  // back from its backoff, queues by the eviction's time, after w1.
  const auto p = jobs(2, 1, -1);
  ka_check::Walk step(p);
  auto& s = step.s;
  const auto& rules = step.rules;
  const ka::Action schedule{ka::kSchedule, -1};
  step(schedule);
  REQUIRE(s.phase[0] == ka::kAdmitted);
  step(ka::Action{ka::kPodsReadyTimeout, 0});
  CHECK(s.phase[0] == ka::kBackoff);
  CHECK(s.usage[0] == 0);
  CHECK(s.phase[1] == ka::kPending);  // the release requeued what it parked
  CHECK_FALSE(rules.enabled(s, ka::Action{ka::kPodsReadyTimeout, 1}));  // not admitted
  step(ka::Action{ka::kBackoffExpired, 0});
  step(schedule);
  CHECK(s.phase[1] == ka::kAdmitted);
  CHECK(s.phase[0] != ka::kAdmitted);
  // The budget is spent: w1's pods become ready.
  CHECK_FALSE(rules.enabled(s, ka::Action{ka::kPodsReadyTimeout, 1}));
}

TEST_CASE("pods ready timeout, requeuingStrategy.timestamp Creation: the job keeps its place",
          "[admission][pods-ready][order]") {
  // As above, but w0, back from its backoff, waits by its creation: ahead of w1.
  const auto p = by_creation(jobs(2, 1, -1));
  ka_check::Walk step(p);
  auto& s = step.s;
  const ka::Action schedule{ka::kSchedule, -1};
  step(schedule);
  step(ka::Action{ka::kPodsReadyTimeout, 0});
  CHECK(s.phase[0] == ka::kBackoff);
  CHECK(s.requeued[0] == ka::kNotRequeued);  // nothing to tell it from one never evicted
  step(ka::Action{ka::kBackoffExpired, 0});
  step(schedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(s.phase[1] == ka::kPending);
}

TEST_CASE("pods ready timeout: exact state counts of two jobs by eviction and by creation",
          "[admission][pods-ready][order][counts]") {
  // cq0 {cpu: 1}, w0 and w1, one timeout. States by hand as (w0, w1, timeouts
  // left), P Pending, I Inadmissible, A Admitted, F Finished, B Backoff; * a
  // stamp on the timeline. Before any timeout: (P,P,1) (A,P,1) (A,I,1)
  // (F,P,1) (F,A,1) (F,F,1): 6. By eviction, w0's timeout gives (B*,P,0)
  // (B*,A,0) (P*,P,0) (B*,F,0) (P*,A,0) (P*,F,0) (I*,A,0) (A,F,0) (F,F,0),
  // w1 going first once both wait; w1's gives (F,B*,0) (F,P*,0) (F,A,0): 18.
  // By creation there is no stamp and w0, the older, goes first: (B,P,0)
  // (B,A,0) (P,P,0) (B,F,0) (P,A,0) (P,F,0) (I,A,0) (A,F,0) (F,F,0), then
  // (A,P,0) and (A,I,0), which eviction order never reaches; w1's timeout
  // gives (F,B,0) (F,P,0), which w0 finishing in (A,P,0) reaches too, and
  // (F,A,0): 20.
  auto o = check(jobs(2, 1, -1));
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 18);
  o = check(by_creation(jobs(2, 1, -1)));
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 20);
}

namespace {

// jobs() with waitForPodsReady.blockAdmission, and cq0's quota.
ka::AdmissionParams blocking(int n, std::int64_t quota, int timeouts) {
  auto p = ka_check::queue_of_one(n, quota);
  p.block_admission = true;
  p.pods_ready_timeouts = timeouts;
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("pods ready timeout with blockAdmission: exact state counts of one job",
          "[admission][pods-ready][block-admission][counts]") {
  // Pods may be late while a timeout may still fire. By hand (phase, unready,
  // timeouts left): s0 (Pending, 0, 1); s1 (Admitted, 1, 1); s2 (Admitted, 0,
  // 1) on PodsReady; s3 (Finished, 0, 1): a job finishes once its pods were
  // ready; s4 (Backoff, 0, 0) on the timeout; s5 (Pending, 0, 0); s6
  // (Admitted, 0, 0): no timeout left, so its pods are ready at once; s7
  // (Finished, 0, 0). Edges: s0-s1 s1-s2 s1-s4 s2-s3 s4-s5 s5-s6 s6-s7.
  auto o = check(blocking(1, 1, 1));
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 8);
  CHECK(o.result.stats.transitions == 7);
}

TEST_CASE("pods ready timeout with blockAdmission: late pods keep the scheduler asleep",
          "[admission][pods-ready][block-admission]") {
  // cq0 {cpu: 2}: w1 fits beside w0, but w0's pods are not ready, so the
  // scheduler sleeps before admitting w1 until they are, or w0 times out.
  for (const bool timeout : {false, true}) {
    const auto p = blocking(2, 2, 1);
    ka_check::Walk step(p);
    auto& s = step.s;
    const auto& rules = step.rules;
    const ka::Action schedule{ka::kSchedule, -1};
    step(schedule);
    REQUIRE(s.phase[0] == ka::kAdmitted);
    REQUIRE(s.unready[0] == 1);
    CHECK_FALSE(rules.enabled(s, ka::Action{ka::kFinish, 0}));
    step(schedule);
    CHECK(rules.scheduler().blocked_entry(s).w == 1);
    CHECK(s.phase[1] == ka::kPending);
    CHECK_FALSE(rules.enabled(s, schedule));
    step(ka::Action{timeout ? ka::kPodsReadyTimeout : ka::kPodsReady, 0});
    // Awake (w0 ready, or evicted and out of the cache), still holding w1.
    CHECK(rules.scheduler().blocked_entry(s).w == 1);
    step(schedule);
    CHECK(s.phase[1] == ka::kAdmitted);
    // With the one timeout spent w1's pods are ready at once; else they may be late.
    CHECK(s.unready[1] == (timeout ? 0 : 1));
  }
}

namespace {

// n workloads on cq0 {cpu: 1}, w0 a pod group; one timeout.
ka::AdmissionParams group_first(int n) {
  auto p = ka_check::queue_of_one(n);
  p.workloads[0].pods = true;
  p.pods_ready_timeouts = 1;
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("pods ready timeout of a pod group: its quota goes once its pods are gone",
          "[admission][pods-ready][pod-group][counts]") {
  // A pod group's quota is held until its pods terminate, after the eviction
  // too. By hand (phase, timeouts left): s0 (Pending, 1); s1 (Admitted, 1); s2
  // (Finished, 1); s3 (Evicted, 0): timed out, its pods terminating, the quota
  // held; s4 (Backoff, 0) once they are gone; s5 (Pending, 0); s6 (Admitted,
  // 0); s7 (Finished, 0). Edges: s0-s1 s1-s2 s1-s3 s3-s4 s4-s5 s5-s6 s6-s7.
  auto p = group_first(1);
  auto o = check(p);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 8);
  CHECK(o.result.stats.transitions == 7);
  // backoffLimitCount 0: s0 s1 s2, and s3 (Deactivated) at the timeout, its
  // quota gone with its pods still terminating: four states, three edges.
  p.pods_ready_limit = 0;
  p.finish();
  o = check(p);
  CHECK(o.result.stats.states == 4);
  CHECK(o.result.stats.transitions == 3);
}

// Past backoffLimitCount, reconcileNotReadyTimeout does not evict: it sets
// DeactivationTarget, the next reconcile sets spec.active=false, and the
// workload controller's Update handler takes the inactive branch, deleting the
// workload from the cache at once (the cache keeps no ClusterQueue in use for
// a deactivated workload: HasActiveQuotaReservation) and requeueing its tree.
// A pod group's terminating pods hold nothing then.
TEST_CASE("pods ready timeout of a pod group past the limit: deactivated, its quota goes at once",
          "[admission][pods-ready][pod-group]") {
  auto p = group_first(2);
  p.pods_ready_limit = 0;
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  const ka::Action schedule{ka::kSchedule, -1};
  step(schedule);
  step(ka::Action{ka::kPodsReadyTimeout, 0});
  CHECK(s.phase[0] == ka::kDeactivated);
  CHECK(s.usage[0] == 0);
  step(schedule);
  CHECK(s.phase[1] == ka::kAdmitted);  // beside the group's terminating pods
}

TEST_CASE("pods ready timeout of a pod group: the next job waits for its pods, then goes first",
          "[admission][pods-ready][pod-group]") {
  const auto p = group_first(2);
  ka_check::Walk step(p);
  auto& s = step.s;
  const ka::Action schedule{ka::kSchedule, -1};
  step(schedule);
  step(ka::Action{ka::kPodsReadyTimeout, 0});
  CHECK(s.phase[0] == ka::kEvicted);
  CHECK(s.usage[0] == 1);  // its pods still run
  step(schedule);
  CHECK(s.phase[1] == ka::kInadmissible);  // no room beside the terminating pods
  step(ka::Action{ka::kPodsTerminated, 0});
  CHECK(s.phase[0] == ka::kBackoff);
  CHECK(s.usage[0] == 0);
  CHECK(s.phase[1] == ka::kPending);
  step(ka::Action{ka::kBackoffExpired, 0});
  step(schedule);
  // Requeued by its eviction's time, so behind w1, which waited meanwhile.
  CHECK(s.phase[1] == ka::kAdmitted);
  CHECK(s.phase[0] != ka::kAdmitted);
}

TEST_CASE("pods ready timeout of a pod group, timestamp Creation: backoff, then first again",
          "[admission][pods-ready][pod-group][order]") {
  // The terminating pods still send it to backoff once they are gone (the
  // marker kRequeuedInCreationOrder), and it then waits by its creation.
  const auto p = by_creation(group_first(2));
  ka_check::Walk step(p);
  auto& s = step.s;
  const ka::Action schedule{ka::kSchedule, -1};
  step(schedule);
  step(ka::Action{ka::kPodsReadyTimeout, 0});
  CHECK(s.phase[0] == ka::kEvicted);
  CHECK(s.requeued[0] == ka::kRequeuedInCreationOrder);
  step(schedule);
  step(ka::Action{ka::kPodsTerminated, 0});
  CHECK(s.phase[0] == ka::kBackoff);
  CHECK(s.requeued[0] == ka::kNotRequeued);
  step(ka::Action{ka::kBackoffExpired, 0});
  step(schedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(s.phase[1] != ka::kAdmitted);
  // The state counts of one such group are those by eviction (above): the
  // marker stands in the one state where the stamp stood while its pods
  // terminated, and with one job the stamp orders nothing after that.
  const auto o = check(by_creation(group_first(1)));
  CHECK(o.result.stats.states == 8);
  CHECK(o.result.stats.transitions == 7);
}

namespace {

// blockAdmission on. cq0 {cpu: 1}, withinClusterQueue LowerPriority: w0
// (priority 10) pending, w1 (priority 0) a pod group holding the quota from
// the start. cq1 {cpu: 1}: w2 arrives during the run. One kubelet may be lost.
ka::AdmissionParams victim_and_bystander() {
  auto p = ka_check::queue_of_one(3);
  auto other = p.cqs[0];
  other.quota.name = "cq1";
  p.cqs.push_back(other);
  p.cqs[0].within = ka::WithinCq::LowerPriority;
  p.workloads[0].priority = 10;
  p.workloads[1].pods = true;
  p.workloads[1].initial_flavor = 0;
  p.workloads[2].cq = 1;
  p.workloads[2].arrives = true;
  p.block_admission = true;
  p.stuck_terminating = 1;
  p.finish();
  return p;
}

const ka::Action kScheduleOnce{ka::kSchedule, -1};

}  // namespace

TEST_CASE("blockAdmission: a victim whose pods are stuck terminating blocks every queue",
          "[admission][pods-ready][block-admission][pod-group]") {
  // The node lifecycle controller marks a lost node's pods NotReady, so the
  // job reconciler's generatePodsReadyCondition sets the evicted group's
  // PodsReady False (WaitForRecovery); the cache, which still holds it, counts
  // it in WorkloadsNotReady, and the scheduler sleeps before any Fit admission,
  // in any ClusterQueue, until the PodTermination controller fails the pods.
  const auto p = victim_and_bystander();
  ka_check::Walk step(p);
  auto& s = step.s;
  const auto& rules = step.rules;
  step(kScheduleOnce);
  REQUIRE(s.phase[1] == ka::kEvicted);
  step(ka::Action{ka::kKubeletLost, 1});
  REQUIRE(s.phase[1] == ka::kStuck);
  step(ka::Action{ka::kArrive, 2});
  step(kScheduleOnce);
  CHECK(rules.scheduler().blocked_entry(s).w == 2);
  CHECK(s.phase[2] == ka::kPending);  // cq1 has its quota, yet waits
  CHECK_FALSE(rules.enabled(s, kScheduleOnce));
  step(ka::Action{ka::kForceFail, 1});
  step(kScheduleOnce);  // the woken goroutine admits the entry it held
  CHECK(s.phase[2] == ka::kAdmitted);
  CHECK(s.phase[0] == ka::kPending);
  step(kScheduleOnce);
  CHECK(s.phase[0] == ka::kAdmitted);
}

TEST_CASE("blockAdmission: a victim whose pods terminate normally blocks nothing",
          "[admission][pods-ready][block-admission][pod-group]") {
  // Its pods were ready and stay so while they shut down: PodsReady stays
  // True, and the bystander's admission does not wait for them.
  const auto p = victim_and_bystander();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kScheduleOnce);
  REQUIRE(s.phase[1] == ka::kEvicted);
  step(ka::Action{ka::kArrive, 2});
  step(kScheduleOnce);
  CHECK(step.rules.scheduler().blocked_entry(s).w < 0);
  CHECK(s.phase[2] == ka::kAdmitted);
}

namespace {

// blockAdmission on, cq0 {cpu: quota}, n Jobs of 1 cpu; a running job's ready
// pods may fail `failures` times; `timeouts` PodsReady timeouts.
ka::AdmissionParams failing_pods(int n, std::int64_t quota, int failures, int timeouts = 0) {
  auto p = ka_check::queue_of_one(n, quota);
  p.block_admission = true;
  p.pod_failures = failures;
  p.pods_ready_timeouts = timeouts;
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("pod failures with blockAdmission: exact state counts of one job",
          "[admission][pods-ready][pod-failures][counts]") {
  // By hand (phase, unready, failures left): s0 (Pending, 0, 1); s1 (Admitted,
  // 0, 1); s2 (Finished, 0, 1); s3 (Admitted, WaitForRecovery, 0) once a pod
  // failed; s4 (Admitted, 0, 0) when it recovered; s5 (Finished, 0, 0). A job
  // finishes only with its pods ready. Edges: s0-s1 s1-s2 s1-s3 s3-s4 s4-s5.
  auto o = check(failing_pods(1, 1, 1));
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 6);
  CHECK(o.result.stats.transitions == 5);
}

TEST_CASE("pod failures with blockAdmission: the next admission waits for the recovery",
          "[admission][pods-ready][pod-failures]") {
  auto p = failing_pods(2, 2, 1);
  p.workloads[1].arrives = true;
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(ka::Action{ka::kSchedule, -1});
  REQUIRE(s.phase[0] == ka::kAdmitted);
  step(ka::Action{ka::kPodFailed, 0});
  CHECK(s.unready[0] == ka::kRecovering);
  CHECK_FALSE(step.rules.enabled(s, ka::Action{ka::kFinish, 0}));
  step(ka::Action{ka::kArrive, 1});
  step(ka::Action{ka::kSchedule, -1});
  CHECK(step.rules.scheduler().blocked_entry(s).w == 1);
  CHECK(s.phase[1] == ka::kPending);
  step(ka::Action{ka::kPodsReady, 0});  // the replacement pod is ready: Recovered
  CHECK(step.rules.enabled(s, ka::Action{ka::kSchedule, -1}));
  step(ka::Action{ka::kSchedule, -1});
  CHECK(s.phase[1] == ka::kAdmitted);
}

TEST_CASE("pod failures with blockAdmission: recoveryTimeout evicts, unless it is 0s",
          "[admission][pods-ready][pod-failures]") {
  for (const bool recovery : {true, false}) {
    auto p = failing_pods(1, 1, 1, 1);
    p.recovery_times_out = recovery;
    p.finish();
    ka_check::Walk step(p);
    auto& s = step.s;
    step(ka::Action{ka::kSchedule, -1});
    REQUIRE(s.unready[0] == ka::kNotStarted);  // a timeout may still come: late pods
    step(ka::Action{ka::kPodsReady, 0});
    step(ka::Action{ka::kPodFailed, 0});
    INFO("recoveryTimeout " << (recovery ? "on" : "0s"));
    CHECK(step.rules.enabled(s, ka::Action{ka::kPodsReadyTimeout, 0}) == recovery);
  }
}

TEST_CASE("pods ready timeout: a dump taken mid-backoff starts there, ordered by its eviction",
          "[admission][pods-ready][order][dump]") {
  // tests/cli/fixtures/dumped-backoff: old-job (created 10:00) in its second
  // backoff since 10:10, retried-job (09:50) back in the queue since its
  // eviction at 10:08, new-job (10:05); cq {cpu: 1}; backoffLimitCount 2.
  const auto sc = kmc::model::load_scenario(KMC_SOURCE_DIR "/tests/cli/fixtures/dumped-backoff");
  const auto p = ka::compile_admission(sc);
  const auto at = [&](const std::string& name) {
    for (int w = 0; w < p.W(); ++w)
      if (p.workloads[w].name == name) return w;
    FAIL("no workload " << name);
    return -1;
  };
  const int old_job = at("ns/old-job"), retried = at("ns/retried-job"), new_job = at("ns/new-job");
  ka_check::Walk step(p);
  auto& s = step.s;
  CHECK(s.phase[old_job] == ka::kBackoff);
  CHECK(s.phase[retried] == ka::kPending);
  CHECK(s.requeues[old_job] == 2);
  // GetQueueOrderTimestamp: new-job's creation (10:05) comes before
  // retried-job's eviction (10:08), which comes before old-job's (10:10).
  step(ka_check::steps::kSchedule);
  CHECK(s.phase[new_job] == ka::kAdmitted);
  step(ka::Action{ka::kFinish, static_cast<std::int16_t>(new_job)});
  step(ka::Action{ka::kBackoffExpired, static_cast<std::int16_t>(old_job)});
  step(ka_check::steps::kSchedule);
  CHECK(s.phase[retried] == ka::kAdmitted);
  step(ka::Action{ka::kFinish, static_cast<std::int16_t>(retried)});
  step(ka_check::steps::kSchedule);
  REQUIRE(s.phase[old_job] == ka::kAdmitted);
  // Its third timeout is past backoffLimitCount 2.
  step(ka::Action{ka::kPodsReadyTimeout, static_cast<std::int16_t>(old_job)});
  CHECK(s.phase[old_job] == ka::kDeactivated);
}
