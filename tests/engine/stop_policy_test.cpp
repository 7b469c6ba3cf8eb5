// stopPolicy on ClusterQueues and LocalQueues (kueue-semantics.md §1.2, §1.4):
// Hold unsets reservations that are not Admitted, HoldAndDrain also evicts the
// Admitted ones; a stopped CQ is inactive; a stopped LQ's workloads are not queued.
#include <catch2/catch.hpp>

#include "engine/controllers.hpp"
#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;
using kmc::model::StopPolicy;

namespace {
// CQ "a" with a check nobody answers, so a workload can stay reserved but not admitted;
// "running" gets its check Ready by hand.
Cluster held_and_running() {
  Cluster c;
  c.flavor("default");
  auto& q = c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  q.admission_checks.push_back({"manual", {}});
  kmc::model::AdmissionCheck ac;
  ac.meta.name = "manual";
  ac.controller_name = "example.com/manual";
  c.m.admission_checks.push_back(ac);
  c.wl("running", "a", 0, {{"cpu", 2}});
  c.wl("reserved", "a", 0, {{"cpu", 2}});
  return c;
}

Event stop(bool local, StopPolicy p) {
  if (local) return ev::LocalQueueStopPolicy{"ns", "lq-a", p};
  return ev::ClusterQueueStopPolicy{"a", p};
}
}  // namespace

