// Two-phase admission in protocol kueue-admission: a ClusterQueue with a
// ProvisioningRequest admission check reserves quota (QuotaReserved), and
// the Cluster Autoscaler's answer admits the workload (Provisioned), or
// evicts it for a retry after a backoff (Failed, within the
// ProvisioningRequestConfig's backoffLimitCount), or deactivates it (past it).
// Exact state counts by hand; the requeue order of a retried workload
// (its eviction's time, not its creation); the shipped example and its fix.
#include <catch2/catch.hpp>

#include "counterexamples/pipeline_core.hpp"
#include "invariants/admission_registry.hpp"
#include "ka_check.hpp"
#include "model/scenario.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using kmc::checker::Verdict;
using kmc::model::AutoscalerAnswer;

namespace {

// cq0 {cpu: 1} with one ProvisioningRequest check "prov"; n workloads of 1
// cpu each, created in index order, all waiting for the check.
ka::AdmissionParams with_check(int n, AutoscalerAnswer answer, int backoff_limit) {
  auto p = ka_check::queue_of_one(n);
  p.cqs[0].checks_on = {1};
  p.checks.push_back({"prov", false, backoff_limit, {}});
  p.answer = answer;
  for (auto& w : p.workloads) w.checks = {1}, w.initial_retries = {0};
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("admission checks: exact state counts of one workload and its retries",
          "[admission][checks][counts]") {
  // By hand, (phase, retries): s0 (Pending, 0); s1 (QuotaReserved, 0);
  // s2 (Admitted, 0); s3 (Finished, 0); s4 (Backoff, 1) after a Failed
  // answer within backoffLimitCount 1; s5 (Pending, 1) when the backoff
  // passes; s6 (QuotaReserved, 1); s7 (Admitted, 1); s8 (Finished, 1);
  // s9 (Deactivated, 1), Failed again past the limit. Edges: s0-s1 s1-s2
  // s1-s4 s2-s3 s4-s5 s5-s6 s6-s7 s6-s9 s7-s8.
  auto o = check(with_check(1, AutoscalerAnswer::Any, 1));
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 10);
  CHECK(o.result.stats.transitions == 9);
  // backoffLimitCount 0: the first Failed answer Rejects: s0 s1 s2 s3 and
  // (Deactivated, 0); four edges.
  o = check(with_check(1, AutoscalerAnswer::Any, 0));
  CHECK(o.result.stats.states == 5);
  CHECK(o.result.stats.transitions == 4);
  // An autoscaler that only provisions: s0 s1 s2 s3.
  o = check(with_check(1, AutoscalerAnswer::Provisions, 3));
  CHECK(o.result.stats.states == 4);
  CHECK(o.result.stats.transitions == 3);
}

TEST_CASE("admission checks: an accepted request never answered holds the quota forever",
          "[admission][checks][known-bugs]") {
  // autoscaler#9490 (accept-then-hang): w0 reserves and waits; w1 waits on it.
  auto p = with_check(2, AutoscalerAnswer::AcceptsThenHangs, 3);
  auto o = check(p, {"guarantee-not-stuck"});
  CHECK(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->property == "guarantee-not-stuck");
  CHECK(o.result.stats.states == 3);  // s0; w0 QuotaReserved; w1 parked Inadmissible
  // check-capacity answers at once, whatever the autoscaler's scale-up does...
  p.checks[0].check_capacity = true;
  CHECK(check(p, {"guarantee-not-stuck"}).result.verdict == Verdict::Verified);
  // ... with noRetry "true". Without, a request that finds no room is tried
  // again later, never Failed: the same hang.
  p.checks[0].retries_later = true;
  o = check(p, {"guarantee-not-stuck"});
  CHECK(o.result.verdict == Verdict::Violated);
  CHECK(o.result.stats.states == 3);
}

TEST_CASE("admission checks: a retried workload is requeued by its eviction's time",
          "[admission][checks][order]") {
  // Kueue's GetQueueOrderTimestamp: a workload evicted by an admission check
  // queues by the eviction's time. w0 (created first) fails its check: Retry
  // holds its reservation, and the quota, until requeueAt (the workload
  // controller returns before reconcileCheckBasedEviction while it is ahead);
  // then it is evicted and, the backoff over, requeued at once, behind w1,
  // created later but waiting since.
  const auto p = with_check(2, AutoscalerAnswer::Any, 3);
  ka_check::Walk step(p);
  auto& s = step.s;
  const auto& rules = step.rules;
  const ka::Action schedule{ka::kSchedule, -1};
  step(schedule);
  CHECK(s.phase[0] == ka::kReserved);
  CHECK_FALSE(rules.enabled(s, ka::Action{ka::kBackoffExpired, 0}));
  step(ka::Action{ka::kProvisioningFailed, 0, 0, 0});
  CHECK(s.phase[0] == ka::kReserved);
  CHECK(s.retries[0] == 1);
  CHECK(s.usage[0] == 1);  // held for the backoff
  CHECK_FALSE(rules.enabled(s, ka::Action{ka::kProvisioned, 0, 0, 0}));
  step(schedule);
  CHECK(s.phase[1] == ka::kInadmissible);  // no room while w0 holds it
  step(ka::Action{ka::kBackoffExpired, 0});
  CHECK(s.phase[0] == ka::kPending);
  CHECK(s.usage[0] == 0);  // the job never started: its quota goes at the eviction
  CHECK(s.phase[1] == ka::kPending);
  step(schedule);
  CHECK(s.phase[1] == ka::kReserved);  // w1 heads the queue now, not w0
  CHECK(s.phase[0] != ka::kReserved);
  // w1 is admitted; w0 keeps its place behind no one once w1 is gone.
  step(ka::Action{ka::kProvisioned, 1, 0, 0});
  CHECK(s.phase[1] == ka::kAdmitted);
  step(ka::Action{ka::kFinish, 1});
  step(schedule);
  CHECK(s.phase[0] == ka::kReserved);
  // Past backoffLimitCount (3 retries), a Failed answer deactivates it.
  for (int attempt = 1; attempt < 3; ++attempt) {
    step(ka::Action{ka::kProvisioningFailed, 0, 0, 0});
    step(ka::Action{ka::kBackoffExpired, 0});
    step(schedule);
  }
  CHECK(s.retries[0] == 3);
  step(ka::Action{ka::kProvisioningFailed, 0, 0, 0});
  CHECK(s.phase[0] == ka::kDeactivated);
  CHECK(s.usage[0] == 0);
}

TEST_CASE("admission checks: an eviction after the check was Ready resets its retryCount",
          "[admission][checks][retries]") {
  // resetChecksOnEviction (pkg/workload/evict): every check goes Pending; a
  // Retry one's retryCount grows, a Ready one's goes. backoffLimitCount 1:
  // w0 fails once (retryCount 1), is then Provisioned and Admitted, and is
  // preempted by w1 (priority 1, created later). Its check was Ready, so its
  // count is 0 again, and a second failure is a Retry, not a deactivation.
  auto p = with_check(2, AutoscalerAnswer::Any, 1);
  p.cqs[0].within = ka::WithinCq::LowerPriority;
  p.workloads[1].priority = 1;
  p.workloads[1].arrives = true;  // so w0 goes first
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  const ka::Action schedule{ka::kSchedule, -1};
  step(schedule);
  step(ka::Action{ka::kProvisioningFailed, 0, 0, 0});
  CHECK(s.retries[0] == 1);
  step(ka::Action{ka::kBackoffExpired, 0});
  step(schedule);
  step(ka::Action{ka::kProvisioned, 0, 0, 0});
  REQUIRE(s.phase[0] == ka::kAdmitted);
  step(ka::Action{ka::kArrive, 1});
  step(schedule);  // w1 preempts w0
  REQUIRE(s.phase[0] == ka::kPending);
  CHECK(s.retries[0] == 0);
  step(schedule);  // w1 reserves; w0 waits
  step(ka::Action{ka::kProvisioned, 1, 0, 0});
  step(ka::Action{ka::kFinish, 1});
  step(schedule);
  REQUIRE(s.phase[0] == ka::kReserved);
  step(ka::Action{ka::kProvisioningFailed, 0, 0, 0});
  CHECK(s.phase[0] == ka::kReserved);  // Retry, held; before the fix: Deactivated
  CHECK(s.retries[0] == 1);
}

TEST_CASE("admission checks: the shipped accept-then-hang example and its fix",
          "[admission][checks][examples]") {
  for (const char* name :
       {"provisioning-accept-then-hang", "provisioning-accept-then-hang-fixed"}) {
    const auto sc = kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/" + std::string(name));
    const ka::Instance p(ka::compile_admission(sc));
    kmc::cx::CheckRequest req;
    kmc::cx::Hooks hooks;
    const auto o =
        kmc::cx::check_instance(p, kmc::invariants::admission_properties(p), sc, req, hooks);
    if (std::string(name).ends_with("-fixed")) {
      CHECK(o.result.verdict == Verdict::Verified);
      CHECK(o.result.stats.states ==
            (std::string(name).starts_with("provisioning-accept") ? 83 : 32));
    } else {
      CHECK(o.result.verdict == Verdict::Violated);
      REQUIRE(o.result.violation);
      CHECK(o.result.violation->property == "guarantee-not-stuck");
    }
  }
}

TEST_CASE("admission checks: blockAdmission stops every Fit admission behind a pending check",
          "[admission][checks][block-admission]") {
  // examples/provisioning-block-admission: train (gpu, with check dws-prov) and
  // notebook (interactive, no check); waitForPodsReady.blockAdmission.
  const auto sc =
      kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/provisioning-block-admission");
  auto p = ka::compile_admission(sc);
  REQUIRE(p.block_admission);
  // An autoscaler that provisions, by hand (train, notebook): s0 (P, P);
  // s1 (QuotaReserved, P), the goroutine asleep: notebook's Fit waits; s2
  // (A, P) once train is Provisioned and PodsReady; s3 (F, P); s4 (A, A);
  // s5 (F, A); s6 (A, F); s7 (F, F). Edges: s0-s1 s1-s2 s2-s3 s2-s4 s3-s5
  // s4-s5 s4-s6 s5-s7 s6-s7.
  p.answer = AutoscalerAnswer::Provisions;
  auto o = check(p);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 8);
  CHECK(o.result.stats.transitions == 9);
  const ka::Rules<std::int64_t> rules(p, {});
  auto s = ka::Spec::initial(p);
  const ka::Action schedule{ka::kSchedule, -1};
  rules.apply_in_place(s, schedule);
  const int train = p.workloads[0].name == "research/train" ? 0 : 1, notebook = 1 - train;
  CHECK(s.phase[train] == ka::kReserved);
  CHECK(s.phase[notebook] == ka::kPending);
  CHECK(rules.scheduler().blocked_entry(s).w == notebook);
  CHECK_FALSE(rules.enabled(s, schedule));  // asleep in cache.WaitForPodsReady
  // A Failed answer holds train's reservation until its backoff is over (Retry):
  // still asleep. Then train is evicted: nothing in the cache is unready, the
  // goroutine wakes.
  p.answer = AutoscalerAnswer::Any;
  const ka::Rules<std::int64_t> any(p, {});
  any.apply_in_place(s,
                     ka::Action{ka::kProvisioningFailed, static_cast<std::int16_t>(train), 0, 0});
  CHECK(any.scheduler().blocked_entry(s).w == notebook);
  any.apply_in_place(s, ka::Action{ka::kBackoffExpired, static_cast<std::int16_t>(train)});
  CHECK(any.enabled(s, schedule));
  any.apply_in_place(s, schedule);  // admits the notebook it held
  CHECK(s.phase[notebook] == ka::kAdmitted);
  CHECK(any.scheduler().blocked_entry(s).w < 0);
  // The accept-then-hang autoscaler: the notebook, with quota to spare in
  // another ClusterQueue, waits forever (2 states).
  p.answer = AutoscalerAnswer::AcceptsThenHangs;
  o = check(p, {"guarantee-not-stuck"});
  CHECK(o.result.verdict == Verdict::Violated);
  CHECK(o.result.stats.states == 2);
  // Without blockAdmission the notebook is admitted in the first cycle, and
  // only train (the hang itself) is stuck.
  p.block_admission = false;
  o = check(p, {"guarantee-not-stuck"});
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->detail.find("research/train") != std::string::npos);
}

