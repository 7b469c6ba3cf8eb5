#include "protocols/multikueue.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "mk_check.hpp"
#include "mk_fixtures.hpp"
#include "model/scenario.hpp"

using kmc::checker::CheckOptions;
using kmc::checker::Result;
using kmc::checker::Verdict;
using kmc::protocols::MultiKueue;
using mk_check::check;
using mk_check::trace_names;

TEST_CASE("gpu-hunter: the accept-then-hang is found with the talk's trace",
          "[protocols][multikueue]") {
  MultiKueue p(mk_fixtures::gpu_hunter());
  auto r = check(p);
  REQUIRE(r.verdict == Verdict::Violated);
  CHECK(r.violation->property == "no-stuck-job");
  CHECK(trace_names(p, r) == std::vector<std::string>{
                                 "ReserveQuota(team-a/train-0)",
                                 "NominateWorker(team-a/train-0, us-central1)",
                                 "CreateRemoteWorkload(team-a/train-0, us-central1)",
                                 "ReserveQuotaOnWorker(team-a/train-0, us-central1)",
                                 "ProvisioningAccepted(team-a/train-0, us-central1)",
                             });
  CHECK(r.violation->detail ==
        "job team-a/train-0 can never change again, yet asia-southeast1 could run it now");
}

TEST_CASE("gpu-hunter with the talk's layered fixes verifies", "[protocols][multikueue]") {
  MultiKueue p(mk_fixtures::gpu_hunter_fixed());
  auto r = check(p);
  CHECK(r.verdict == Verdict::Verified);
  for (auto& pr : r.properties) CHECK(pr.verdict == Verdict::Verified);
}

TEST_CASE("check-capacity strands a pinned job only without noRetry \"true\"",
          "[protocols][multikueue][check-capacity]") {
  // The Cluster Autoscaler fails a check-capacity request it finds no room for
  // only with parameters.noRetry "true"; otherwise the request stays
  // Provisioned=False and is tried again later (checkcapacity/provisioningclass.go).
  // Pinned on us-central1's stale view: with noRetry the check fails, is
  // retried up to its limit, rejected and renominated; without, it waits for
  // GPUs that never come while asia-southeast1 idles.
  auto params = mk_fixtures::gpu_hunter();
  for (auto& q : params.cqs)
    if (q.cluster >= 0) q.provisioning_class = kmc::protocols::ProvisioningClass::CheckCapacity;
  CheckOptions o;
  o.properties = {"no-stuck-job"};
  CHECK(check(MultiKueue(params), o).verdict == Verdict::Verified);
  for (auto& q : params.cqs)
    if (q.cluster >= 0) q.retries_later = true;
  MultiKueue retried(params);
  const auto r = check(retried, o);
  REQUIRE(r.verdict == Verdict::Violated);
  const auto names = trace_names(retried, r);
  CHECK(std::find(names.begin(), names.end(), "ProvisioningFailed(team-a/train-0, us-central1)") ==
        names.end());
}

TEST_CASE(
    "K25: selecting on QuotaReserved (before #8592) strands the job; waiting for Admitted does not",
    "[protocols][multikueue]") {
  auto params = mk_fixtures::gpu_hunter();
  params.dispatcher = kmc::protocols::Dispatcher::AllAtOnce;
  params.wait_for_admitted = true;
  CHECK(check(MultiKueue(params)).verdict == Verdict::Verified);
  params.wait_for_admitted = false;
  MultiKueue old(params);
  auto r = check(old);
  REQUIRE(r.verdict == Verdict::Violated);
  CHECK(r.violation->property == "no-stuck-job");
  auto names = trace_names(old, r);
  CHECK(std::find(names.begin(), names.end(), "SelectWorker(team-a/train-0, us-central1)") !=
        names.end());
}

