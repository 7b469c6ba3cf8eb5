// waitForPodsReady (kueue-semantics.md §7.1): blockAdmission, the PodsReady and
// recovery timeouts, the requeuing limit; and §8 item 6 (a check Pending forever
// under blockAdmission stalls every ClusterQueue).
#include <catch2/catch.hpp>

#include "engine/controllers.hpp"
#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;
using kmc::model::StopPolicy;

namespace {
constexpr TimeMs kMinute = 60'000;

Cluster two_queues(bool block_admission) {
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.cq("b", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.m.configuration.wait_for_pods_ready.block_admission = block_admission;
  return c;
}

EngineOptions manual_pods_ready() {
  EngineOptions o;
  o.pods_ready_on_start = false;
  return o;
}

std::string quota_reason(const Engine& e, const std::string& name) {
  const auto* c = e.find("ns/" + name)->condition("QuotaReserved");
  return c == nullptr ? "" : c->reason;
}
}  // namespace

TEST_CASE("blockAdmission holds a second Fit entry until the first is PodsReady",
          "[engine][podsready]") {
  struct Row {
    const char* name;
    bool block;
    const char* second_before;  // state of `second` before `first` is PodsReady
  };
  const Row rows[] = {{"blockAdmission=false admits both", false, "Admitted"},
                      {"blockAdmission=true waits", true, "Pending"}};
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.name) {
      Cluster c = two_queues(row.block);
      c.wl("first", "a", 0, {{"cpu", 2}});
      c.wl("second", "a", 0, {{"cpu", 2}});
      Engine e(c.m, manual_pods_ready());
      e.run(-1, 0);
      CHECK(state_of(e, "first") == "Admitted");
      CHECK(state_of(e, "second") == row.second_before);
      if (row.block) {
        CHECK(quota_reason(e, "second") == "Waiting");
        CHECK(e.pods_ready_blocked());
      }
      e.post(5000, ev::PodsReady{"ns/first"});
      e.run(-1, 5000);
      CHECK(state_of(e, "second") == "Admitted");
      CHECK_FALSE(e.pods_ready_blocked());
    }
  }
}

TEST_CASE("blockAdmission: a not-ready workload in one CQ stops admissions in another",
          "[engine][podsready]") {
  Cluster c = two_queues(true);
  c.wl("first", "a", 0, {{"cpu", 2}});
  Engine e(c.m, manual_pods_ready());
  e.run(-1, 0);
  e.post(1000, ev::WorkloadCreated{make_workload("late", "b", 0, {{"cpu", 1}})});
  e.run(-1, 20 * kMinute);
  CHECK(state_of(e, "late") == "Pending");
  // The not-ready workload leaving the cache (PodsReady timeout eviction) also wakes the scheduler.
  e.run(-1, 30 * kMinute + 1);
  CHECK(e.find("ns/first")->condition("Evicted")->reason == "PodsReadyTimeout");
  CHECK(state_of(e, "late") == "Admitted");
}

TEST_CASE("blockAdmission + a check Pending forever stalls every ClusterQueue (§8 item 6)",
          "[engine][podsready]") {
  Cluster c = two_queues(true);
  c.m.cluster_queues[0].admission_checks.push_back({"hang", {}});
  kmc::model::AdmissionCheck ac;
  ac.meta.name = "hang";
  ac.controller_name = "example.com/never-answers";
  c.m.admission_checks.push_back(ac);
  c.wl("held", "a", 0, {{"cpu", 2}});
  c.wl("other", "b", 0, {{"cpu", 1}});
  Engine e(c.m);  // pods become ready on start, yet `held` never starts
  e.run();
  CHECK(state_of(e, "held") == "QuotaReserved");
  CHECK(state_of(e, "other") == "Pending");
  CHECK(quota_reason(e, "other") == "Waiting");
  CHECK(e.events.empty());  // nothing left that could ever wake the scheduler
  e.post(e.now() + 1000,
         ev::AdmissionCheckUpdate{"ns/held", "hang", kmc::model::CheckState::Ready, {}, ""});
  e.run();
  CHECK(state_of(e, "held") == "Admitted");
  CHECK(state_of(e, "other") == "Admitted");
}

