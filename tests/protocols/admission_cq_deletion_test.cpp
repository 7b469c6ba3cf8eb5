// A ClusterQueue deleted during the run in protocol kueue-admission
// (environment.queueEdits `delete: true`): it terminates (inactive: no heads,
// out of the snapshot, its quota still its cohort's) until no workload holds
// quota in it, then the ClusterQueue controller's finalizer removal takes it
// out of the cohort tree. Exact state counts by hand.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/observe.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using namespace ka_check::steps;
using kmc::checker::Verdict;
using kmc::model::StopPolicy;

namespace {

ka::Action finalized(std::int16_t cq) {
  return ka::Action{ka::kClusterQueueFinalized, -1, -1, -1, cq};
}
ka::Action terminating(std::int16_t cq) {
  return ka::Action{ka::kClusterQueueTerminating, -1, -1, -1, cq};
}
ka::QueueEdit deletion(int cq) {
  ka::QueueEdit e;
  e.queue = cq;
  e.deletes = true;
  return e;
}

}  // namespace

TEST_CASE("ClusterQueue deletion: exact state counts", "[admission][cq-deletion][counts]") {
  // cq0 {cpu: 1}, w0 asking for 1; the operator deletes cq0. A state is (w0's
  // phase, edits left, cq0's deletion): Pending/Admitted/Finished, 1/0,
  // InCache/Terminating/Gone. By hand: (P,1,I) -Schedule-> (A,1,I) and
  // -QueueEdited-> (P,0,I), where cq0 still admits: -Schedule-> (A,0,I).
  // (A,1,I) -Finish-> (F,1,I) -QueueEdited-> (F,0,I); (A,1,I) -QueueEdited->
  // (A,0,I) -Finish-> (F,0,I). The controller's reconcile: (P,0,I) ->
  // (P,0,T), (A,0,I) -> (A,0,T), (F,0,I) -> (F,0,T); (A,0,T) -Finish->
  // (F,0,T). The finalizer goes where nothing holds quota: (P,0,T) -> (P,0,G),
  // where nothing is enabled, and (F,0,T) -> (F,0,G). 11 states, 13 edges.
  auto p = ka_check::queue_of_one(1, 1);
  p.queue_edits.push_back(deletion(0));
  p.finish();
  const auto o = check(p, {"guarantee-not-stuck", "no-over-admission", "usage-counted-once"});
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 11);
  CHECK(o.result.stats.transitions == 13);
}

TEST_CASE("ClusterQueue deletion: its workloads run on, its pending ones never start",
          "[admission][cq-deletion]") {
  auto p = ka_check::queue_of_one(2, 1);
  p.queue_edits.push_back(deletion(0));
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  step(kSchedule);  // one head per ClusterQueue and cycle
  CHECK(s.phase[1] == ka::kInadmissible);
  step(kEdit);
  CHECK_FALSE(step.rules.enabled(s, finalized(0)));  // not terminating in the cache yet
  step(terminating(0));
  CHECK(s.phase[0] == ka::kAdmitted);  // nothing is evicted or requeued
  CHECK(s.phase[1] == ka::kInadmissible);
  CHECK_FALSE(step.rules.enabled(s, finalized(0)));  // w0 holds quota in it
  step(finish(0));
  CHECK(s.phase[1] == ka::kPending);              // the freed quota requeues it
  CHECK_FALSE(step.rules.enabled(s, kSchedule));  // but heads() skips cq0
  step(finalized(0));
  CHECK(s.deletion[0] == ka::kCqGone);
  CHECK_FALSE(step.rules.enabled(s, kSchedule));
}

TEST_CASE("ClusterQueue deletion: its quota lends until it is gone, then the cohort has less",
          "[admission][cq-deletion]") {
  // Cohort co {cpu: 0} over cq0 {cpu: 0} and cq1 {cpu: 2}; w0 and w1 (cq0, 2
  // cpu each) borrow what cq1 lends. The operator deletes cq1.
  auto p = ka_check::two_in_cohort(0, 2);
  p.workloads[1].cq = 0;
  p.workloads[1].req = {2};
  p.queue_edits.push_back(deletion(1));
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kEdit);
  step(terminating(1));
  step(kSchedule);  // a terminating queue's quota still counts in its cohort
  CHECK(s.phase[0] == ka::kAdmitted);
  step(kSchedule);
  CHECK(s.phase[1] == ka::kInadmissible);
  step(finalized(1));  // nothing holds quota in cq1: it is gone
  CHECK(s.before_edit[0] == 1);
  const ka::Scheduler sched(p);
  CHECK(sched.tree_at(s).subtree_quota(p.Q(), 0) == 0);
  step(finish(0));
  CHECK(s.phase[1] == ka::kPending);
  step(kSchedule);
  CHECK(s.phase[1] == ka::kInadmissible);  // the cohort has nothing left to lend
  // w0 borrowing what is gone is the deletion's doing, not an over-admission.
  CHECK(check(p, {"no-over-admission", "usage-counted-once"}).result.verdict == Verdict::Verified);
}