TEST_CASE("deliberately broken: a worker that ignores its quota is caught",
          "[protocols][multikueue][broken]") {
  auto params = mk_fixtures::fleet(1, 2, 8, 16);  // two 8-GPU jobs, one 8-GPU worker
  params.broken_worker_ignores_quota = true;
  auto r = check(MultiKueue(params));
  REQUIRE(r.verdict == Verdict::Violated);
  CHECK(r.violation->property == "cluster-queue-within-quota");
}

TEST_CASE("deliberately broken: keeping the losing copies double-counts worker quota",
          "[protocols][multikueue][broken]") {
  auto params = mk_fixtures::fleet(2, 1, 8, 16);
  params.broken_keep_losers = true;
  auto r = check(MultiKueue(params));
  REQUIRE(r.verdict == Verdict::Violated);
  CHECK(r.violation->property == "quota-counted-once");
}

// Issue 12a. The job runs on europe-west4, its spot nodes are reclaimed, waitForPodsReady evicts
// the copy and europe-west4 reserves quota for it again; its new ProvisioningRequest waits for
// H100s that are gone. Kueue's reconcileGroup sets the check to Retry as soon as the selected copy
// is not Admitted, so the manager re-dispatches. The model used to retry only while the copy was
// gone, Pending or Rejected, and reported the job stuck where Kueue is not.
TEST_CASE("a selected copy that holds quota again after a spot reclaim is re-dispatched",
          "[protocols][multikueue][spot-reclaim]") {
  auto sc = kmc::model::load_scenario(
      KMC_SOURCE_DIR "/counterexamples/corpus/spot-reclaim-selected-copy-readmitted/scenario");
  sc.fleet.dispatcher.pin = false;  // re-dispatched, the job is eligible on asia-southeast1 too
  const MultiKueue p(kmc::protocols::compile_multikueue(sc));
  CheckOptions o;
  o.properties = {"no-stuck-job"};
  const auto r = check(p, o);
  INFO((r.violation ? fmt::format("{}", fmt::join(trace_names(p, r), ", ")) : ""));
  CHECK(r.verdict == Verdict::Verified);

  // Where the model used to stop, the reclaimed copy QuotaReserved again: the manager retries.
  sc.fleet.dispatcher.pin = true;
  const MultiKueue pinned(kmc::protocols::compile_multikueue(sc));
  mk_check::Walk walk{pinned, pinned.init_states().front()};
  const auto& ps = pinned.params();
  const std::string job = ps.jobs[0], eu = "europe-west4";
  for (const std::string& step :
       {"ReserveQuota(" + job + ")", "NominateWorker(" + job + ", " + eu + ")",
        "CreateRemoteWorkload(" + job + ", " + eu + ")",
        "ReserveQuotaOnWorker(" + job + ", " + eu + ")",
        "ProvisioningAccepted(" + job + ", " + eu + ")",
        "ProvisioningProvisioned(" + job + ", " + eu + ")", "SelectWorker(" + job + ", " + eu + ")",
        "JobStarted(" + job + ", " + eu + ")", "SpotReclaim(" + job + ", " + eu + ")",
        "ReserveQuotaOnWorker(" + job + ", " + eu + ")"})
    REQUIRE(walk.take(step));
  CHECK(walk.take("RetryDispatch(" + job + ", " + eu + ")"));
}

TEST_CASE("golden state counts for small configurations", "[protocols][multikueue][golden]") {
  // Any change of semantics shows up here as a reviewed number.
  // gpu-hunter: 25, reviewed state by state (the pin on the stale view, the
  // frozen Accepted request, the refresh-only loop after it, the asia path).
  CHECK(check(MultiKueue(mk_fixtures::gpu_hunter())).stats.states == 25);
  // 476 until JobFinished deleted the finished copy (and its failed-attempt
  // count), as Kueue's reconcileGroup does: `kmc validate` caught the drift.
  // Finished states that differed only by the finished copy's attempts merged.
  CHECK(check(MultiKueue(mk_fixtures::gpu_hunter_fixed())).stats.states ==
        458);  // the timeout also covers unanswered requests
  CHECK(check(MultiKueue(mk_fixtures::fleet(2, 1, 8, 16))).stats.states == 33);  // AllAtOnce
  // 560 while workers queued copies in the manager's order; 593 in the order they were created
  // there (tests/protocols/multikueue_queue_order_test.cpp explains the 33).
  CHECK(check(MultiKueue(mk_fixtures::fleet(2, 2, 8, 16))).stats.states == 593);
  auto incremental = mk_fixtures::fleet(3, 1, 8, 16);
  incremental.dispatcher = kmc::protocols::Dispatcher::Incremental;
  incremental.step_size = 1;
  CHECK(check(MultiKueue(incremental)).stats.states == 166);
}

