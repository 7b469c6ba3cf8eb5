// Classical preemption in hierarchical cohorts (kueue-semantics.md §5): which
// ClusterQueues outside the preemptor's own subtree it may reclaim from, and
// as which variant, following hierarchical_preemption.go.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/params.hpp"
#include "protocols/kueue_admission/rules.hpp"

namespace ka = kmc::protocols::ka;
using namespace ka_check::steps;

namespace {

// Root r over cohort a, x {cpu: 0} and y {mem: 4}; a over home {cpu: 2, mem: 4
// with lendingLimit 0} and other {cpu: 2}. x1 (x, priority 0) borrows all of
// a's 4 cpu from r; o1 (other) borrows 2 mem from r, so a is above its own
// subtree's mem quota (0). p (home, priority 100) asks for 3 cpu and 1 mem:
// its mem fits in home's own 4, its cpu needs 1 more than home's 2.
ka::AdmissionParams nested() {
  ka::AdmissionParams p;
  p.resources = {"cpu", "mem"};
  p.flavors = {"default"};
  const std::vector<std::int64_t> none{ka::kNoLimit, ka::kNoLimit};
  p.cohorts.push_back({"r", -1, {0, 0}, none, none});
  p.cohorts.push_back({"a", 0, {0, 0}, none, none});
  auto queue = [&](const std::string& name, int parent, std::vector<std::int64_t> nominal) {
    ka::CqParams q;
    q.quota = {name, parent, std::move(nominal), none, none};
    q.flavors = {0};
    q.covered = {0, 1};
    q.reclaim = ka::Reclaim::LowerPriority;
    p.cqs.push_back(q);
  };
  queue("home", 1, {2, 4});
  p.cqs.back().quota.lending_limit = {ka::kNoLimit, 0};
  queue("other", 1, {2, 0});
  queue("x", 0, {0, 0});
  queue("y", 0, {0, 4});
  p.workloads.push_back(ka_check::workload("ns/x1", 2, 0, {4, 0}, 0, 0));
  p.workloads.push_back(ka_check::workload("ns/o1", 1, 0, {0, 2}, 0, 1));
  p.workloads.push_back(ka_check::workload("ns/p", 0, 100, {3, 1}, -1, 2));
  p.finish();
  return p;
}

}  // namespace

// QuantitiesFitInQuota checks every resource of the request at each cohort on
// the way up, a resource already covered below (remaining 0) too: at a, mem
// does not fit (usage 2 above a subtree quota of 0), so p has no hierarchical
// advantage there, and x1, reached at r, is a candidate only for a preemption
// without borrowing, which p, needing to borrow cpu, cannot make. Kueue finds
// no targets: x1 keeps running and p waits.
TEST_CASE("hierarchical preemption: a resource covered below still counts at each cohort",
          "[admission][preemption][hierarchy]") {
  const auto p = nested();
  ka_check::Walk step(p);
  auto& s = step.s;
  REQUIRE(s.phase[0] == ka::kAdmitted);
  REQUIRE(s.phase[1] == ka::kAdmitted);
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(s.phase[2] != ka::kAdmitted);
  // With a's mem within its subtree's quota (o1 gone), a fits p's remaining
  // cpu: x1 is a hierarchical candidate and is preempted (a Job: its quota
  // goes at once, and it is back in its queue).
  auto fits = nested();
  fits.workloads.erase(fits.workloads.begin() + 1);
  fits.finish();
  ka_check::Walk again(fits);
  again(kSchedule);
  CHECK(again.s.phase[0] == ka::kPending);
}