TEST_CASE("blockAdmission does not stop preemptions", "[engine][podsready]") {
  Cluster c = two_queues(true);
  c.m.cluster_queues[0].preemption.within_cluster_queue =
      kmc::model::WithinClusterQueuePolicy::LowerPriority;
  c.wl("low", "a", 0, {{"cpu", 10}});
  Engine e(c.m, manual_pods_ready());
  e.run(-1, 0);
  e.post(1000, ev::WorkloadCreated{make_workload("high", "a", 10, {{"cpu", 10}})});
  e.run(-1, 1000);
  CHECK(e.find("ns/low")->is_evicted());
  CHECK(state_of(e, "high") == "Admitted");  // the victim left the cache, so no block
}

TEST_CASE("recoveryTimeout: PodsReady True then False evicts after the recovery deadline",
          "[engine][podsready]") {
  struct Row {
    const char* name;
    std::vector<std::pair<TimeMs, bool>> pods;  // (at, ready?) after the start at 0
    TimeMs check_at;
    bool evicted;
  };
  const Row rows[] = {
      {"never recovers: evicted at failure + recoveryTimeout",
       {{1 * kMinute, false}},
       6 * kMinute,
       true},
      {"not yet at the deadline", {{1 * kMinute, false}}, 6 * kMinute - 1, false},
      {"recovers in time", {{1 * kMinute, false}, {3 * kMinute, true}}, 20 * kMinute, false},
      {"the first episode's timer does not fire in the second",
       {{1 * kMinute, false}, {3 * kMinute, true}, {4 * kMinute, false}},
       9 * kMinute - 1,
       false},
      {"the second episode's own deadline",
       {{1 * kMinute, false}, {3 * kMinute, true}, {4 * kMinute, false}},
       9 * kMinute,
       true},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.name) {
      Cluster c = two_queues(false);
      c.m.configuration.wait_for_pods_ready.recovery_timeout_s = 5 * 60;
      c.wl("job", "a", 0, {{"cpu", 2}});
      Engine e(c.m);
      e.run(-1, 0);
      REQUIRE(e.find("ns/job")->condition("PodsReady")->reason == "Started");
      for (const auto& [at, ready] : row.pods) {
        if (ready)
          e.post(at, ev::PodsReady{"ns/job"});
        else
          e.post(at, ev::PodsNotReady{"ns/job"});
      }
      e.run(-1, row.check_at);
      const WorkloadInfo* w = e.find("ns/job");
      const auto* evicted = w->condition("Evicted");
      CHECK((evicted != nullptr && evicted->reason == "PodsReadyTimeout") == row.evicted);
      CHECK(state_of(e, "job") == (row.evicted ? "Pending" : "Admitted"));
      if (!row.evicted && row.pods.size() == 2)
        CHECK(w->condition("PodsReady")->reason == "Recovered");
    }
  }
}

TEST_CASE("recoveryTimeout 0s turns the recovery timeout off", "[engine][podsready]") {
  // apis/config/v1beta2: 'Setting to "0s" disables recovery timeout checking';
  // core.go passes a recoveryTimeout to the workload controller only when it
  // is > 0, and admittedNotReadyWorkload then never times out WaitForRecovery.
  Cluster c = two_queues(false);
  c.m.configuration.wait_for_pods_ready.recovery_timeout_s = 0;
  c.wl("job", "a", 0, {{"cpu", 2}});
  Engine e(c.m);
  e.run(-1, 0);
  e.post(1 * kMinute, ev::PodsNotReady{"ns/job"});
  e.run(-1, 24 * 60 * kMinute);
  const WorkloadInfo* w = e.find("ns/job");
  CHECK(w->condition("Evicted") == nullptr);
  CHECK(w->condition("PodsReady")->reason == "WaitForRecovery");
  CHECK(state_of(e, "job") == "Admitted");
}

