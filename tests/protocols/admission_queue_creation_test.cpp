// Queues created during the run in protocol kueue-admission (kmc.yaml
// environment.queueEdits with `create: true`; queue_creation.cpp). The
// parameters are built as compile_queue_creations leaves them: the queue on
// Hold without quota, and its creation an edit that sets its manifest's
// policy and quotas. Exact state counts by hand.
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

// Cohort "co" over cq0 {cpu: 1} and cq1 {cpu: 1}, which the only edit creates;
// w0 (cq0) asks for 2 cpu, so it fits only by borrowing cq1's quota.
ka::AdmissionParams borrower_and_newcomer() {
  auto p = ka_check::two_in_cohort(1, 1);
  p.workloads.pop_back();  // w1 is not needed
  ka::QueueEdit create{false, 1, StopPolicy::None, {{0, 1, ka::kNoLimit, ka::kNoLimit}}, false};
  create.creates = true;
  p.queue_edits.push_back(create);
  p.cqs[1].stop = StopPolicy::Hold;
  p.cqs[1].quota.nominal = {0};
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("queue creation: exact state counts of a ClusterQueue joining a cohort",
          "[admission][queue-creation][counts]") {
  // By hand. s0: w0 Pending, cq1 absent (the cohort has 1 cpu). Schedule: w0
  // does not fit, s1 (Inadmissible). The creation from s0: s2 (w0 Pending, the
  // cohort has 2); from s1 it requeues w0 (AddClusterQueue's
  // notifyRetryInadmissible): s2 again. Schedule from s2: w0 borrows cq1's cpu,
  // s3; Finish: s4. 5 states, 5 edges.
  const auto o = check(borrower_and_newcomer(),
                       {"no-over-admission", "usage-counted-once", "guarantee-not-stuck"});
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 5);
  CHECK(o.result.stats.transitions == 5);
}

TEST_CASE("queue creation: the creation requeues the cohort's parked workloads",
          "[admission][queue-creation]") {
  const auto p = borrower_and_newcomer();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  CHECK(s.phase[0] == ka::kInadmissible);
  CHECK_FALSE(step.rules.enabled(s, kSchedule));  // parked: no head
  step(kEdit);
  CHECK(s.phase[0] == ka::kPending);
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(s.usage[0] == 2);  // cq0's usage: 1 of its own, 1 borrowed from the newcomer
}

TEST_CASE("queue creation: a missing ClusterQueue's workloads wait in no heap, owed nothing",
          "[admission][queue-creation][liveness]") {
  // w0 in cq0, which the only edit creates; the operator may never create it
  // (queue-edits are not fair), so w0's guarantee is not owed before.
  auto p = ka_check::queue_of_one(1, 1);
  ka::QueueEdit create{false, 0, StopPolicy::None, {{0, 1, ka::kNoLimit, ka::kNoLimit}}, false};
  create.creates = true;
  p.queue_edits.push_back(create);
  p.cqs[0].stop = StopPolicy::Hold;
  p.cqs[0].quota.nominal = {0};
  p.finish();
  ka_check::Walk step(p);
  CHECK_FALSE(step.rules.enabled(step.s, kSchedule));
  const auto o = check(p, {"guarantee-eventually-admitted"});
  CHECK(o.result.verdict == Verdict::Verified);
  // s0, the creation, Schedule, Finish: 4 states in a line.
  CHECK(o.result.stats.states == 4);
  CHECK(o.result.stats.transitions == 3);
}

namespace {

// A Cohort's creation: absent until then (an implicit cohort of its name: no
// quota, no limits, no parent), it gets its manifest's quotas and parent.
ka::QueueEdit cohort_created(int cohort, std::int64_t nominal, int parent) {
  ka::QueueEdit e{
      false, cohort, StopPolicy::None, {{0, nominal, ka::kNoLimit, ka::kNoLimit}}, true};
  e.creates = true;
  e.cohort_parent = parent;
  return e;
}

}  // namespace

TEST_CASE("queue creation: exact state counts of a Cohort created with quota",
          "[admission][queue-creation][counts]") {
  // Cohort "co" {cpu: 2} over cq0 {cpu: 0}, absent until the edit; w0 (cq0)
  // asks for 1 cpu. By hand, as for a ClusterQueue above: s0 (w0 Pending);
  // Schedule: s1 (Inadmissible: the implicit cohort has nothing); the creation
  // from s0: s2; from s1 it requeues w0 (AddOrUpdateCohort's notifyCohort): s2
  // again; Schedule: s3 (w0 borrows the cohort's cpu); Finish: s4. 5 states,
  // 5 edges.
  auto p = ka_check::queue_of_one(1, 0);
  p.cohorts.push_back({"co", -1, {0}, {ka::kNoLimit}, {ka::kNoLimit}});
  p.cqs[0].quota.parent = 0;
  p.queue_edits.push_back(cohort_created(0, 2, -1));
  p.finish();
  const auto o = check(p, {"no-over-admission", "usage-counted-once", "guarantee-not-stuck"});
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 5);
  CHECK(o.result.stats.transitions == 5);
}

TEST_CASE("queue creation: a Cohort created with a parent grafts its subtree and requeues it",
          "[admission][queue-creation]") {
  // Cohort "root" {cpu: 2} over cq1 {cpu: 0}; Cohort "team" (its manifest's
  // parent is root) over cq0 {cpu: 0}, absent until the edit. w0 (cq0, 1 cpu)
  // borrows root's cpu once team joins it.
  auto p = ka_check::queue_of_one(1, 0);
  p.cqs.push_back(p.cqs[0]);
  p.cqs[1].quota.name = "cq1";
  p.cohorts.push_back({"root", -1, {2}, {ka::kNoLimit}, {ka::kNoLimit}});
  p.cohorts.push_back({"team", -1, {0}, {ka::kNoLimit}, {ka::kNoLimit}});
  p.cqs[0].quota.parent = 1;
  p.cqs[1].quota.parent = 0;
  p.queue_edits.push_back(cohort_created(1, 0, 0));
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  CHECK(s.phase[0] == ka::kInadmissible);
  step(kEdit);
  CHECK(s.phase[0] == ka::kPending);  // the root of its new tree is notified
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(check(p, {"no-over-admission", "usage-counted-once"}).result.verdict == Verdict::Verified);
}