namespace {

CheckOptions liveness(std::vector<kmc::checker::Fairness> fairness) {
  CheckOptions o;
  o.properties = {"eventually-runs"};
  o.fairness = std::move(fairness);
  return o;
}

std::vector<kmc::checker::Fairness> defaults(const MultiKueue& p) {
  std::vector<kmc::checker::Fairness> f;
  for (int x : p.default_fairness()) f.push_back(static_cast<kmc::checker::Fairness>(x));
  return f;
}

}  // namespace

TEST_CASE("liveness: the fixes need an autoscaler that eventually answers",
          "[protocols][multikueue][liveness]") {
  MultiKueue p(mk_fixtures::gpu_hunter_fixed());
  // An adversarial autoscaler may never answer asia-southeast1: the job times
  // out and retries forever. The talk's "can still thrash", made precise.
  auto adversarial = check(p, liveness(defaults(p)));
  REQUIRE(adversarial.verdict == Verdict::Violated);
  CHECK(adversarial.violation->property == "eventually-runs");
  REQUIRE(adversarial.violation->loop);
  auto states = kmc::checker::replay(p, adversarial.violation->path);
  CHECK(p.fingerprint(states.back()) == p.fingerprint(states[*adversarial.violation->loop]));
  auto fair = defaults(p);
  fair[4] = kmc::checker::Fairness::Strong;  // the autoscaler answers whatever it keeps being asked
  CHECK(check(p, liveness(fair)).verdict == Verdict::Verified);
}

TEST_CASE("liveness: the unfixed fleet never runs the job, whatever is fair",
          "[protocols][multikueue][liveness]") {
  MultiKueue p(mk_fixtures::gpu_hunter());
  auto fair = defaults(p);
  fair[4] = kmc::checker::Fairness::Strong;
  auto r = check(p, liveness(fair));
  REQUIRE(r.verdict == Verdict::Violated);
  // Stuck detection stays on with liveness, and the stuck job is found first.
  CHECK(r.violation->property == "no-stuck-job");
}

// getNextNominatedWorkers, as compiled from the manager's Configuration: the
// Incremental dispatcher goes in MultiKueueConfig order with
// MultiKueueIncrementalDispatcherRespectConfigOrder (on by default), in name
// order without it; its stepSize counts only with MultiKueueIncrementalDispatcherConfig.
TEST_CASE("multikueue: Incremental's order and step follow their feature gates",
          "[protocols][multikueue]") {
  auto sc = kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/three-workers");
  auto& config = sc.manager.configuration;
  config.multi_kueue.dispatcher_name = kmc::model::kDispatcherIncremental;
  config.multi_kueue.incremental_step_size = 1;
  const auto names = [](const kmc::protocols::MkParams& p) {
    std::vector<std::string> out;
    for (int w : p.dispatch_order) out.push_back(p.workers[w]);
    return out;
  };
  using Names = std::vector<std::string>;
  auto p = kmc::protocols::compile_multikueue(sc);
  CHECK(names(p) == Names{"us-central1", "asia-southeast1", "europe-west4"});
  CHECK(p.step_size == 1);
  config.feature_gates.gates["MultiKueueIncrementalDispatcherRespectConfigOrder"] = false;
  config.feature_gates.gates["MultiKueueIncrementalDispatcherConfig"] = false;
  p = kmc::protocols::compile_multikueue(sc);
  CHECK(names(p) == Names{"asia-southeast1", "europe-west4", "us-central1"});
  CHECK(p.step_size == 3);
}