TEST_CASE("capacity revocations: an Admitted workload's Provisioned capacity revoked",
          "[admission][checks][revocations][counts]") {
  // The three states of an autoscaler that only provisions, s0 s1 s2 s3 above,
  // and with one revocation allowed: from s2 (Admitted), CapacityRevoked
  // deactivates w0 (its quota goes, it is never requeued): one more state and
  // edge. The budget sets the states apart only where it is spent: s3 and the
  // new one differ in phase, so 5 states, 4 edges.
  auto p = with_check(1, AutoscalerAnswer::Provisions, 3);
  p.capacity_revocations = 1;
  auto o = check(p);
  CHECK(o.result.verdict == Verdict::Verified);
  CHECK(o.result.stats.states == 5);
  CHECK(o.result.stats.transitions == 4);
  // The next workload then gets the quota: w1 waits behind w0, and once w0 is
  // deactivated w1 reserves, is provisioned and admitted.
  p = with_check(2, AutoscalerAnswer::Provisions, 3);
  p.capacity_revocations = 1;
  ka_check::Walk step(p);
  auto& s = step.s;
  const ka::Action schedule{ka::kSchedule, -1};
  const ka::Action revoke{ka::kCapacityRevoked, 0, 0, 0};
  CHECK_FALSE(step.rules.enabled(s, revoke));  // nothing provisioned yet
  step(schedule);
  CHECK_FALSE(step.rules.enabled(s, revoke));  // QuotaReserved: a request not Provisioned
  step(ka::Action{ka::kProvisioned, 0, 0, 0});
  step(schedule);
  CHECK(s.phase[1] == ka::kInadmissible);
  step(revoke);
  CHECK(s.phase[0] == ka::kDeactivated);
  CHECK(s.usage[0] == 0);
  CHECK(s.phase[1] == ka::kPending);  // the freed quota requeues it
  step(schedule);
  CHECK(s.phase[1] == ka::kReserved);
  step(ka::Action{ka::kProvisioned, 1, 0, 0});
  CHECK_FALSE(step.rules.enabled(s, ka::Action{ka::kCapacityRevoked, 1, 0, 0}));  // budget spent
}