TEST_CASE("Hold vs HoldAndDrain on ClusterQueues and LocalQueues", "[engine][stoppolicy]") {
  struct Row {
    const char* name;
    bool local;
    StopPolicy policy;
    const char* running_after;
    const char* evicted_reason;  // of `running`, "" if not evicted
    const char* reserved_message;
  };
  const Row rows[] = {
      {"CQ Hold keeps the admitted one", false, StopPolicy::Hold, "Admitted", "",
       "ClusterQueue a is stopped"},
      {"CQ HoldAndDrain evicts it", false, StopPolicy::HoldAndDrain, "Pending",
       "ClusterQueueStopped", "ClusterQueue a is stopped"},
      {"LQ Hold keeps the admitted one", true, StopPolicy::Hold, "Admitted", "",
       "LocalQueue lq-a is stopped"},
      {"LQ HoldAndDrain evicts it", true, StopPolicy::HoldAndDrain, "Pending", "LocalQueueStopped",
       "LocalQueue lq-a is stopped"},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.name) {
      Engine e(held_and_running().m);
      e.run(-1, e.now());  // both reserve quota at the load instant (1s: creation order 1)
      e.post(2000, ev::AdmissionCheckUpdate{
                       "ns/running", "manual", kmc::model::CheckState::Ready, {}, ""});
      e.run(-1, 2000);
      REQUIRE(state_of(e, "running") == "Admitted");
      REQUIRE(state_of(e, "reserved") == "QuotaReserved");
      e.post(3000, stop(row.local, row.policy));
      e.run(-1, 60'000);
      CHECK(state_of(e, "running") == row.running_after);
      const auto* ev = e.find("ns/running")->condition("Evicted");
      CHECK((ev != nullptr && ev->status == "True" ? ev->reason : std::string()) ==
            row.evicted_reason);
      const auto* qr = e.find("ns/reserved")->condition("QuotaReserved");
      CHECK(state_of(e, "reserved") == "Pending");
      CHECK(qr->reason == "Suspended");
      CHECK(qr->message == row.reserved_message);
      CHECK(e.cluster_queues[0].active == row.local);  // only a stopped CQ is inactive
      // Resuming brings both back to a reservation (their checks start over).
      e.post(70'000, stop(row.local, StopPolicy::None));
      e.run(-1, 80'000);
      CHECK(state_of(e, "reserved") == "QuotaReserved");
      CHECK(state_of(e, "running") ==
            (row.evicted_reason[0] != '\0' ? "QuotaReserved" : "Admitted"));
    }
  }
}

TEST_CASE("a stopped LocalQueue's workloads are not scheduled; its CQ's other LocalQueues are",
          "[engine][stoppolicy]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.lq("lq-other", "a").stop_policy = StopPolicy::Hold;  // loaded stopped
  c.wl("open", "a", 0, {{"cpu", 1}});
  c.wl("held", "a", 0, {{"cpu", 1}}).queue_name = "lq-other";
  Engine e(c.m);
  e.run();
  CHECK(state_of(e, "open") == "Admitted");
  CHECK(state_of(e, "held") == "Pending");
  CHECK(e.queues.pending_ids(0).empty());  // not even queued
  e.post(e.now() + 1000, ev::LocalQueueStopPolicy{"ns", "lq-other", StopPolicy::None});
  e.run();
  CHECK(state_of(e, "held") == "Admitted");
}

TEST_CASE("a ClusterQueue loaded with stopPolicy admits nothing until resumed",
          "[engine][stoppolicy]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})}).stop_policy = StopPolicy::Hold;
  c.wl("w", "a", 0, {{"cpu", 1}});
  Engine e(c.m);
  e.run();
  CHECK(state_of(e, "w") == "Pending");
  CHECK_FALSE(e.cluster_queues[0].active);
  e.post(e.now() + 1000, ev::ClusterQueueStopPolicy{"a", StopPolicy::None});
  e.run();
  CHECK(state_of(e, "w") == "Admitted");
}

// The scheduler's snapshot leaves out inactive ClusterQueues
// (snapshot.go skipInactiveCQReason), so a stopped queue's admitted workloads
// are no preemption candidates for the rest of the cohort, although its usage
// still counts in the cohort's (the cohort's resource node is the cache's).
TEST_CASE("a stopped ClusterQueue's borrowed quota cannot be reclaimed until it resumes",
          "[engine][stoppolicy][preemption]") {
  Cluster c;
  c.flavor("default");
  auto& a = c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  a.preemption.reclaim_within_cohort = kmc::model::ReclaimWithinCohortPolicy::Any;
  c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("borrower", "b", 0, {{"cpu", 20}});
  Engine e(c.m);
  e.run();
  REQUIRE(state_of(e, "borrower") == "Admitted");
  e.post(e.now() + 1000, ev::ClusterQueueStopPolicy{"b", StopPolicy::Hold});
  e.run();
  e.create_workload(make_workload("owner", "a", 0, {{"cpu", 10}}));
  e.run();
  CHECK(state_of(e, "owner") == "Pending");
  CHECK(state_of(e, "borrower") == "Admitted");
  e.post(e.now() + 1000, ev::ClusterQueueStopPolicy{"b", StopPolicy::None});
  e.run();
  CHECK(state_of(e, "owner") == "Admitted");
  CHECK(e.find("ns/borrower")->condition("Preempted") != nullptr);
}

// UnsetQuotaReservationWithCondition leaves the check states; without an
// admission, syncAdmissionCheckConditions keeps only the checks on every flavor
// of the queue (AdmissionChecksForWorkload): "all" stays Ready through the
// stop, "on-default" is removed and starts over at the next reservation.
TEST_CASE("an unset reservation keeps its Ready checks on every flavor",
          "[engine][stoppolicy][checks]") {
  Cluster c;
  c.flavor("default");
  c.flavor("other");
  auto& q = c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}, {"other", {{"cpu", 10}}}})});
  q.admission_checks.push_back({"all", {}});
  q.admission_checks.push_back({"on-default", {"default"}});
  for (const char* name : {"all", "on-default"}) {
    kmc::model::AdmissionCheck ac;
    ac.meta.name = name;
    ac.controller_name = "example.com/manual";
    c.m.admission_checks.push_back(ac);
  }
  c.wl("w", "a", 0, {{"cpu", 2}});
  Engine e(c.m);
  e.run(-1, e.now());
  REQUIRE(state_of(e, "w") == "QuotaReserved");
  e.post(2000, ev::AdmissionCheckUpdate{"ns/w", "all", kmc::model::CheckState::Ready, {}, ""});
  e.run(-1, 2000);
  REQUIRE(e.find("ns/w")->obj.admission_checks.size() == 2);
  e.post(3000, stop(false, StopPolicy::Hold));
  e.run(-1, 4000);
  REQUIRE(state_of(e, "w") == "Pending");
  const auto& checks = e.find("ns/w")->obj.admission_checks;
  REQUIRE(checks.size() == 1);
  CHECK(checks[0].name == "all");
  CHECK(checks[0].state == kmc::model::CheckState::Ready);
  e.post(5000, stop(false, StopPolicy::None));
  e.run(-1, 6000);
  REQUIRE(state_of(e, "w") == "QuotaReserved");
  e.post(7000,
         ev::AdmissionCheckUpdate{"ns/w", "on-default", kmc::model::CheckState::Ready, {}, ""});
  e.run(-1, 8000);
  CHECK(state_of(e, "w") == "Admitted");  // "all" was not asked again
}