// multikueue/workload.go reconcileGroup: a copy its worker deactivated (the ProvisioningRequest
// check Rejected past backoffLimitCount) no longer matches the manager's spec (spec.active), so
// step 5 deletes it, and step 8 creates it again on the still nominated worker: a new Workload
// with a new ProvisioningRequest. kmc kept the copy dead, so a job whose worker got its
// capacity back read as stuck.
namespace {

kmc::protocols::MkParams rejecting_fleet(int workers) {
  auto p = mk_fixtures::fleet(workers, 1, 8, 16);
  p.dispatcher = kmc::protocols::Dispatcher::AllAtOnce;
  for (auto& q : p.cqs) q.backoff_limit = 0;
  for (auto& a : p.answer) a = kmc::model::AutoscalerAnswer::Fails;
  p.capacity_losses = 1;
  p.capacity_returns = 1;
  return p;
}

}  // namespace

TEST_CASE("a copy its worker rejected is deleted and created again while nominated",
          "[protocols][multikueue][rejected-copy]") {
  const MultiKueue p(rejecting_fleet(2));
  mk_check::Walk w{p, p.init_states().front()};
  const auto& ps = p.params();
  const std::string job = ps.jobs[0], us = ps.workers[0], asia = ps.workers[1];
  for (const std::string& step :
       {"CapacityLost(" + us + ", h100)", "ReserveQuota(" + job + ")", "Nominate(" + job + ")",
        "CreateRemoteWorkload(" + job + ", " + us + ")",
        "CreateRemoteWorkload(" + job + ", " + asia + ")",
        "ReserveQuotaOnWorker(" + job + ", " + us + ")",
        "ProvisioningAccepted(" + job + ", " + us + ")",
        "ProvisioningFailed(" + job + ", " + us + ")"})
    REQUIRE(w.take(step));
  REQUIRE(w.s.remote[ps.jw(0, 0)] == kmc::protocols::kRemoteRejected);
  REQUIRE(w.take("RecreateRemoteWorkload(" + job + ", " + us + ")"));
  CHECK(w.s.remote[ps.jw(0, 0)] == kmc::protocols::kRemotePending);
  CHECK(w.s.attempts[ps.jw(0, 0)] == 0);  // a new ProvisioningRequest
  CHECK(w.s.nominated[ps.jw(0, 0)] == 1);
  CHECK(w.s.nominated[ps.jw(0, 1)] == 1);  // asia's copy is untouched

  // With a copy Admitted in view, step 6b converges on it instead: no step 8.
  for (const std::string& step : {"ReserveQuotaOnWorker(" + job + ", " + us + ")",
                                  "ProvisioningAccepted(" + job + ", " + us + ")",
                                  "ProvisioningFailed(" + job + ", " + us + ")",
                                  "ReserveQuotaOnWorker(" + job + ", " + asia + ")",
                                  "ProvisioningAccepted(" + job + ", " + asia + ")",
                                  "ProvisioningProvisioned(" + job + ", " + asia + ")"})
    REQUIRE(w.take(step));
  CHECK_FALSE(w.enabled("RecreateRemoteWorkload(" + job + ", " + us + ")"));
  CHECK(w.take("SelectWorker(" + job + ", " + asia + ")"));
}

TEST_CASE("a job whose only worker rejected it runs once the capacity returns",
          "[protocols][multikueue][rejected-copy]") {
  CheckOptions o;
  o.properties = {"no-stuck-job"};
  for (int workers : {1, 2}) {
    const MultiKueue p(rejecting_fleet(workers));
    const auto r = check(p, o);
    INFO(workers << " workers: "
                 << (r.violation ? fmt::format("{}", fmt::join(trace_names(p, r), ", ")) : ""));
    CHECK(r.verdict == Verdict::Verified);
  }
}
