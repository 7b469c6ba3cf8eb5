// Preemption under fair sharing (pkg/scheduler/preemption/preemption.go,
// runFirstFsStrategy and runSecondFsStrategy): the ClusterQueue ordering by
// share, the strategies, and FairSharingPreemptWithinNominal.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using namespace ka_check::steps;

TEST_CASE("fair preemption: within nominal is decided once, before any victim is taken",
          "[admission][fair-sharing][preemption]") {
  // runFirstFsStrategy computes preemptorWithinNominal once, with the
  // incoming workload added: victims of the preemptor's own queue that bring
  // it back within nominal do not let it take cross-queue victims without the
  // strategies. Cohort of A {cpu 4, mem 4: withinClusterQueue and
  // reclaimWithinCohort LowerPriority} and B {cpu 4, mem 4}. A holds a0
  // (priority 100, cpu 1) and a1 (0, cpu 2); B holds b1 (0, cpu 5), borrowing
  // one. a2 (A, 10, cpu 3, mem 6) needs preemption on cpu: with it, A borrows
  // 2 of 8 in both (share 250), B 1 of 8 cpu (125). A goes first: a1 is taken,
  // and a2 does not fit yet. B's b1 then fails both strategies (250 <= 0,
  // 250 < 125): no targets. Taking b1 because A was now within nominal on cpu
  // preempted it and admitted a2.
  ka::AdmissionParams p;
  p.resources = {"cpu", "mem"};
  p.flavors = {"default"};
  const std::vector<std::int64_t> none(2, ka::kNoLimit);
  p.cohorts.push_back({"co", -1, {0, 0}, none, none});
  ka::CqParams a;
  a.quota = {"A", 0, {4, 4}, none, none};
  a.flavors = {0};
  a.covered = {0, 1};
  a.within = ka::WithinCq::LowerPriority;
  a.reclaim = ka::Reclaim::LowerPriority;
  ka::CqParams b;
  b.quota = {"B", 0, {4, 4}, none, none};
  b.flavors = {0};
  b.covered = {0, 1};
  p.cqs = {a, b};
  p.workloads = {ka_check::workload("ns/a0", 0, 100, {1, 0}, 0, 0),
                 ka_check::workload("ns/a2", 0, 10, {3, 6}, -1, 3),
                 ka_check::workload("ns/a1", 0, 0, {2, 0}, 0, 1),
                 ka_check::workload("ns/b1", 1, 0, {5, 0}, 0, 2)};
  p.fair_sharing = true;
  p.fs_strategies = {true, false};
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  CHECK(s.phase[3] == ka::kAdmitted);  // b1 stays
  CHECK(s.phase[2] == ka::kAdmitted);  // a1 too: no victim set fits
  CHECK(s.phase[1] == ka::kInadmissible);
}

TEST_CASE("fair sharing: weighted shares round as Kueue's float64 division does",
          "[admission][fair-sharing]") {
  // PreciseWeightedShare is unweightedRatio / weight. A (weight 0.1) asking
  // for 1 of C's 15 lendable GPUs: (1000/15) / 0.1 = 666.6666666666666, the
  // same double as B's (weight 1) 10 of 15: the tournament's tie goes to
  // priority, and a1 (priority 10) is admitted first; b1 then does not fit.
  // (1000/15) * 1000 / 100 is 666.6666666666667: b1 went first.
  ka::AdmissionParams p;
  p.resources = {"gpu"};
  p.flavors = {"default"};
  p.cohorts.push_back({"co", -1, {0}, {ka::kNoLimit}, {ka::kNoLimit}});
  auto queue = [](const char* name, std::int64_t nominal, std::int64_t weight_milli) {
    ka::CqParams q;
    q.quota = {name, 0, {nominal}, {ka::kNoLimit}, {ka::kNoLimit}};
    q.flavors = {0};
    q.covered = {0};
    q.fair_weight_milli = weight_milli;
    return q;
  };
  p.cqs = {queue("A", 0, 100), queue("B", 0, 1000), queue("C", 15, 1000)};
  p.workloads = {ka_check::workload("ns/a1", 0, 10, {1}, -1, 1),
                 ka_check::workload("ns/c0", 2, 0, {5}, 0, 0),
                 ka_check::workload("ns/b1", 1, 0, {10}, -1, 2)};
  p.fair_sharing = true;
  p.fs_strategies = {true, false};
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(s.phase[2] != ka::kAdmitted);
}