TEST_CASE("requeuingStrategy.backoffLimitCount deactivates after the last requeue",
          "[engine][podsready]") {
  Cluster c = two_queues(false);
  c.m.configuration.wait_for_pods_ready.backoff_limit_count = 1;
  c.wl("job", "a", 0, {{"cpu", 2}});
  Engine e(c.m, manual_pods_ready());
  e.run(-1, 30 * kMinute);
  const WorkloadInfo* w = e.find("ns/job");
  CHECK(w->condition("Evicted")->reason == "PodsReadyTimeout");
  CHECK(w->requeue_count == 1);
  e.run(-1, 31 * kMinute);  // backoff = backoffBaseSeconds (60s)
  CHECK(state_of(e, "job") == "Admitted");
  e.run();  // the second timeout exceeds the limit
  CHECK_FALSE(w->obj.active);
  CHECK(w->condition("Evicted")->reason == "DeactivatedDueToRequeuingLimitExceeded");
  CHECK(w->condition("Requeued")->status == "False");  // not requeued: deactivated
  CHECK(state_of(e, "job") == "Pending");
  CHECK(e.queues.active_count(0) + e.queues.inadmissible_count(0) == 0);
}

// Past the limit reconcileNotReadyTimeout deactivates instead of evicting, and
// the workload controller drops an inactive workload from the cache at once
// (cache.go: no ClusterQueue kept in use for a deactivated workload): a pod
// group's quota does not wait for its pods, which terminate holding nothing.
TEST_CASE("a pod group deactivated past backoffLimitCount frees its quota before its pods go",
          "[engine][podsready][pods]") {
  Cluster c = two_queues(true);
  c.m.configuration.wait_for_pods_ready.backoff_limit_count = 0;
  auto& group = c.wl("group", "a", 0, {{"cpu", 8}});
  group.meta.labels["kueue.x-k8s.io/pod-group-name"] = "group";
  c.wl("next", "a", 0, {{"cpu", 8}});
  EngineOptions o = manual_pods_ready();
  o.pod_termination_on_event = true;  // the group's pods stop only when told
  Engine e(c.m, o);
  e.run(-1, kMinute);
  REQUIRE(state_of(e, "group") == "Admitted");
  REQUIRE(state_of(e, "next") == "Pending");
  e.run(-1, 31 * kMinute);  // the PodsReady timeout (30 minutes) deactivates the group
  const WorkloadInfo* w = e.find("ns/group");
  CHECK_FALSE(w->obj.active);
  CHECK(w->pods_terminating);
  CHECK(state_of(e, "next") == "Admitted");  // blockAdmission no longer waits for the group
}

TEST_CASE("the dump says when blockAdmission stalls the scheduler", "[engine][podsready]") {
  Cluster c = two_queues(true);
  c.wl("first", "a", 0, {{"cpu", 2}});
  c.wl("second", "b", 0, {{"cpu", 2}});
  Engine e(c.m, manual_pods_ready());
  e.run(-1, 0);
  CHECK(e.dump().find("scheduler blocked") != std::string::npos);
  e.post(1000, ev::PodsReady{"ns/first"});
  e.run(-1, 1000);
  CHECK(e.dump().find("scheduler blocked") == std::string::npos);
}