TEST_CASE("ClusterQueue deletion: a stopPolicy on the terminating queue still drains it",
          "[admission][cq-deletion][stop-policy]") {
  // The workload controller reads spec.stopPolicy, not the deletion: a queue
  // stopped with HoldAndDrain and then deleted evicts its admitted workload,
  // which lets the finalizer go.
  auto p = ka_check::queue_of_one(1, 1);
  ka::QueueEdit drain;
  drain.queue = 0;
  drain.policy = StopPolicy::HoldAndDrain;
  p.queue_edits = {drain, deletion(0)};
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  step(kEdit);
  step(kEdit);
  step(terminating(0));
  CHECK_FALSE(step.rules.enabled(s, finalized(0)));
  step(ka::Action{ka::kQueueStopped, 0});
  CHECK(s.phase[0] == ka::kPending);
  step(finalized(0));
  CHECK(s.deletion[0] == ka::kCqGone);
}

TEST_CASE("ClusterQueue deletion: a reservation waiting for its checks is unset",
          "[admission][cq-deletion][checks]") {
  // reconcileOnClusterQueueActiveState (workload_controller.go): a workload
  // QuotaReserved, not Admitted, in a ClusterQueue with a deletionTimestamp
  // ("terminating or missing") loses its reservation, as in a stopped queue;
  // an Admitted one runs on. Here the autoscaler never answers w0's request:
  // unset, w0 frees the queue, whose finalizer then goes.
  auto p = ka_check::queue_of_one(1, 1);
  p.cqs[0].checks_on = {1};
  p.checks.push_back({"prov", false, 3, {}});
  p.answer = kmc::model::AutoscalerAnswer::AcceptsThenHangs;
  p.workloads[0].checks = {1};
  p.workloads[0].initial_retries = {0};
  p.queue_edits.push_back(deletion(0));
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  const ka::Action unset{ka::kQueueStopped, 0};
  step(kSchedule);
  REQUIRE(s.phase[0] == ka::kReserved);
  CHECK_FALSE(step.rules.enabled(s, unset));  // not deleted yet
  step(kEdit);
  step(unset);  // the object's deletionTimestamp: the cache need not know yet
  CHECK(s.phase[0] == ka::kPending);
  CHECK(s.flavor[0] == -1);
  step(terminating(0));
  step(finalized(0));  // before: w0 held the queue forever
  CHECK(s.deletion[0] == ka::kCqGone);
}

TEST_CASE(
    "ClusterQueue deletion: until the controller reconciles it, and after a restart, it admits",
    "[admission][cq-deletion][restart]") {
  // The deletion only sets a deletionTimestamp; the cache marks the queue
  // terminating when the ClusterQueue controller reconciles it, and a
  // restarted Kueue's cache adds it active again (AddClusterQueue).
  auto p = ka_check::queue_of_one(2, 2);
  p.queue_edits.push_back(deletion(0));
  p.controller_restarts = 1;
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kEdit);
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);  // a deleting queue admits until it is terminating
  step(terminating(0));
  CHECK_FALSE(step.rules.enabled(s, kSchedule));
  step(ka::Action{ka::kRestart, -1});
  CHECK(s.deletion[0] == ka::kCqInCache);
  step(kSchedule);
  CHECK(s.phase[1] == ka::kAdmitted);
  step(terminating(0));
  CHECK(s.deletion[0] == ka::kCqTerminating);
  // The guarantee was withdrawn at the deletion: nothing is owed to w1 after it.
  CHECK_FALSE(ka::guaranteed(ka::Scheduler(p), s, 1));
}

