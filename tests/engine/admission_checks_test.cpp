// Two-phase admission and the ProvisioningRequest condition mapping (§5).
#include <catch2/catch.hpp>

#include "engine/controllers.hpp"
#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;

namespace {
Cluster with_provisioning_check(std::int32_t backoff_limit) {
  Cluster c;
  c.flavor("default");
  auto& q = c.cq("a", "", {group({"nvidia.com/gpu"}, {{"default", {{"nvidia.com/gpu", 8}}}})});
  q.admission_checks.push_back({"prov", {}});
  kmc::model::AdmissionCheck ac;
  ac.meta.name = "prov";
  ac.controller_name = kmc::model::kProvisioningController;
  ac.parameters.name = "prov-config";
  c.m.admission_checks.push_back(ac);
  kmc::model::ProvisioningRequestConfig cfg;
  cfg.meta.name = "prov-config";
  cfg.provisioning_class_name = "best-effort-atomic-scaleup.autoscaling.x-k8s.io";
  cfg.retry_strategy.backoff_limit_count = backoff_limit;
  c.m.provisioning_request_configs.push_back(cfg);
  c.wl("job", "a", 0, {{"nvidia.com/gpu", 4}});
  return c;
}
}  // namespace

TEST_CASE("a check keeps the workload QuotaReserved until Ready", "[engine][checks]") {
  Engine e(with_provisioning_check(3).m);
  e.run();
  CHECK(state_of(e, "job") == "QuotaReserved");
  REQUIRE(e.find("ns/job")->obj.admission_checks.size() == 1);
  e.post(e.now(), ev::ProvisioningRequestCondition{"ns/job", "prov", "Accepted"});
  e.run();
  CHECK(state_of(e, "job") == "QuotaReserved");  // accept-then-hang: no Kueue-side timeout
  e.post(e.now() + 10'000, ev::ProvisioningRequestCondition{"ns/job", "prov", "Provisioned"});
  e.run();
  CHECK(state_of(e, "job") == "Admitted");
}

TEST_CASE("ProvisioningRequest Failed maps to Retry: quota held for the backoff, then re-reserved",
          "[engine][checks]") {
  // The workload controller sets requeueAt (NeedsRequeueAtUpdate) and returns
  // early while it is ahead, before reconcileCheckBasedEviction: the workload
  // keeps its reservation until backoff(1) = backoffBaseSeconds = 60s after the
  // check's lastTransitionTime, is then evicted and, the backoff over, requeued
  // and reserved again at once. The ProvisioningRequest controller keeps the
  // time the check went Pending (here: added at the reservation), so the 60s
  // count from there, not from the failure 5s later (GetMaxRetryTime).
  Engine e(with_provisioning_check(3).m);
  e.run();
  const TimeMs pending_since = e.now();
  const TimeMs failed_at = pending_since + 5000;
  e.post(failed_at, ev::ProvisioningRequestCondition{"ns/job", "prov", "Failed"});
  e.run(-1, pending_since + 59'000);
  const WorkloadInfo* w = e.find("ns/job");
  CHECK(state_of(e, "job") == "QuotaReserved");
  CHECK(w->condition("Evicted") == nullptr);
  CHECK(w->obj.admission_checks.at(0).state == kmc::model::CheckState::Retry);
  CHECK(w->requeue_at_ms == pending_since + 60'000);
  CHECK(e.tree.usage(e.cluster_queues[0].node, 0) == 4);
  e.run(-1, pending_since + 60'000);
  CHECK(state_of(e, "job") == "QuotaReserved");
  // Evicted, then reserved again: the condition says what it was.
  CHECK(w->condition("Evicted")->status == "False");
  CHECK(w->condition("Evicted")->message ==
        "Previously: Evicted due to AdmissionCheck in Retry state: \"prov\" (Retrying after "
        "ProvisioningRequest failed: job-prov-1)");
  CHECK(w->condition("Requeued")->reason == "BackoffFinished");
  CHECK(w->obj.admission_checks.at(0).state == kmc::model::CheckState::Pending);
  CHECK(w->obj.admission_checks.at(0).retry_count == 1);
  CHECK(w->condition_ms.at("QuotaReserved") == pending_since + 60'000);

  // The eviction reset the check to Pending at that time: the next failure, 2 minutes later, is
  // past backoff(2) = 120s from there, so nothing holds the quota: evicted at once.
  const TimeMs again = pending_since + 60'000 + 120'000;
  e.post(again, ev::ProvisioningRequestCondition{"ns/job", "prov", "Failed"});
  e.run(-1, again);
  CHECK(w->condition("Evicted")->message ==
        "Previously: Evicted due to AdmissionCheck in Retry state: \"prov\" (Retrying after "
        "ProvisioningRequest failed: job-prov-2)");
  CHECK(w->condition_ms.at("QuotaReserved") == again);  // reserved again at once
  CHECK(w->obj.admission_checks.at(0).retry_count == 2);
}

TEST_CASE("an eviction resets a Ready check's retryCount, and keeps a Pending one's",
          "[engine][checks][retries]") {
  // resetChecksOnEviction (pkg/workload/evict): a Retry check's count grows,
  // a Ready one's goes (RetryCount nil), a Pending one's stays.
  Engine e(with_provisioning_check(1).m);
  e.run();
  e.post(e.now(), ev::ProvisioningRequestCondition{"ns/job", "prov", "Failed"});
  e.run();  // held for the backoff, evicted, reserved again
  REQUIRE(e.find("ns/job")->obj.admission_checks.at(0).retry_count == 1);
  REQUIRE(state_of(e, "job") == "QuotaReserved");
  WorkloadInfo& w = *e.find("ns/job");
  evict_workload(e, w, "Preempted", "a Pending check keeps its count");
  CHECK(w.obj.admission_checks.at(0).retry_count == 1);
  e.run();
  REQUIRE(state_of(e, "job") == "QuotaReserved");
  e.post(e.now(), ev::ProvisioningRequestCondition{"ns/job", "prov", "Provisioned"});
  e.run(-1, e.now());
  REQUIRE(state_of(e, "job") == "Admitted");
  evict_workload(e, *e.find("ns/job"), "Preempted", "a Ready check's count goes");
  CHECK(e.find("ns/job")->obj.admission_checks.at(0).retry_count == 0);
  CHECK(e.find("ns/job")->obj.admission_checks.at(0).state == kmc::model::CheckState::Pending);
}

TEST_CASE("ProvisioningRequest condition mapping", "[engine][checks]") {
  struct Row {
    const char* condition;
    std::int32_t backoff_limit;
    const char* state;
    bool active;
  };
  const Row rows[] = {
      {"Provisioned", 3, "Admitted", true},
      {"Accepted", 3, "QuotaReserved", true},
      {"Failed", 0, "Pending", false},               // Rejected: deactivated, never requeued
      {"CapacityRevoked", 3, "Pending", false},      // Rejected
      {"Failed", 3, "QuotaReserved", true},          // Retry: held until requeueAt
      {"BookingExpired", 3, "QuotaReserved", true},  // not Admitted yet: like Failed, Retry
  };
  for (const Row& r : rows) {
    INFO(r.condition);
    Engine e(with_provisioning_check(r.backoff_limit).m);
    e.run();
    e.post(e.now(), ev::ProvisioningRequestCondition{"ns/job", "prov", r.condition});
    e.run(-1, e.now());
    CHECK(state_of(e, "job") == r.state);
    CHECK(e.find("ns/job")->obj.active == r.active);
  }
}

TEST_CASE("a ProvisioningRequest that is not needed makes the check Ready at once",
          "[engine][checks]") {
  Cluster c = with_provisioning_check(3);
  c.m.provisioning_request_configs[0].managed_resources = {"example.com/fpga"};
  Engine e(c.m);
  e.run();
  CHECK(state_of(e, "job") == "Admitted");
}

TEST_CASE("provisioning backoff doubles up to the max", "[engine][checks]") {
  kmc::model::RetryStrategy s;
  CHECK(provisioning_backoff_s(s, 1) == 60);
  CHECK(provisioning_backoff_s(s, 2) == 120);
  CHECK(provisioning_backoff_s(s, 3) == 240);
  CHECK(provisioning_backoff_s(s, 10) == 1800);
  // apimachinery's wait.Backoff: the first wait is the base, uncapped; a cap
  // of 0 is none (pkg/util/wait NewBackoff's cmp.Or).
  CHECK(backoff_wait_s(120, 60, 1) == 120);
  CHECK(backoff_wait_s(120, 60, 2) == 60);
  CHECK(backoff_wait_s(10, 0, 4) == 80);
  CHECK(backoff_wait_s(10, 3600, 4) == 80);
}

TEST_CASE("an evicted workload's ProvisioningRequest conditions change nothing",
          "[engine][checks]") {
  // provisioning/controller.go Reconcile returns for an evicted workload (and deletes its
  // requests, CleanupProvisioningRequestsOnEviction): a revocation that lands while the evicted
  // job still stops must not reject the check the eviction reset, or the workload, requeued,
  // would fail its checks at every cycle.
  kmc::engine::EngineOptions o;
  o.job_stop_delay_ms = 10'000;
  Engine e(with_provisioning_check(3).m, o);
  e.run();
  e.post(e.now(), ev::ProvisioningRequestCondition{"ns/job", "prov", "Provisioned"});
  e.run(-1, e.now());
  REQUIRE(state_of(e, "job") == "Admitted");
  WorkloadInfo& w = *e.find("ns/job");
  REQUIRE(w.job_active);
  evict_workload(e, w, "Preempted", "preempted");
  REQUIRE(w.has_quota_reservation());  // its job takes 10 s to stop
  e.post(e.now() + 1000, ev::ProvisioningRequestCondition{"ns/job", "prov", "CapacityRevoked"});
  e.run(-1, e.now() + 1000);
  CHECK(w.obj.admission_checks.at(0).state == kmc::model::CheckState::Pending);
  CHECK(w.obj.active);
  e.run(-1, e.now() + 10'000);
  CHECK(state_of(e, "job") == "QuotaReserved");  // requeued and reserved again, a new request
}
