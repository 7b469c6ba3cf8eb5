// The choice between the flavors of a resource group (flavorassigner.go
// findFlavorForPodSets): each flavor's representativeMode is the mode of its
// least preferred resource under isPreferred, and that pair, preemption mode
// and borrowing level together, decides; the assignment then borrows as much
// as its most borrowing resource (Assignment.append).
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using namespace ka_check::steps;

namespace {

// Cohort "co" over A {f1: cpu 2 mem 2, f2: cpu 4 mem 4} and B {f1: cpu 2};
// one group of flavors f1, f2 over cpu and mem, default fungibility
// (whenCanPreempt TryNextFlavor, BorrowingOverPreemption). B holds, borrowing
// from A, v1 (f1: cpu 1, mem 2) and v2 (f2: cpu 4, mem 4), both priority 0.
// A reclaims and borrows within the cohort from lower priorities; w (A,
// priority 5) asks for cpu 3 and mem 2.
ka::AdmissionParams two_resources() {
  ka::AdmissionParams p;
  p.resources = {"cpu", "mem"};
  p.flavors = {"f1", "f2"};
  const std::vector<std::int64_t> none(4, ka::kNoLimit);
  p.cohorts.push_back({"co", -1, std::vector<std::int64_t>(4, 0), none, none});
  ka::CqParams a;
  a.quota = {"A", 0, {2, 2, 4, 4}, none, none};
  a.flavors = {0, 1};
  a.covered = {0, 1};
  a.reclaim = ka::Reclaim::LowerPriority;
  a.borrow_within_cohort = true;
  ka::CqParams b = a;
  b.quota = {"B", 0, {2, 0, 0, 0}, none, none};
  b.reclaim = ka::Reclaim::Never;
  b.borrow_within_cohort = false;
  p.cqs = {a, b};
  p.workloads = {ka_check::workload("ns/w", 0, 5, {3, 2}, -1, 2, 2),
                 ka_check::workload("ns/v1", 1, 0, {1, 2}, 0, 0, 2),
                 ka_check::workload("ns/v2", 1, 0, {4, 4}, 1, 1, 2)};
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("flavor choice: a flavor's mode is its least preferred resource's",
          "[admission][flavors][preemption]") {
  // f1: cpu fits borrowing ({Fit, 1}), mem needs v1 reclaimed ({Reclaim, 0});
  // the representative is {Reclaim, 0}. f2: both need v2 ({Reclaim, 0}).
  // Equal: f1, the first, is kept, and w reclaims from v1. Combining the two
  // halves apart ({Reclaim, 1} for f1) preferred f2 and preempted v2.
  const auto p = two_resources();
  ka_check::Walk step(p);
  auto& s = step.s;
  REQUIRE(s.phase[1] == ka::kAdmitted);
  REQUIRE(s.phase[2] == ka::kAdmitted);
  step(kSchedule);
  CHECK(s.phase[1] != ka::kAdmitted);  // v1 preempted
  CHECK(s.phase[2] == ka::kAdmitted);
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(s.flavor[0] == 0);
  CHECK(s.usage[p.fr(0, 0)] == 3);  // w's cpu in f1, one of it borrowed
}
