// Edits of quotas during the run in protocol kueue-admission
// (environment.queueEdits with `quotas`): the cache recomputes the cohort
// tree, nothing is evicted, the tree's parked workloads are requeued, and the
// next cycle works with the new quotas. no-over-admission does not blame the
// scheduler for usage that quotas no longer in force admitted. Exact state
// counts by hand.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "model/scenario.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using namespace ka_check::steps;
using kmc::checker::Verdict;
using kmc::model::StopPolicy;

namespace {

// A ClusterQueue's edit setting cpu's nominal quota (cell 0) to `nominal`.
ka::QueueEdit cq_nominal(int cq, std::int64_t nominal) {
  return {false, cq, StopPolicy::None, {ka::QuotaSet{0, nominal, {}, {}}}, false};
}

// Cohort "co" {cpu: `cohort`} over cq0 {cpu: 0}; n workloads of 1 cpu in cq0.
ka::AdmissionParams cohort_owns(int n, std::int64_t cohort) {
  auto p = ka_check::queue_of_one(n, 0);
  p.cohorts.push_back({"co", -1, {cohort}, {ka::kNoLimit}, {ka::kNoLimit}});
  p.cqs[0].quota.parent = 0;
  return p;
}

}  // namespace

TEST_CASE("quota edits: exact state counts of one shrink below usage",
          "[admission][quota-edits][counts]") {
  // cq0 {cpu: 1}, w0 asking for 1; the operator sets cq0's quota to 0. By hand:
  // s0 (w0 Pending, the edit left). Schedule: s1 (Admitted); the edit: s2
  // (Pending, quota 0), whose cycle parks it: s3 (Inadmissible; nothing is
  // enabled). From s1: Finish: s4; the edit: s5 (Admitted above its quota,
  // before_edit). s4 and s5 both lead to s6 (Finished, no edit left).
  // 7 states, 7 edges; the edit evicts nothing, and no-over-admission holds.
  auto p = ka_check::queue_of_one(1, 1);
  p.queue_edits.push_back(cq_nominal(0, 0));
  p.finish();
  const auto o = check(p, {"no-over-admission", "usage-counted-once"});
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 7);
  CHECK(o.result.stats.transitions == 7);
}

TEST_CASE("quota edits: a raised quota requeues the parked and admits them",
          "[admission][quota-edits]") {
  auto p = ka_check::queue_of_one(2, 1);
  p.queue_edits.push_back(cq_nominal(0, 2));
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  CHECK(s.phase[0] == ka::kAdmitted);
  step(kSchedule);
  CHECK(s.phase[1] == ka::kInadmissible);
  step(kEdit);
  CHECK(s.phase[1] == ka::kPending);  // UpdateClusterQueue with specUpdated
  step(kSchedule);
  CHECK(s.phase[1] == ka::kAdmitted);
  CHECK(s.usage[0] == 2);
}

TEST_CASE("quota edits: a Cohort's shrink keeps its borrower and parks the next",
          "[admission][quota-edits]") {
  auto p = cohort_owns(2, 1);
  p.queue_edits.push_back({false, 0, StopPolicy::None, {ka::QuotaSet{0, 0, {}, {}}}, true});
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);  // w0 borrows the cohort's one cpu
  CHECK(s.phase[0] == ka::kAdmitted);
  step(kEdit);
  CHECK(s.phase[0] == ka::kAdmitted);  // nothing is evicted
  CHECK(s.before_edit[0] == 1);
  step(kSchedule);
  CHECK(s.phase[1] == ka::kInadmissible);
  step(finish(0));
  CHECK(s.before_edit[0] == 0);
  CHECK(s.phase[1] == ka::kPending);  // quota freed in the tree requeues it
  step(kSchedule);
  CHECK(s.phase[1] == ka::kInadmissible);  // the cohort has nothing left to lend
  // The same fleet is within its limits in every state.
  CHECK(check(p, {"no-over-admission"}).result.verdict == Verdict::Verified);
}

TEST_CASE("quota edits: a shrunk borrower is reclaimed under the new quotas",
          "[admission][quota-edits][preemption]") {
  // Cohort co over cq0 {cpu: 2} and cq1 {cpu: 0, reclaimWithinCohort Any}; w0
  // (cq0, 2 cpu) runs within its nominal quota. The operator moves one cpu to
  // cq1, cq0 first: w0 now borrows, and w1 (cq1, 1 cpu) reclaims it.
  auto p = ka_check::two_in_cohort(2, 0);
  p.cqs[1].reclaim = ka::Reclaim::Any;
  p.queue_edits = {cq_nominal(0, 1), cq_nominal(1, 1)};
  p.finish();
  {
    ka_check::Walk step(p);
    auto& s = step.s;
    step(kSchedule);
    CHECK(s.phase[0] == ka::kAdmitted);
    CHECK(s.phase[1] == ka::kPending);  // it borrowed, after w0: skipped
    step(kSchedule);
    CHECK(s.phase[1] == ka::kInadmissible);  // cq1 owns nothing, and w0 is within its quota
    step(kEdit);
    step(kEdit);
    CHECK(s.phase[1] == ka::kPending);
    step(kSchedule);  // w0 borrows now: reclaimed
    CHECK(s.phase[0] == ka::kPending);
    step(kSchedule);
    CHECK(s.phase[1] == ka::kAdmitted);
  }
  // Without the edits w1 is never within a guarantee; with them it is, and gets it.
  // w0's guarantee at the start is withdrawn where cq0's quota shrinks first.
  CHECK(check(p, {"guarantee-eventually-admitted", "no-over-admission"}).result.verdict ==
        Verdict::Verified);
  // If the operator then also holds cq0, w0 is out of the snapshot: w1's new
  // guarantee stands (that edit does not withdraw it) and is not kept while w0 runs.
  p.queue_edits.push_back({false, 0, StopPolicy::Hold, {}, false});
  p.finish();
  CHECK(check(p, {"guarantee-eventually-admitted"}).result.verdict == Verdict::Violated);
}