TEST_CASE("capacity revocations: a workload still QuotaReserved on another check",
          "[admission][checks][revocations]") {
  // syncCheckStates rejects a revoked check of any active, unfinished workload
  // that holds quota: w0 waits for two checks; the first is Provisioned (Ready),
  // the second is not answered yet, and the first's capacity is revoked.
  auto p = with_check(1, AutoscalerAnswer::Any, 3);
  p.cqs[0].checks_on = {3};
  p.checks.push_back({"prov-b", false, 3, {}});
  p.workloads[0].checks = {3};
  p.workloads[0].initial_retries = {0, 0};
  p.capacity_revocations = 1;
  p.finish();
  ka_check::Walk step(p);
  auto& s = step.s;
  step(ka::Action{ka::kSchedule, -1});
  REQUIRE(s.phase[0] == ka::kReserved);
  const ka::Action revoked{ka::kCapacityRevoked, 0, 0, 0};
  CHECK_FALSE(step.rules.enabled(s, revoked));  // nothing Provisioned yet
  step(ka::Action{ka::kProvisioned, 0, 0, 0});
  REQUIRE(s.phase[0] == ka::kReserved);  // prov-b still pending
  step(revoked);
  CHECK(s.phase[0] == ka::kDeactivated);
  CHECK(s.usage[0] == 0);
}