TEST_CASE("blockAdmission: entries after the blocked one wait untouched, one admission per wake-up",
          "[engine][podsready]") {
  Cluster c = two_queues(true);
  c.cq("c", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("first", "a", 0, {{"cpu", 2}});
  c.wl("second", "b", 0, {{"cpu", 2}});
  c.wl("third", "c", 0, {{"cpu", 2}});
  Engine e(c.m, manual_pods_ready());
  e.run(-1, 2000);  // loaded at 2s (creation order 2)
  CHECK(state_of(e, "first") == "Admitted");
  CHECK(quota_reason(e, "second") == "Waiting");
  CHECK(e.find("ns/third")->condition("QuotaReserved") == nullptr);  // never processed
  e.post(3000, ev::PodsReady{"ns/first"});
  e.run(-1, 3000);
  CHECK(state_of(e, "second") == "Admitted");
  CHECK(quota_reason(e, "third") == "Waiting");  // `second` is not ready yet
  e.post(4000, ev::PodsReady{"ns/second"});
  e.run(-1, 4000);
  CHECK(state_of(e, "third") == "Admitted");
}

// A dump taken mid-backoff: the workload controller requeues the workload once
// status.requeueState.requeueAt passes (workload_controller.go Reconcile), and
// requeueState.count still counts against backoffLimitCount.
TEST_CASE("a dumped workload waiting out its backoff is requeued at requeueAt",
          "[engine][podsready]") {
  Cluster c = two_queues(false);
  c.m.configuration.wait_for_pods_ready.backoff_limit_count = 2;
  kmc::model::Workload& w = c.wl("job", "a", 0, {{"cpu", 2}});
  w.meta.creation_order = 1000;
  w.conditions = {
      {"Evicted", "True", "PodsReadyTimeout", "Exceeded the PodsReady timeout", 1600},
      {"QuotaReserved", "False", "Pending", "Exceeded the PodsReady timeout", 1600},
      {"Requeued", "False", "PodsReadyTimeout", "Exceeded the PodsReady timeout", 1600}};
  w.requeue_count = 2;
  w.requeue_at_s = 1720;
  Engine e(c.m, manual_pods_ready());
  CHECK(e.now() == 1600 * 1000);  // the clock starts at the newest time the dump shows
  e.run(-1, 1719 * 1000);
  CHECK(state_of(e, "job") == "Pending");
  e.run(-1, 1720 * 1000);
  CHECK(state_of(e, "job") == "Admitted");
  const WorkloadInfo* job = e.find("ns/job");
  CHECK(job->condition("Requeued")->reason == "BackoffFinished");
  e.run();  // its next PodsReady timeout is its third: past the limit of 2
  CHECK_FALSE(job->obj.active);
  CHECK(job->condition("Evicted")->reason == "DeactivatedDueToRequeuingLimitExceeded");
}

// AddFromLocalQueue pushes a LocalQueue's workloads with PushActiveIfNotPresent,
// which reads no backoff: resuming the LocalQueue, or a restart (each
// LocalQueue's Create event), puts a workload in backoff back into the active
// heap, and the scheduler admits it before its requeueAt.
TEST_CASE("a LocalQueue resumed or a restart pushes a workload in backoff into its heap",
          "[engine][podsready][backoff-push]") {
  for (const bool restart : {false, true}) {
    DYNAMIC_SECTION((restart ? "restart" : "LocalQueue resumed")) {
      Cluster c = two_queues(false);
      c.wl("job", "a", 0, {{"cpu", 2}});
      Engine e(c.m, manual_pods_ready());
      e.run(-1, 30 * kMinute);
      const WorkloadInfo* w = e.find("ns/job");
      REQUIRE(w->condition("Evicted")->reason == "PodsReadyTimeout");
      REQUIRE(w->condition("Requeued")->status == "False");
      REQUIRE(w->requeue_at_ms);
      const TimeMs requeue_at = *w->requeue_at_ms;
      REQUIRE(requeue_at > e.now() + 2000);
      CHECK_FALSE(e.queues.in_active(*w));
      if (restart) {
        restart_kueue(e);
      } else {
        e.post(e.now() + 500, ev::LocalQueueStopPolicy{"ns", "lq-a", StopPolicy::Hold});
        e.post(e.now() + 1000, ev::LocalQueueStopPolicy{"ns", "lq-a", StopPolicy::None});
      }
      e.run(-1, e.now() + 1000);
      CHECK(state_of(e, "job") == "Admitted");
      CHECK(e.now() < requeue_at);
    }
  }
  // Without either, it waits for its requeueAt.
  Cluster c = two_queues(false);
  c.wl("job", "a", 0, {{"cpu", 2}});
  Engine e(c.m, manual_pods_ready());
  e.run(-1, 30 * kMinute);
  const TimeMs requeue_at = *e.find("ns/job")->requeue_at_ms;
  e.run(-1, requeue_at - 1);
  CHECK(state_of(e, "job") == "Pending");
  e.run(-1, requeue_at);
  CHECK(state_of(e, "job") == "Admitted");
}

TEST_CASE("requeuingStrategy.timestamp: a timed-out workload waits by its eviction or creation",
          "[engine][podsready][queue-order]") {
  // cq a {cpu: 2}: old, mid and young (created in that order) of 2 cpu each.
  // old's pods are never ready: at 30 minutes the timeout evicts it, mid takes
  // the quota, and old's backoff ends at 31. When mid finishes, old and young
  // wait side by side: GetQueueOrderTimestamp puts old behind young by its
  // eviction (Eviction, the default), ahead of it by its creation (Creation).
  // A Kueue restart in between rebuilds the heaps with the same ordering (manager.go: the
  // configured workloadOrdering).
  for (const bool restart : {false, true})
    for (const auto ts :
         {kmc::model::RequeuingTimestamp::Eviction, kmc::model::RequeuingTimestamp::Creation}) {
      const bool creation = ts == kmc::model::RequeuingTimestamp::Creation;
      DYNAMIC_SECTION((creation ? "Creation" : "Eviction") << (restart ? ", restarted" : "")) {
        Cluster c;
        c.flavor("default");
        c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 2}}}})});
        c.m.configuration.wait_for_pods_ready.requeuing_timestamp = ts;
        for (const char* name : {"old", "mid", "young"}) c.wl(name, "a", 0, {{"cpu", 2}});
        Engine e(c.m, manual_pods_ready());
        e.run(-1, 30 * kMinute + 5000);  // the clock starts at the newest creation, 2 s
        const auto* evicted = e.find("ns/old")->condition("Evicted");
        REQUIRE(evicted != nullptr);
        REQUIRE(evicted->reason == "PodsReadyTimeout");
        REQUIRE(state_of(e, "mid") == "Admitted");
        e.post(30 * kMinute + 6000, ev::PodsReady{"ns/mid"});
        if (restart) {
          e.run(-1, 35 * kMinute);
          restart_kueue(e);
        }
        e.post(40 * kMinute, ev::JobFinished{"ns/mid"});
        e.run(-1, 40 * kMinute + 5000);  // the inadmissible ones requeued after a 1 s batch
        CHECK(state_of(e, "old") == (creation ? "Admitted" : "Pending"));
        CHECK(state_of(e, "young") == (creation ? "Pending" : "Admitted"));
      }
    }
}