namespace {

// p, finished, with the one edit that deletes Cohort c (all quotas 0, no
// limits, as compile_queue_edits sets a deletion).
ka::AdmissionParams with_cohort_deleted(ka::AdmissionParams p, int c) {
  ka::QueueEdit e;
  e.cohort = true;
  e.queue = c;
  e.deletes = true;
  e.quotas = {ka::QuotaSet{0, 0, ka::kNoLimit, ka::kNoLimit}};
  p.queue_edits.push_back(e);
  p.finish();
  return p;
}

// Cohort "co" {cpu: 1} over cq0 {cpu: 0}, n workloads of 1 cpu in cq0 that
// borrow from it; the operator deletes co.
ka::AdmissionParams cohort_deleted(int n) {
  auto p = ka_check::queue_of_one(n, 0);
  p.cohorts.push_back({"co", -1, {1}, {ka::kNoLimit}, {ka::kNoLimit}});
  p.cqs[0].quota.parent = 0;
  return with_cohort_deleted(p, 0);
}

}  // namespace

TEST_CASE("Cohort deletion: exact state counts", "[admission][cq-deletion][counts]") {
  // By hand, as for a quota shrunk to 0: s0 (w0 Pending); Schedule: s1 (w0
  // borrows the cohort's cpu); the deletion: s2 (Pending), whose cycle parks it:
  // s3. From s1: Finish: s4; the deletion: s5 (Admitted, before_edit). s4 and
  // s5 lead to s6. 7 states, 7 edges; nothing is evicted.
  const auto o = check(cohort_deleted(1), {"no-over-admission", "usage-counted-once"});
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 7);
  CHECK(o.result.stats.transitions == 7);
}

TEST_CASE("Cohort deletion: its borrowers keep their quota and nothing is requeued",
          "[admission][cq-deletion]") {
  const auto p = cohort_deleted(2);
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  step(kSchedule);
  CHECK(s.phase[1] == ka::kInadmissible);
  step(kEdit);
  CHECK(s.phase[0] == ka::kAdmitted);
  CHECK(s.before_edit[0] == 1);
  CHECK(s.phase[1] == ka::kInadmissible);  // DeleteCohort notifies no queue
  step(finish(0));
  CHECK(s.phase[1] == ka::kPending);
  step(kSchedule);
  CHECK(s.phase[1] == ka::kInadmissible);  // the implicit cohort has nothing to lend
}

namespace {

// Cohort "root" {} over Cohort "co" {} over cq0 {cpu: 2}, and cq1 {cpu: 8}
// under root. w0 (cq0, 6 cpu) is admitted from the start, 4 of it borrowed
// from cq1 through root; w1 (cq1, 8 cpu) waits. The operator deletes co, which
// has a parent and a child: its subtree becomes a tree of its own.
ka::AdmissionParams subtree_detached() {
  auto p = ka_check::queue_of_one(2, 2);
  p.cohorts.push_back({"root", -1, {0}, {ka::kNoLimit}, {ka::kNoLimit}});
  p.cohorts.push_back({"co", 0, {0}, {ka::kNoLimit}, {ka::kNoLimit}});
  p.cqs.push_back(p.cqs[0]);
  p.cqs[1].quota.name = "cq1";
  p.cqs[1].quota.nominal = {8};
  p.cqs[0].quota.parent = 1;
  p.cqs[1].quota.parent = 0;
  p.workloads[0].req = {6};
  p.workloads[0].initial_flavor = 0;
  p.workloads[1].cq = 1;
  p.workloads[1].req = {8};
  return with_cohort_deleted(p, 1);
}

}  // namespace

TEST_CASE("Cohort deletion with a parent and children: exact state counts",
          "[admission][cq-deletion][counts]") {
  // By hand. s0 (w0 Admitted, w1 Pending, the deletion left). Schedule: s1 (w1
  // parked: root has 10, w0 uses 6). Finish(w0): s2. The deletion: s3. From s1:
  // Finish requeues root's tree, s2; the deletion: s4 (w1 still parked). From
  // s2: Schedule admits w1, s5; the deletion: s6. From s3: Schedule admits w1
  // (root has cq1's 8 and none of w0's 6), s7; Finish(w0): s6. From s4:
  // Finish(w0) requeues co's tree only, s8, where nothing is enabled. From s5:
  // Finish(w1), s9; the deletion, s10a (w1 admitted before it: before_edit).
  // s6: Schedule, s10b. s7: Finish(w0), s10b; Finish(w1), s11. s9, s10a, s10b
  // and s11 each lead to s12, both finished. 14 states, 19 edges.
  auto o = check(subtree_detached(), {"no-over-admission", "usage-counted-once"});
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 14);
  CHECK(o.result.stats.transitions == 19);
  // s8: w1 fits cq1's nominal quota in its reshaped tree, parked, and nothing
  // requeues it: no event happens in root's tree any more.
  o = check(subtree_detached(), {"guarantee-not-stuck"});
  CHECK(o.result.verdict == Verdict::Violated);
}

