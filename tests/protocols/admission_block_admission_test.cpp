// waitForPodsReady.blockAdmission in protocol kueue-admission: the goroutine
// sleeps inside processEntry (waitForPodsReadyIfNeeded) holding the entry it
// was about to admit, and on waking admits that entry with the assignment its
// cycle computed (Scheduler.admit re-checks nothing), whatever reached the
// queues meanwhile.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/params.hpp"
#include "protocols/kueue_admission/rules.hpp"

namespace ka = kmc::protocols::ka;

namespace {

// cq0 {cpu: 2}, blockAdmission, one PodsReady timeout (so pods may be late).
// In queue order: w0 of priority 1, arriving after the others; w1 and w2 of
// priority 0, created in that order.
ka::AdmissionParams late_arrival_outranks(int restarts = 0) {
  auto p = ka_check::queue_of_one(3, 2);
  p.block_admission = true;
  p.pods_ready_timeouts = 1;
  p.controller_restarts = restarts;
  p.workloads[0].priority = 1;
  p.workloads[0].created = 2;
  p.workloads[0].arrives = true;
  p.workloads[1].created = 0;
  p.workloads[2].created = 1;
  p.finish();
  return p;
}

// late_arrival_outranks(restarts), walked until w1 is admitted with its pods
// late and the goroutine sleeps holding w2.
struct Asleep {
  explicit Asleep(int restarts = 0) : p(late_arrival_outranks(restarts)), step(p) {
    step(kSchedule);
    REQUIRE(s.phase[1] == ka::kAdmitted);
    REQUIRE(s.unready[1] == 1);
    step(kSchedule);
    REQUIRE(held() == 2);
  }
  int held() const { return step.rules.scheduler().blocked_entry(s).w; }
  static constexpr ka::Action kSchedule{ka::kSchedule, -1};
  const ka::AdmissionParams p;
  ka_check::Walk step;
  ka::State<std::int64_t>& s = step.s;
};

}  // namespace

TEST_CASE("blockAdmission: the woken goroutine admits the entry it held, not a newer head",
          "[admission][pods-ready][block-admission]") {
  // Kueue: w1 admitted, its pods late; w2's cycle sleeps before admitting it;
  // w0 arrives and outranks w2 in the heap; w1's pods get ready; the goroutine
  // wakes inside w2's processEntry and admits w2. The quota is then full, so
  // w0 waits for one to finish.
  Asleep a;
  auto& s = a.s;
  CHECK(s.phase[2] == ka::kPending);
  CHECK_FALSE(a.step.rules.enabled(s, Asleep::kSchedule));  // asleep
  a.step(ka::Action{ka::kArrive, 0});
  CHECK_FALSE(a.step.rules.enabled(s, Asleep::kSchedule));
  a.step(ka::Action{ka::kPodsReady, 1});
  // Woken, still holding w2: the next step of the goroutine admits it.
  CHECK(a.held() == 2);
  a.step(Asleep::kSchedule);
  CHECK(a.held() < 0);
  CHECK(s.phase[2] == ka::kAdmitted);
  CHECK(s.phase[0] == ka::kPending);
}

TEST_CASE("blockAdmission: a timeout that evicts the late job wakes the goroutine too",
          "[admission][pods-ready][block-admission]") {
  // The late job leaves the cache (PodsReady timeout): WorkloadsNotReady is
  // empty, so the goroutine wakes and admits w2, before w0 and before the
  // evicted w1 is back from its backoff.
  Asleep a;
  auto& s = a.s;
  a.step(ka::Action{ka::kArrive, 0});
  a.step(ka::Action{ka::kPodsReadyTimeout, 1});
  CHECK(s.phase[1] == ka::kBackoff);
  a.step(Asleep::kSchedule);
  CHECK(s.phase[2] == ka::kAdmitted);
  CHECK(s.phase[0] == ka::kPending);
  // w2 came in with the one timeout spent: its pods are ready at once, so the
  // next cycle admits w0 beside it.
  a.step(Asleep::kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
}

TEST_CASE("blockAdmission: asleep, a cycle changes nothing; a held entry in backoff is admitted",
          "[admission][pods-ready][block-admission]") {
  Asleep a;
  auto& s = a.s;
  // What the properties simulate (observe.cpp) on a sleeping goroutine: no step.
  auto t = s;
  a.step.rules.scheduler().cycle(t);
  CHECK(t.phase == s.phase);
  CHECK(t.blocked == s.blocked);
  // processEntry reads no backoff: a held entry the queues hold in backoff
  // (its cycle requeued it so, or its LocalQueue stopped) is admitted too.
  a.step(ka::Action{ka::kPodsReady, 1});
  s.phase[2] = ka::kBackoff;
  a.step(Asleep::kSchedule);
  CHECK(s.phase[2] == ka::kAdmitted);
}

TEST_CASE("blockAdmission: a restart loses the sleeping goroutine and the entry it held",
          "[admission][pods-ready][block-admission][restart]") {
  // Nothing else is lost here (no parked workload, no sticky head): the held
  // entry alone makes the restart a step worth exploring. The restarted
  // scheduler plans afresh, and w0, ahead of w2 now, is the entry it holds.
  Asleep a(1);
  a.step(ka::Action{ka::kArrive, 0});
  a.step(ka::Action{ka::kRestart, -1});
  CHECK(a.held() < 0);
  a.step(Asleep::kSchedule);
  CHECK(a.held() == 0);
}