// reconcileOnClusterQueueActiveState: a ClusterQueue with a deletionTimestamp
// is "terminating or missing"; a reservation not yet Admitted is unset.
TEST_CASE("a deleted ClusterQueue's reservations not yet Admitted are unset",
          "[engine][stoppolicy][cq-deletion]") {
  Engine e(held_and_running().m);
  e.run(-1, e.now());
  e.post(2000,
         ev::AdmissionCheckUpdate{"ns/running", "manual", kmc::model::CheckState::Ready, {}, ""});
  e.run(-1, 2000);
  REQUIRE(state_of(e, "reserved") == "QuotaReserved");
  REQUIRE(delete_cluster_queue(e, "a"));
  for (auto& w : e.workloads) reconcile_stop_policy(e, w);
  CHECK(state_of(e, "running") == "Admitted");  // it runs on
  CHECK(state_of(e, "reserved") == "Pending");
  CHECK(e.find("ns/reserved")->condition("QuotaReserved")->message ==
        "ClusterQueue a is terminating or missing");
}

namespace {
// CQ "a" {cpu: 4}, BestEffortFIFO, in cohort "co" when `cohort`, itself
// under a Cohort object "org" when `nested`: "first" (lq-a) holds all of it;
// "parked" (lq-b) waits, parked as NoFit.
Cluster one_holder_one_parked(bool cohort, bool cohort_object, bool nested = false) {
  Cluster c;
  c.flavor("default");
  c.cq("a", cohort ? "co" : "", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
  if (nested) c.cohort("org");
  if (cohort_object) c.cohort("co", nested ? "org" : "");
  c.lq("lq-b", "a");
  c.wl("first", "a", 0, {{"cpu", 4}});
  c.wl("parked", "a", 0, {{"cpu", 4}}).queue_name = "lq-b";
  return c;
}
}  // namespace

TEST_CASE("quota freed by a workload of a held LocalQueue requeues nothing without a Cohort object",
          "[engine][stoppolicy]") {
  // QueueAssociatedInadmissibleWorkloadsAfter finds the ClusterQueue through
  // the workload's LocalQueue; a stopped one is gone from the queue manager
  // (DeleteLocalQueue), so the parked workload is never requeued. Only the
  // controller of a Cohort object below the root, on the queue's status
  // update, requeues it.
  struct Row {
    const char* name;
    bool cohort, cohort_object, nested;
    const char* parked_after;
  };
  const Row rows[] = {{"no cohort: parked for good", false, false, false, "Pending"},
                      {"an implicit cohort: parked for good", true, false, false, "Pending"},
                      {"a root Cohort object: parked for good", true, true, false, "Pending"},
                      {"a Cohort object under the root: requeued", true, true, true, "Admitted"}};
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.name) {
      Engine e(one_holder_one_parked(row.cohort, row.cohort_object, row.nested).m);
      e.run(-1, e.now());
      REQUIRE(state_of(e, "first") == "Admitted");
      REQUIRE(e.queues.inadmissible_count(0) == 1);
      e.post(e.now() + 1000, ev::LocalQueueStopPolicy{"ns", "lq-a", StopPolicy::Hold});
      e.post(e.now() + 2000, ev::JobFinished{"ns/first"});
      e.run();
      CHECK(state_of(e, "first") == "Finished");
      CHECK(state_of(e, "parked") == row.parked_after);
    }
  }
  // With lq-a running, the finish requeues it.
  Engine e(one_holder_one_parked(false, false).m);
  e.run(-1, e.now());
  e.post(e.now() + 2000, ev::JobFinished{"ns/first"});
  e.run();
  CHECK(state_of(e, "parked") == "Admitted");
}

TEST_CASE("ClusterQueue HoldAndDrain leaves the admitted workloads of a held LocalQueue running",
          "[engine][stoppolicy]") {
  // The workload controller finds no ClusterQueue for a workload whose
  // LocalQueue is stopped (ClusterQueueForWorkload), so it reads no
  // ClusterQueue stopPolicy: only the LocalQueue's HoldAndDrain would drain it.
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.lq("lq-b", "a");
  c.wl("held", "a", 0, {{"cpu", 1}});
  c.wl("open", "a", 0, {{"cpu", 1}}).queue_name = "lq-b";
  Engine e(c.m);
  e.run(-1, e.now());
  REQUIRE(state_of(e, "held") == "Admitted");
  REQUIRE(state_of(e, "open") == "Admitted");
  e.post(e.now() + 1000, ev::LocalQueueStopPolicy{"ns", "lq-a", StopPolicy::Hold});
  e.post(e.now() + 2000, ev::ClusterQueueStopPolicy{"a", StopPolicy::HoldAndDrain});
  e.run(-1, e.now() + 60'000);
  CHECK(state_of(e, "held") == "Admitted");
  CHECK(e.find("ns/open")->condition("Evicted")->reason == "ClusterQueueStopped");
}
