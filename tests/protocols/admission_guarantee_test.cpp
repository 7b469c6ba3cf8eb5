// The guarantee in protocol kueue-admission: what guarantee-eventually-admitted
// owes a workload. Kueue guarantees a ClusterQueue its nominal quota, not each
// of its workloads: the scheduler takes a queue's heads in its order
// (priority, then creation: queue_order.cpp), so a workload that queue order
// puts ahead takes the quota first, and the one behind it waits for as long
// as that one runs. A guarantee taken that way is not owed; one taken by a
// workload behind it, or by another queue's borrower, still is.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/observe.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using namespace ka_check::steps;
using kmc::checker::Verdict;

TEST_CASE("guarantee: a queue's quota taken by the workload ahead of w is not owed to w",
          "[admission][guarantee][liveness]") {
  // cq0 {cpu: 1}; w0 and w1 of 1 cpu each, of one priority, w0 created first.
  // Both fit at the start; the cycle admits w0, which may run forever
  // (completion is not fair). w1 then waits behind it: Kueue's order.
  auto p = ka_check::queue_of_one(2, 1);
  p.finish();
  auto o = check(p, {"guarantee-eventually-admitted"});
  CHECK(o.result.verdict == Verdict::Verified);
  // So is one of higher priority that arrives during the run and goes first.
  p = ka_check::queue_of_one(2, 1);
  p.workloads[0].priority = 10;
  p.workloads[0].arrives = true;
  p.finish();
  o = check(p, {"guarantee-eventually-admitted"});
  CHECK(o.result.verdict == Verdict::Verified);
}

TEST_CASE("guarantee: ahead in queue order is priority, then creation", "[admission][guarantee]") {
  // cq0 {cpu: 1}; w0 and w1 of 1 cpu, w0 created at `created0`, w1 at 1.
  // `holder` is admitted from the start, the other waits. Params list
  // workloads in queue order: priority, then creation.
  auto state = [](int holder, std::int64_t p0, std::int64_t p1, std::int64_t created0 = 0) {
    auto p = ka_check::queue_of_one(2, 1);
    p.workloads[0].priority = p0;
    p.workloads[1].priority = p1;
    p.workloads[0].created = created0;
    p.workloads[holder].initial_flavor = 0;
    p.finish();
    return p;
  };
  auto judge = [](const ka::AdmissionParams& p, int waiting) {
    const ka::Scheduler sched(p);
    const auto s = ka::Spec::initial(p);
    REQUIRE_FALSE(ka::guaranteed(sched, s, waiting));
    return ka::overtaken(sched, s, waiting);
  };
  // Older, one priority: ahead of w1, which is overtaken, not owed.
  CHECK(judge(state(0, 0, 0), 1));
  // Higher priority, though newer: ahead too.
  CHECK(judge(state(0, 10, 0, 5), 1));
  // Newer, one priority: behind w0 in its queue. The quota it holds is still
  // owed to w0 (a queue that let it go first broke its order).
  CHECK_FALSE(judge(state(1, 0, 0), 0));
  // Lower priority, though older: behind w0, which may not preempt it
  // (withinClusterQueue Never); the quota stays owed to w0, first in line.
  CHECK_FALSE(judge(state(1, 10, 0, 5), 0));
}

TEST_CASE("guarantee: another queue's borrower does not overtake", "[admission][guarantee]") {
  // Cohort "co" over cq0 {cpu: 2} and cq1 {cpu: 1}; w1 (cq1) holds 2 cpu from
  // the start, borrowing one of cq0's; w0 (cq0) wants 2. Without
  // reclaimWithinCohort, w0 cannot take its quota back: it is not within its
  // guarantee, and another queue's workload is no queue order of its own.
  auto p = ka_check::two_in_cohort(2, 1);
  p.workloads[1].req = {2};
  p.workloads[1].initial_flavor = 0;
  p.finish();
  const ka::Scheduler sched(p);
  const auto s = ka::Spec::initial(p);
  CHECK_FALSE(ka::guaranteed(sched, s, 0));
  CHECK_FALSE(ka::overtaken(sched, s, 0));
}
