// The Kueue admission protocol (protocols/kueue_admission/): exact state
// counts of small clusters, derived by hand from Kueue's semantics; the
// deliberately broken variant caught by the property named for it; the
// historical variants found and their fixes verified; the shipped examples.
#include <catch2/catch.hpp>

#include "counterexamples/pipeline_core.hpp"
#include "invariants/admission_registry.hpp"
#include "ka_check.hpp"
#include "model/scenario.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using kmc::checker::Verdict;

namespace {

// One flavor, one resource (cpu, in units), ClusterQueues given by their
// nominal quota and cohort (-1 none), workloads by (cq, priority, request).
struct Wl {
  int cq;
  int priority;
  std::int64_t cpu;
  bool admitted = false;  // holds quota at the start
};

ka::AdmissionParams cluster(const std::vector<std::pair<std::int64_t, int>>& cqs,
                            const std::vector<Wl>& wls, int cohorts = 0) {
  ka::AdmissionParams p;
  p.resources = {"cpu"};
  p.flavors = {"default"};
  for (int c = 0; c < cohorts; ++c)
    p.cohorts.push_back({"cohort" + std::to_string(c), -1, {0}, {ka::kNoLimit}, {ka::kNoLimit}});
  for (std::size_t i = 0; i < cqs.size(); ++i) {
    ka::CqParams q;
    q.quota = {
        "cq" + std::to_string(i), cqs[i].second, {cqs[i].first}, {ka::kNoLimit}, {ka::kNoLimit}};
    q.flavors = {0};
    q.covered = {0};
    p.cqs.push_back(q);
  }
  for (std::size_t i = 0; i < wls.size(); ++i) {
    ka::WorkloadParams w;
    w.name = "ns/w" + std::to_string(i);
    w.cq = wls[i].cq;
    w.priority = wls[i].priority;
    w.created = static_cast<std::int64_t>(i);
    w.req = {wls[i].cpu};
    w.eligible = {true};
    w.initial_flavor = wls[i].admitted ? 0 : -1;
    w.reserved_at = static_cast<std::int64_t>(i);
    p.workloads.push_back(w);
  }
  p.finish();
  return p;
}

kmc::cx::CheckOutcome check_example(const std::string& name,
                                    std::vector<std::string> properties = {}) {
  const auto sc = kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/" + name);
  const ka::Instance p(ka::compile_admission(sc));
  kmc::cx::CheckRequest req;
  req.properties = std::move(properties);
  kmc::cx::Hooks hooks;
  return kmc::cx::check_instance(p, kmc::invariants::admission_properties(p), sc, req, hooks);
}

}  // namespace

TEST_CASE("admission: exact state counts of a queue of one", "[admission][counts]") {
  // cq0 {cpu: 1}; w0 and w1 want 1 each, w0 first. BestEffortFIFO, by hand:
  // s0 both Pending; s1 w0 Admitted; s2 w1 parked Inadmissible (no
  // candidates); s3 w0 Finished, w1 Pending (requeued by the release); s4 w1
  // Admitted; s5 both Finished. Edges: s0-s1, s1-s2, s1-s3, s2-s3, s3-s4, s4-s5.
  auto p = cluster({{1, -1}}, {{0, 0, 1}, {0, 0, 1}});
  auto o = check(p);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 6);
  CHECK(o.result.stats.transitions == 6);
  // StrictFIFO keeps w1 at the head (s1's cycle changes nothing: a self-loop)
  // and never parks it: s0, s1, s3, s4, s5 and five edges with the loop.
  p.cqs[0].strict_fifo = true;
  o = check(p);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 5);
  CHECK(o.result.stats.transitions == 5);
}

