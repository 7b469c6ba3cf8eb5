// Several resource groups in one ClusterQueue (compile_flavor_choice): the
// scheduler chooses the flavor of the group with several, and the resources of
// each other group, of one flavor, always take that flavor and must fit there
// too, as Kueue assigns every group on its own. Exact state counts by hand.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using namespace ka_check::steps;
using kmc::checker::Verdict;

namespace {

// Kueue's shared-quota example in small: cq0's cpu in on-demand {1} or spot
// {1}, and a second group, credits {credits: 1}; w0 and w1 each ask for 1 cpu
// and 1 credit. The cpu flavors hold both, the credits one.
ka::AdmissionParams credits_cap() {
  ka::AdmissionParams p;
  p.resources = {"cpu", "credits"};
  p.flavors = {"on-demand", "spot", "credits"};
  ka::CqParams q;
  q.quota = {"cq0", -1, std::vector<std::int64_t>(6, 0), std::vector<std::int64_t>(6, ka::kNoLimit),
             std::vector<std::int64_t>(6, ka::kNoLimit)};
  q.quota.nominal[p.fr(0, 0)] = 1;  // on-demand cpu
  q.quota.nominal[p.fr(1, 0)] = 1;  // spot cpu
  q.quota.nominal[p.fr(2, 1)] = 1;  // credits
  q.flavors = {0, 1};
  q.covered = {0, 1};
  q.fixed_flavor = {-1, 2};
  p.cqs.push_back(q);
  for (int i = 0; i < 2; ++i) {
    ka::WorkloadParams w;
    w.name = "ns/w" + std::to_string(i);
    w.created = i;
    w.req = {1, 1};
    w.eligible = {true, true, true};
    w.reserved_at = i;
    p.workloads.push_back(w);
  }
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("resource groups: a one-flavor group caps what the chosen flavor admits",
          "[admission][resource-groups]") {
  const auto p = credits_cap();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(s.flavor[0] == 0);
  CHECK(s.usage[p.fr(0, 0)] == 1);
  CHECK(s.usage[p.fr(2, 1)] == 1);  // its credit is in the credits flavor
  CHECK(s.usage[p.fr(0, 1)] == 0);
  step(kSchedule);
  // spot has the cpu, but the credits group has nothing left.
  CHECK(s.phase[1] == ka::kInadmissible);
  step(finish(0));
  step(kSchedule);
  CHECK(s.phase[1] == ka::kAdmitted);
  CHECK(s.usage[p.fr(2, 1)] == 1);
}

TEST_CASE("resource groups: exact state counts of the credits cap",
          "[admission][resource-groups][counts]") {
  // By hand. s0 (both Pending); Schedule: s1 (w0 in on-demand); Schedule: s2
  // (w1 parked: no credit); Finish(w0) from s1 and from s2 (which requeues
  // w1): s3 (w0 Finished, w1 Pending); Schedule: s4 (w1 in on-demand);
  // Finish: s5. 6 states, 6 edges. Were the credits group ignored, w1 would
  // take spot's cpu from s1.
  const auto o = check(credits_cap(), {"no-over-admission", "usage-counted-once"});
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 6);
  CHECK(o.result.stats.transitions == 6);
}

TEST_CASE("resource groups: a victim is found through a one-flavor group's cell",
          "[admission][resource-groups][preemption]") {
  // w0 (priority 0) holds on-demand's cpu and the one credit from the start;
  // w1 (priority 1) would take spot's cpu, and needs the credit: its
  // ClusterQueue preempts lower priorities, and w0 uses that credits cell
  // though its chosen flavor is another (WorkloadUsesResources reads each
  // resource's own flavor).
  auto p = credits_cap();
  p.cqs[0].within = ka::WithinCq::LowerPriority;
  p.workloads[0].initial_flavor = 0;
  p.workloads[0].initial_admitted = true;
  p.workloads[1].priority = 1;
  std::swap(p.workloads[0], p.workloads[1]);  // queue order: priority first
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  REQUIRE(s.phase[1] == ka::kAdmitted);
  step(kSchedule);
  CHECK(s.phase[1] != ka::kAdmitted);  // preempted
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(s.flavor[0] == 0);  // on-demand's cpu is free again, and first
  CHECK(s.usage[p.fr(2, 1)] == 1);
}

TEST_CASE("resource groups: victims for a ClusterQueue's pods are chosen without the pods",
          "[admission][resource-groups][preemption][pods]") {
  // cq0 {cpu: 16, pods: 2}, withinClusterQueue LowerPriority; w1 and w2
  // (priority 0, one pod of 2 cpu) hold both pods; w0 (priority 10, two pods)
  // needs both preempted. Kueue's GetTargets reads TotalRequestsFor, without
  // the pods assignFlavors adds: one victim frees enough cpu, so the targets
  // are one, and processEntry's fits check, with the pods, fails: w0 is
  // skipped every cycle and nothing is preempted. A pods request in its spec
  // is in TotalRequestsFor: then both are preempted.
  for (const bool implicit : {true, false}) {
    DYNAMIC_SECTION((implicit ? "implicit pods" : "pods in the spec")) {
      ka::AdmissionParams p;
      p.resources = {"cpu", "pods"};
      p.flavors = {"default"};
      ka::CqParams q;
      q.quota = {"cq0", -1, {16, 2}, {ka::kNoLimit, ka::kNoLimit}, {ka::kNoLimit, ka::kNoLimit}};
      q.flavors = {0};
      q.covered = {0, 1};
      q.within = ka::WithinCq::LowerPriority;
      p.cqs.push_back(q);
      for (int i = 0; i < 3; ++i) {
        ka::WorkloadParams w;
        w.name = "ns/w" + std::to_string(i);
        w.created = i;
        w.priority = i == 0 ? 10 : 0;
        w.req = i == 0 ? std::vector<std::int64_t>{4, 2} : std::vector<std::int64_t>{2, 1};
        w.implicit_pods = implicit ? 1 : -1;
        w.eligible = {true};
        w.reserved_at = i;
        w.initial_flavor = i == 0 ? -1 : 0;
        p.workloads.push_back(w);
      }
      p.finish();
      ka_check::Walk step(p);
      auto& s = step.s;
      REQUIRE(s.phase[1] == ka::kAdmitted);
      REQUIRE(s.phase[2] == ka::kAdmitted);
      step(kSchedule);
      if (implicit) {
        CHECK(s.phase[0] == ka::kPending);  // skipped: "no longer fits"
        CHECK(s.phase[1] == ka::kAdmitted);
        CHECK(s.phase[2] == ka::kAdmitted);
        CHECK(step.rules.enabled(s, kSchedule));  // and again, every cycle
        // w1 and w2 may finish, so w0 is not stuck; while they run it waits
        // forever, with both pods owed to it.
        CHECK(check(p, {"guarantee-not-stuck"}).result.verdict == Verdict::Verified);
        CHECK(check(p, {"guarantee-eventually-admitted"}).result.verdict == Verdict::Violated);
      } else {
        CHECK(s.phase[1] != ka::kAdmitted);
        CHECK(s.phase[2] != ka::kAdmitted);
        step(kSchedule);
        CHECK(s.phase[0] == ka::kAdmitted);
      }
    }
  }
}