TEST_CASE("a workload loaded Admitted without PodsReady times out from its Admitted time",
          "[engine][podsready]") {
  // workload_controller.go times WaitForStart from the Admitted condition's lastTransitionTime,
  // whoever admitted it: a dump's admitted workload whose pods never got ready is evicted once
  // the timeout has passed, and blockAdmission lets the next one in.
  Cluster c = two_queues(true);
  auto& loaded = c.wl("loaded", "a", 0, {{"cpu", 2}});
  loaded.admission = kmc::model::Admission{};
  loaded.admission->cluster_queue = "a";
  kmc::model::PodSetAssignment psa;
  psa.flavors["cpu"] = "default";
  psa.resource_usage["cpu"] = units(2);
  loaded.admission->pod_set_assignments.push_back(psa);
  loaded.conditions.push_back({"QuotaReserved", "True", "QuotaReserved", "", 0});
  loaded.conditions.push_back({"Admitted", "True", "Admitted", "", 0});
  loaded.conditions.push_back({"PodsReady", "False", "WaitForStart", "", 0});
  c.wl("next", "b", 0, {{"cpu", 2}});
  EngineOptions o;  // as kmc admit runs a dump: the jobs it starts get ready at once
  o.pods_ready_as_loaded = true;
  Engine e(c.m, o);
  const TimeMs timeout = e.manifests.configuration.wait_for_pods_ready.timeout_s * 1000;
  REQUIRE(timeout > e.now());
  e.run(-1, timeout - 1);
  CHECK(state_of(e, "loaded") == "Admitted");
  CHECK(state_of(e, "next") == "Pending");  // blocked behind it
  e.run(-1, timeout);
  CHECK(e.find("ns/loaded")->condition("Evicted")->reason == "PodsReadyTimeout");
  CHECK(state_of(e, "next") == "Admitted");
}