TEST_CASE("admission: exact state counts with preemption in the queue", "[admission][counts]") {
  // cq0 {cpu: 1}, withinClusterQueue LowerPriority; w0 (priority 10) pending,
  // w1 (priority 0) admitted at the start. Jobs: a victim's quota goes when
  // it is evicted. By hand: s0 w1 Admitted; s1 w1 preempted back to Pending,
  // w0 sticky; s2 w1 Finished; s3 w0 Admitted; s4 w0 Admitted, w1 Finished;
  // s5 w1 parked; s6 w0 Finished, w1 Pending; s7 both Finished; s8 w0
  // Finished, w1 Admitted. Edges: s0-s1 s0-s2 s1-s3 s2-s4 s3-s5 s3-s6 s4-s7
  // s5-s6 s6-s8 s8-s7.
  auto p = cluster({{1, -1}}, {{0, 10, 1}, {0, 0, 1, true}});
  p.cqs[0].within = ka::WithinCq::LowerPriority;
  auto o = check(p);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 9);
  CHECK(o.result.stats.transitions == 10);
}

TEST_CASE("admission: the broken variant that skips the cohort's limit over-admits",
          "[admission][broken]") {
  // Two queues of 1 in one cohort (2 in all); cq0 has two workloads of 1,
  // cq1 one. cq0 may borrow cq1's unit, and cq1's workload then waits:
  // never more than 2 in use. Broken, cq0 sees no cohort above it.
  auto p = cluster({{1, 0}, {1, 0}}, {{0, 0, 1}, {0, 0, 1}, {1, 0, 1}}, 1);
  CHECK(check(p).result.verdict == Verdict::Verified);
  p.broken_skip_cohort_limit = true;
  const auto o = check(p);
  CHECK(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->property == "no-over-admission");
}

TEST_CASE("admission: K14, a preemptor that is not sticky loses its quota forever (#7157)",
          "[admission][known-bugs]") {
  // kubernetes-sigs/kueue#6947: cohort of a {3, reclaim Any} and b {0}.
  // w0 (1) in b borrows; w1 (4) in a can never fit; w2 (3) in a reclaims.
  auto p = cluster({{3, 0}, {0, 0}}, {{1, 0, 1}, {0, 0, 4}, {0, 0, 3}}, 1);
  for (auto& q : p.cqs) q.reclaim = ka::Reclaim::Any;
  CHECK(check(p, {"no-preemption-livelock"}).result.verdict == Verdict::Verified);
  p.sticky_head = false;
  const auto o = check(p, {"no-preemption-livelock"});
  CHECK(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->loop.has_value());
}

TEST_CASE("admission: the shipped examples and their fixes", "[admission][examples]") {
  auto o = check_example("zombie-pod");
  CHECK(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->property == "guarantee-not-stuck");
  CHECK(check_example("zombie-pod-fixed").result.verdict == Verdict::Verified);
  o = check_example("preemption-grace-hol");
  CHECK(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->property == "no-head-of-line-blocking");
  CHECK(check_example("preemption-grace-hol-fixed").result.verdict == Verdict::Verified);
  o = check_example("drs-rounding");
  CHECK(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->property == "guarantee-eventually-admitted");
  CHECK(check_example("drs-rounding-fixed").result.verdict == Verdict::Verified);
  o = check_example("cohort-preemption-hol");
  CHECK(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->property == "no-head-of-line-blocking");
}

TEST_CASE("admission: a Job victim released mid-cycle is still planned as its holder",
          "[admission][regression]") {
  // zombie-pod with a Job for the sweep: train-a's preemption releases the
  // sweep's quota within the cycle, and train-b's re-plan (its targets
  // overlap) must still see the sweep in its flavor. Reading the state the
  // cycle writes corrupted the heap here (found on a 12-workload fleet).
  auto p = cluster({{8, 0}, {8, 0}, {0, 0}}, {{2, 0, 16, true}, {0, 0, 8}, {1, 0, 8}}, 1);
  for (int q : {0, 1}) p.cqs[q].reclaim = ka::Reclaim::Any;
  const auto o = check(p);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(check(p, {"guarantee-eventually-admitted"}).result.verdict == Verdict::Verified);
}