TEST_CASE("quota edits: over-admission after an edit is still caught",
          "[admission][quota-edits][broken]") {
  // Cohort co {cpu: 0} over cq0 and cq1 {cpu: 1 each}; w0 (cq0, 2 cpu) borrows
  // cq1's; w1 (cq1, 1 cpu). An edit raises cq0's quota to 1 (a no-op) at any
  // time. The deliberately broken variant lets cq1 admit w1 on its own quota
  // while w0 holds it: the cohort at 3 of 2, before or after the edit.
  auto p = ka_check::two_in_cohort(1, 1);
  p.queue_edits = {cq_nominal(0, 1)};
  p.broken_skip_cohort_limit = true;
  p.finish();
  const auto o = check(p, {"no-over-admission"});
  CHECK(o.result.verdict == Verdict::Violated);
  p.broken_skip_cohort_limit = false;
  CHECK(check(p, {"no-over-admission"}).result.verdict == Verdict::Verified);
}

TEST_CASE("quota edits: an edit that sets what is already set is no spec update",
          "[admission][quota-edits]") {
  // Kueue's ClusterQueue controller requeues on a spec that changed
  // (Update: specUpdated), the Cohort controller's predicate drops an update
  // whose spec is DeepEqual, and an apply of the same spec writes nothing, so
  // no event comes at all. Each edit is compared with the spec the edits
  // before it leave. cluster-queue-retire-fixed: Cohort gpu-pool {gpu: 16}
  // over legacy {gpu: 16} and platform {gpu: 0}.
  auto sc = kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/cluster-queue-retire-fixed");
  using kmc::model::Quantity;
  auto gpus = [](std::optional<std::int64_t> nominal,
                 std::optional<std::optional<Quantity>> borrowing = std::nullopt) {
    kmc::model::QuotaChange c{"h100", "nvidia.com/gpu", {}, borrowing, {}, {}};
    if (nominal) c.nominal_quota = Quantity::from_units(*nominal);
    return std::vector{c};
  };
  auto cq = [](const char* name, std::vector<kmc::model::QuotaChange> q,
               std::optional<StopPolicy> stop = std::nullopt) {
    kmc::model::QueueEdit e;
    e.cluster_queue = name, e.quotas = std::move(q), e.stop_policy = stop;
    return e;
  };
  kmc::model::QueueEdit pool;
  pool.cohort = "gpu-pool", pool.quotas = gpus(16);
  auto& edits = sc.fleet.environment.queue_edits;
  edits = {pool,                                                 // 0: the pool's 16 again
           cq("platform", gpus(0), StopPolicy::None),            // 1: as the manifest says
           cq("platform", gpus(4)),                              // 2: a change
           cq("platform", gpus(4)),                              // 3: as edit 2 left it
           cq("platform", gpus({}, std::optional<Quantity>{})),  // 4: no limit, as before
           cq("platform", gpus({}, Quantity::from_units(2))),    // 5: a limit
           cq("platform", {}, StopPolicy::Hold),                 // 6: a change
           cq("platform", gpus(4), StopPolicy::None)};           // 7: the policy changes
  pool.quotas = gpus(8);
  edits.push_back(pool);  // 8: a change
  const auto p = ka::compile_admission(sc);
  REQUIRE(p.queue_edits.size() == 9);
  std::vector<bool> updated;
  for (const auto& e : p.queue_edits) updated.push_back(e.spec_updated);
  CHECK(updated == std::vector<bool>{false, false, true, false, false, true, true, true, true});
}

TEST_CASE("quota edits: an edit that is no spec update requeues nothing",
          "[admission][quota-edits]") {
  // As "a raised quota requeues the parked" above, but the edit sets the quota
  // cq0 has: w1 stays parked where a real change would requeue it.
  auto p = ka_check::queue_of_one(2, 1);
  p.queue_edits.push_back(cq_nominal(0, 1));
  p.queue_edits.back().spec_updated = false;
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(kSchedule);
  step(kSchedule);
  REQUIRE(s.phase[1] == ka::kInadmissible);
  step(kEdit);
  CHECK(s.phase[1] == ka::kInadmissible);
  CHECK(s.before_edit[0] == 0);  // the limits in force did not change
}