TEST_CASE("Cohort deletion with a parent and children: the subtree leaves with what it borrowed",
          "[admission][cq-deletion]") {
  const auto p = subtree_detached();
  ka_check::Walk step(p);
  auto& s = step.s;
  const ka::Scheduler sched(p);
  CHECK(sched.tree_at(s).root(0) == p.Q() + 0);  // cq0's root: Cohort root
  step(kEdit);
  CHECK(sched.tree_at(s).root(0) == p.Q() + 1);  // co, a root now
  CHECK(sched.tree_at(s).root(1) == p.Q() + 0);
  CHECK(ka::guaranteed(sched, s, 1));  // root counts none of w0's 6 any more
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);  // above its tree's 2 cpu, and kept
  CHECK(s.phase[1] == ka::kAdmitted);
}

namespace {
// The ClusterQueue created again from its manifest (`create: true` after its
// deletion): every quota of the manifest set, no limits.
ka::QueueEdit recreation(const ka::AdmissionParams& p, int cq) {
  ka::QueueEdit e;
  e.queue = cq;
  e.creates = true;
  for (int fr = 0; fr < p.F() * p.R(); ++fr)
    e.quotas.push_back({fr, p.cqs[cq].quota.nominal[fr], ka::kNoLimit, ka::kNoLimit});
  return e;
}
}  // namespace

TEST_CASE("ClusterQueue re-creation: exact state counts", "[admission][cq-deletion][counts]") {
  // The deletion's 11 states with a second edit that creates cq0 again. A
  // state is (w0's phase, edits left 2/1/0, cq0's deletion). Until the
  // deletion: (P,2,I) -Schedule-> (A,2,I) -Finish-> (F,2,I), and the edit
  // from each: (P,1,I), (A,1,I), (F,1,I); then as before: (P,1,I)
  // -Schedule-> (A,1,I) -Finish-> (F,1,I), each -Terminating-> (P,1,T),
  // (A,1,T), (F,1,T); (A,1,T) -Finish-> (F,1,T); the finalizer: (P,1,G),
  // (F,1,G). The creation waits for the old object to be gone (the API
  // server has it until its finalizer goes): from (P,1,G) -QueueEdited->
  // (P,0,I) -Schedule-> (A,0,I) -Finish-> (F,0,I), and (F,1,G) -QueueEdited->
  // (F,0,I). Created again, it is not terminating. 14 states, 17 edges.
  auto p = ka_check::queue_of_one(1, 1);
  p.queue_edits = {deletion(0), recreation(p, 0)};
  p.finish();
  const auto o = check(p, {"guarantee-not-stuck", "no-over-admission", "usage-counted-once"});
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 14);
  CHECK(o.result.stats.transitions == 17);
}

TEST_CASE("ClusterQueue re-creation: its pending workloads are pushed, its quota is back",
          "[admission][cq-deletion][creation]") {
  // Cohort co {cpu: 0} over cq0 {cpu: 0} and cq1 {cpu: 2}; w0 (cq0, 2 cpu),
  // w1 (cq1, 1 cpu). cq1 is deleted before anything runs, and created again.
  auto p = ka_check::two_in_cohort(0, 2);
  p.queue_edits = {deletion(1), recreation(p, 1)};
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  const ka::Scheduler sched(p);
  step(kEdit);
  step(terminating(1));
  CHECK_FALSE(step.rules.enabled(s, kEdit));  // the old object is still there
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);  // borrowing the terminating queue's quota
  CHECK(s.phase[1] == ka::kPending);   // heads() skips cq1
  step(finalized(1));
  CHECK(sched.tree_at(s).subtree_quota(p.Q(), 0) == 0);
  REQUIRE(step.rules.enabled(s, kEdit));
  step(kEdit);
  CHECK(s.deletion[1] == ka::kCqInCache);
  CHECK_FALSE(step.rules.enabled(s, terminating(1)));
  CHECK(sched.tree_at(s).subtree_quota(p.Q(), 0) == 2);
  step(kSchedule);
  CHECK(s.phase[1] == ka::kInadmissible);  // its 2 are lent to w0
  step(finish(0));
  CHECK(s.phase[1] == ka::kPending);
  step(kSchedule);
  CHECK(s.phase[1] == ka::kAdmitted);
}