TEST_CASE("admission: K05, two preemptors of one cycle count the same victim (#805)",
          "[admission][known-bugs]") {
  // The #805 integration test: cohort of alpha, beta, gamma {cpu: 2} each,
  // reclaimWithinCohort Any. beta-mid (3) and beta-high (3) hold beta,
  // borrowing 4; alpha-mid (2) and gamma-mid (2) arrive together and both
  // choose beta-mid. Before #805 both are admitted once it is gone: 7 > 6.
  auto p = cluster({{2, 0}, {2, 0}, {2, 0}},
                   {{1, 100, 3, true}, {1, 10, 3, true}, {0, 10, 2}, {2, 10, 2}}, 1);
  for (auto& q : p.cqs) q.reclaim = ka::Reclaim::Any;
  CHECK(check(p).result.verdict == Verdict::Verified);
  p.recheck_in_cycle = false;
  const auto o = check(p);
  CHECK(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->property == "no-over-admission");
}

TEST_CASE("admission: a re-plan that finds no candidates parks the entry",
          "[admission][preemption][overlap]") {
  // updateAssignmentIfNeeded re-plans an entry whose targets overlap the
  // cycle's victims; processEntry then treats the new assignment as a
  // nomination: NoFit, or Preempt without targets (PreemptionNoCandidates),
  // requeues it inadmissible, not at once. Cohort of cq0 {cpu: 2,
  // withinClusterQueue LowerPriority, borrowWithinCohort} and cq1 {cpu: 2,
  // reclaimWithinCohort LowerPriority}; v (cq0, priority 0, 3 cpu) borrows one
  // and x (cq1, priority 10, 1 cpu) holds one. w2 (cq1, 5, 1) reclaims v
  // without borrowing and goes first; w1 (cq0, 5, 3) chose v too. Without v,
  // w1 would borrow what x and w2 now hold, and x is above its priority. v is
  // a pod group: its quota stays until its pods are gone, so nothing is
  // requeued before that.
  const ka::Action schedule{ka::kSchedule, -1};
  auto p = cluster({{2, 0}, {2, 0}}, {{1, 10, 1, true}, {0, 5, 3}, {1, 5, 1}, {0, 0, 3, true}}, 1);
  p.cqs[0].within = ka::WithinCq::LowerPriority;
  p.cqs[0].borrow_within_cohort = true;
  p.cqs[1].reclaim = ka::Reclaim::LowerPriority;
  p.workloads[3].pods = true;
  ka_check::Walk step(p);
  auto& s = step.s;
  step(schedule);
  CHECK(s.phase[3] == ka::kEvicted);       // v preempted by w2
  CHECK(s.phase[1] == ka::kInadmissible);  // before: Pending, skipped and requeued at once
}

TEST_CASE("admission: K11, one preemption per cohort per cycle (#2641)",
          "[admission][known-bugs]") {
  // Two ClusterQueues of one cohort, 2 cpu each, withinClusterQueue
  // LowerPriority, each full of two low-priority Pod groups (their quota
  // held until their pods stop); one high-priority workload per queue, cq0's
  // older. Today both preempt in the first cycle. Before #2641 cq0's head
  // preempts and cq1's is skipped, again every cycle while cq0's victim stops.
  // cohort: the queues' cohort (0), or -1 for two standalone queues.
  auto two_teams = [](int cohort) {
    auto p = cluster({{2, cohort}, {2, cohort}},
                     {{0, 0, 1, true},
                      {0, 0, 1, true},
                      {1, 0, 1, true},
                      {1, 0, 1, true},
                      {0, 100, 1},
                      {1, 100, 1}},
                     cohort < 0 ? 0 : 1);
    for (auto& w : p.workloads) w.pods = true;
    for (auto& q : p.cqs) q.within = ka::WithinCq::LowerPriority;
    p.finish();
    return p;
  };
  auto p = two_teams(0);
  const auto today = check(p);
  CHECK(today.result.verdict == Verdict::Verified);
  p.multiple_preemptions = false;
  const auto o = check(p);
  CHECK(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->property == "no-head-of-line-blocking");
  CHECK(o.result.violation->path.choices.size() == 1);  // one Schedule

  // Standalone queues share no cohort: the rule does not apply, and nothing waits.
  auto alone = two_teams(-1);
  const auto alone_today = check(alone);
  CHECK(alone_today.result.verdict == Verdict::Verified);
  alone.multiple_preemptions = false;
  const auto alone_before = check(alone);
  CHECK(alone_before.result.verdict == Verdict::Verified);
  CHECK(alone_before.result.stats.states == alone_today.result.stats.states);
  CHECK(alone_before.result.stats.transitions == alone_today.result.stats.transitions);
}

TEST_CASE("admission: a NoFit head parks the workloads its scheduling hash equals",
          "[admission][golden]") {
  // SchedulingEquivalenceHashing (handleInadmissibleHash): cq0 (1 cpu) is held
  // by w0; w1 and w2 (1 cpu each, same priority and pod sets) wait. The first
  // cycle finds w1 NoFit and parks w2 with it. Without the hash it parks w1
  // alone and needs a second cycle for w2: states S0 (w0 A, w1 P, w2 P),
  // S1 (w1 I), S3 (w1 I, w2 I), S2 (w0 F), S4 (w1 A), S5 (w1 A, w2 I),
  // S6 (w1 F), S7 (w2 A), S8 (all F): 9 states, 11 edges. With it S1 is never
  // reached: 8 states, 9 edges.
  auto p = cluster({{1, -1}}, {{0, 0, 1, true}, {0, 0, 1}, {0, 0, 1}});
  const auto alone = check(p);
  CHECK(alone.result.stats.states == 9);
  CHECK(alone.result.stats.transitions == 11);
  p.workloads[1].equivalence = p.workloads[2].equivalence = 1;
  const auto hashed = check(p);
  CHECK(hashed.result.stats.states == 8);
  CHECK(hashed.result.stats.transitions == 9);
  CHECK(hashed.result.verdict == alone.result.verdict);
}

TEST_CASE("admission: exact state counts with a workload arriving during the run",
          "[admission][counts][arrivals]") {
  // cq0 {cpu: 1}; w0 (1 cpu) is there, w1 (1 cpu) arrives whenever the
  // environment chooses. By hand, (w0, w1): s0 (P, -), s1 (A, -), s2 (P, P),
  // s3 (F, -), s4 (A, P), s5 (F, P), s6 (A, I), s7 (F, A), s8 (F, F).
  // Edges: s0-s1 s0-s2 s1-s3 s1-s4 s2-s4 s3-s5 s4-s5 s4-s6 s5-s7 s6-s5 s7-s8.
  auto p = cluster({{1, -1}}, {{0, 0, 1}, {0, 0, 1}});
  p.workloads[1].arrives = true;
  auto o = check(p);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 9);
  CHECK(o.result.stats.transitions == 11);
}

TEST_CASE("admission: an arrival whose equivalence class is parked is parked with it",
          "[admission][arrivals][equivalence]") {
  // cq0 {cpu: 1}; w0, w1, w2 (1 cpu each) share a scheduling hash, w2 arrives.
  // w0 is admitted; w1's NoFit parks its class (handleInadmissibleHash); w2,
  // created now, goes straight to the inadmissible set (PushOrUpdate checks
  // hashToBulkMoveReason) until the quota w0 frees requeues the class.
  auto p = cluster({{1, -1}}, {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}});
  p.workloads[2].arrives = true;
  for (auto& w : p.workloads) w.equivalence = 0;
  const ka::Rules<std::int64_t> rules(p, {});
  auto s = ka::Spec::initial(p);
  const ka::Action cycle{ka::kSchedule, -1};
  rules.apply_in_place(s, cycle);
  rules.apply_in_place(s, cycle);
  REQUIRE(s.phase[0] == ka::kAdmitted);
  REQUIRE(s.phase[1] == ka::kInadmissible);
  rules.apply_in_place(s, ka::Action{ka::kArrive, 2});
  CHECK(s.phase[2] == ka::kInadmissible);
  rules.apply_in_place(s, ka::Action{ka::kFinish, 0});
  CHECK(s.phase[1] == ka::kPending);
  CHECK(s.phase[2] == ka::kPending);
}

TEST_CASE("admission: arrivals come in creation order, each once", "[admission][arrivals]") {
  // w1 then w2 arrive (w2 created later): Arrive(w2) waits for Arrive(w1).
  auto p = cluster({{2, -1}}, {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}});
  p.workloads[1].arrives = p.workloads[2].arrives = true;
  p.workloads[2].arrives_after = 1;
  const ka::Rules<std::int64_t> rules(p, {});
  auto s = ka::Spec::initial(p);
  CHECK(s.phase[1] == ka::kAbsent);
  const ka::Action first{ka::kArrive, 1}, second{ka::kArrive, 2};
  CHECK(rules.enabled(s, first));
  CHECK_FALSE(rules.enabled(s, second));
  rules.apply_in_place(s, first);
  CHECK(s.phase[1] == ka::kPending);
  CHECK_FALSE(rules.enabled(s, first));
  CHECK(rules.enabled(s, second));
  // An absent workload is nobody's head and holds nothing.
  const ka::Scheduler sched(p);
  CHECK(sched.head(s, 0) == 0);
  CHECK_FALSE(ka::Scheduler::holds(s, 2));
}

TEST_CASE("admission: the reservation order is kept among holders of one priority only",
          "[admission][counts]") {
  // Kueue's candidate order compares reservation times only between workloads
  // of equal priority, so kmc keeps no order across priorities. cq0 {cpu: 2},
  // withinClusterQueue LowerPriority; w1 (priority 0) waits, w0 (priority 10)
  // arrives. Each phase pair is one state: w0 Absent, Pending, Admitted or
  // Finished with w1 Pending, Admitted or Finished, all reachable: 12. The
  // order of reservation across the two priorities (w1 then w0, or w0 then
  // w1) would split (Admitted, Admitted) into two states: 13.
  auto p = cluster({{2, -1}}, {{0, 10, 1}, {0, 0, 1}});
  p.cqs[0].within = ka::WithinCq::LowerPriority;
  p.workloads[0].arrives = true;
  p.workloads[0].created = 5;  // created when it arrives, after w1
  // (some-preemption is left out: two cpu fit both, so nothing is ever preempted.)
  const auto o = check(p, {"no-over-admission", "usage-counted-once", "guarantee-not-stuck"});
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 12);
}

TEST_CASE("admission: exact state counts with a pod group a user may delete",
          "[admission][counts][deletions]") {
  // cq0 {cpu: 1}; the pod group w0 (1 cpu) is admitted, w1 (1 cpu) waits; a
  // user may delete w0, whose pods then terminate (Orph) and are gone (Del).
  // By hand, (w0, w1): s0 (A, P), s1 (F, P), s2 (Orph, P), s3 (A, I),
  // s4 (F, A), s5 (Orph, A), s6 (Del, P), s7 (F, F), s8 (Del, A), s9 (Orph, F),
  // s10 (Del, F). Edges: s0-s1 s0-s2 s0-s3 s1-s4 s2-s5 s2-s6 s3-s1 s3-s2 s4-s7
  // s5-s8 s5-s9 s6-s8 s8-s10 s9-s10. The deletion frees the quota at once.
  auto p = cluster({{1, -1}}, {{0, 0, 1, true}, {0, 0, 1}});
  p.workloads[0].pods = p.workloads[0].deletable = true;
  const auto o = check(p);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 11);
  CHECK(o.result.stats.transitions == 14);
}

TEST_CASE("admission: deleting a pending workload requeues its tree's parked workloads",
          "[admission][deletions]") {
  // WorkloadReconciler.Delete calls QueueAssociatedInadmissibleWorkloadsAfter
  // for every deleted Workload, not only for one that held quota. cq0 {cpu: 1}:
  // w0 admitted, w1 parked (NoFit), w2 pending and deleted by its user.
  auto p = cluster({{1, -1}}, {{0, 0, 1, true}, {0, 0, 1}, {0, 0, 1}});
  p.workloads[2].deletable = true;
  ka_check::Walk step(p);
  auto& s = step.s;
  step(ka::Action{ka::kSchedule, -1});
  REQUIRE(s.phase[1] == ka::kInadmissible);
  REQUIRE(s.phase[2] == ka::kPending);
  step(ka::Action{ka::kDelete, 2});
  CHECK(s.phase[1] == ka::kPending);  // before: parked until w0 finished
}
