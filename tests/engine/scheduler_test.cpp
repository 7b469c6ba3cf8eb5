// Table-driven scheduler tests, written from kueue-semantics.md §2–§4.
#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;
using kmc::model::ReclaimWithinCohortPolicy;
using kmc::model::WithinClusterQueuePolicy;

TEST_CASE("borrowing within a cohort: only one of two borrowers fits in one cycle",
          "[engine][scheduler]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("wa", "a", 0, {{"cpu", 15}});
  c.wl("wb", "b", 0, {{"cpu", 15}});
  Engine e(c.m);
  const CycleStats s = e.schedule();
  CHECK(s.heads == 2);
  CHECK(s.admitted == 1);
  CHECK(state_of(e, "wa") == "Admitted");  // earlier creation wins at equal priority and borrowing
  CHECK(state_of(e, "wb") == "Pending");
  CHECK(e.find("ns/wb")->pending_message ==
        "Workload no longer fits after processing another workload");
  CHECK(e.tree.usage(e.cluster_queues[0].node, 0) == 15000);  // cpu counts in milli-units
}

TEST_CASE("a workload within nominal goes before a borrower in the same cycle",
          "[engine][scheduler]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("borrower", "a", 100, {{"cpu", 15}});
  c.wl("nominal", "b", 0, {{"cpu", 10}});
  Engine e(c.m);
  e.schedule();
  CHECK(state_of(e, "nominal") == "Admitted");
  CHECK(state_of(e, "borrower") == "Pending");
}

TEST_CASE("lending limits in hierarchical cohorts", "[engine][scheduler]") {
  Cluster c;
  c.flavor("default");
  c.cohort("root");
  c.cohort("left", "root");
  c.cq("a", "left", {group({"cpu"}, {{"default", {{"cpu", 10, std::nullopt, 4}}}})});
  c.cq("b", "root", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  c.wl("too-big", "b", 0, {{"cpu", 5}});
  c.wl("fits", "b", 0, {{"cpu", 4}});
  Engine e(c.m);
  e.run();
  CHECK(state_of(e, "fits") == "Admitted");
  CHECK(state_of(e, "too-big") == "Pending");
  CHECK(e.find("ns/too-big")->pending_message ==
        "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, "
        "previously "
        "considered podsets requests (0) + current podset request (5) > maximum capacity (4)");
}

TEST_CASE("flavor fungibility: the first flavor that fits, even by borrowing, is taken",
          "[engine][scheduler]") {
  Cluster c;
  c.flavor("on-demand").flavor("spot");
  c.cq("a", "co", {group({"cpu"}, {{"on-demand", {{"cpu", 2}}}, {"spot", {{"cpu", 10}}}})});
  c.cq("b", "co", {group({"cpu"}, {{"on-demand", {{"cpu", 10}}}, {"spot", {{"cpu", 0}}}})});
  c.wl("w", "a", 0, {{"cpu", 5}});
  SECTION("whenCanBorrow=MayStopSearch (default) borrows on-demand") {
    Engine e(c.m);
    e.run();
    CHECK(flavor_of(e, "w", "cpu") == "on-demand");
  }
  SECTION("whenCanBorrow=TryNextFlavor prefers spot within nominal") {
    c.m.cluster_queues[0].flavor_fungibility.when_can_borrow =
        kmc::model::WhenCanBorrow::TryNextFlavor;
    Engine e(c.m);
    e.run();
    CHECK(flavor_of(e, "w", "cpu") == "spot");
  }
}

TEST_CASE("StrictFIFO blocks behind its head, BestEffortFIFO does not", "[engine][scheduler]") {
  Cluster c;
  c.flavor("default");
  auto& q = c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("head", "a", 0, {{"cpu", 8}});
  c.wl("running", "a", 0, {{"cpu", 4}});
  SECTION("StrictFIFO") {
    q.queueing_strategy = kmc::model::QueueingStrategy::StrictFIFO;
    c.m.workloads[1].meta.creation_order = -1;  // "running" is created first and admitted first
    Engine e(c.m);
    e.run();
    CHECK(state_of(e, "running") == "Admitted");
    CHECK(state_of(e, "head") == "Pending");
    e.create_workload(make_workload("small", "a", 0, {{"cpu", 1}}));
    e.run();
    CHECK(state_of(e, "small") == "Pending");  // blocked behind "head"
  }
  SECTION("BestEffortFIFO") {
    c.m.workloads[1].meta.creation_order = -1;
    Engine e(c.m);
    e.run();
    e.create_workload(make_workload("small", "a", 0, {{"cpu", 1}}));
    e.run();
    CHECK(state_of(e, "small") == "Admitted");
    CHECK(state_of(e, "head") == "Pending");
  }
}

TEST_CASE("preemption withinClusterQueue LowerPriority with a minimal victim set",
          "[engine][preemption]") {
  Cluster c;
  c.flavor("default");
  auto& q = c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  q.preemption.within_cluster_queue = WithinClusterQueuePolicy::LowerPriority;
  c.wl("old-big", "a", 0, {{"cpu", 8}});
  Engine e(c.m);
  e.run();
  e.post(e.now() + 1000, ev::WorkloadCreated{make_workload("new-small", "a", 0, {{"cpu", 2}})});
  e.run();
  REQUIRE(state_of(e, "old-big") == "Admitted");
  REQUIRE(state_of(e, "new-small") == "Admitted");
  // Candidates go newest first: new-small, then old-big; fill-back returns new-small.
  e.create_workload(make_workload("high", "a", 10, {{"cpu", 8}}));
  const CycleStats s = e.schedule();
  CHECK(s.preempted == 1);
  CHECK(state_of(e, "old-big") == "Evicted");
  CHECK(state_of(e, "new-small") == "Admitted");
  e.run();
  CHECK(state_of(e, "high") == "Admitted");
  REQUIRE(e.find("ns/old-big")->condition("Preempted") != nullptr);
  CHECK(e.find("ns/old-big")->condition("Preempted")->reason == "InClusterQueue");
  CHECK(state_of(e, "old-big") == "Pending");
}

TEST_CASE("preemption withinClusterQueue Never leaves the higher priority waiting",
          "[engine][preemption]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("low", "a", 0, {{"cpu", 10}});
  Engine e(c.m);
  e.run();
  e.create_workload(make_workload("high", "a", 10, {{"cpu", 4}}));
  e.run();
  CHECK(state_of(e, "low") == "Admitted");
  CHECK(state_of(e, "high") == "Pending");
  CHECK(e.find("ns/high")->pending_message ==
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
        "default, 4 more needed");
}

TEST_CASE("reclaimWithinCohort: a queue takes back its nominal quota from a borrower",
          "[engine][preemption]") {
  Cluster c;
  c.flavor("default");
  auto& a = c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("borrower", "b", 100, {{"cpu", 20}});
  SECTION("Any reclaims regardless of priority") {
    a.preemption.reclaim_within_cohort = ReclaimWithinCohortPolicy::Any;
    Engine e(c.m);
    e.run();
    REQUIRE(state_of(e, "borrower") == "Admitted");
    e.create_workload(make_workload("owner", "a", 0, {{"cpu", 10}}));
    e.run();
    CHECK(state_of(e, "owner") == "Admitted");
    REQUIRE(e.find("ns/borrower")->condition("Preempted") != nullptr);
    CHECK(e.find("ns/borrower")->condition("Preempted")->reason == "InCohortReclamation");
  }
  SECTION("LowerPriority does not reclaim from a higher priority borrower") {
    a.preemption.reclaim_within_cohort = ReclaimWithinCohortPolicy::LowerPriority;
    Engine e(c.m);
    e.run();
    e.create_workload(make_workload("owner", "a", 0, {{"cpu", 10}}));
    e.run();
    CHECK(state_of(e, "owner") == "Pending");
    CHECK(state_of(e, "borrower") == "Admitted");
  }
}

TEST_CASE("borrowWithinCohort: preempt a lower priority borrower while borrowing",
          "[engine][preemption]") {
  Cluster c;
  c.flavor("default");
  auto& a = c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
  c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
  c.cq("lender", "co", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
  a.preemption.reclaim_within_cohort = ReclaimWithinCohortPolicy::LowerPriority;
  c.wl("b-borrower", "b", 0, {{"cpu", 12}});
  SECTION("policy LowerPriority") {
    a.preemption.borrow_within_cohort = kmc::model::BorrowWithinCohortPolicy::LowerPriority;
    Engine e(c.m);
    e.run();
    e.create_workload(make_workload("a-big", "a", 10, {{"cpu", 6}}));
    e.run();
    CHECK(state_of(e, "a-big") == "Admitted");
    REQUIRE(e.find("ns/b-borrower")->condition("Preempted") != nullptr);
    CHECK(e.find("ns/b-borrower")->condition("Preempted")->reason ==
          "InCohortReclaimWhileBorrowing");
  }
  SECTION("maxPriorityThreshold below the victim's priority forbids it") {
    a.preemption.borrow_within_cohort = kmc::model::BorrowWithinCohortPolicy::LowerPriority;
    a.preemption.max_priority_threshold = -1;
    Engine e(c.m);
    e.run();
    e.create_workload(make_workload("a-big", "a", 10, {{"cpu", 6}}));
    e.run();
    CHECK(state_of(e, "a-big") == "Pending");
  }
  SECTION("policy Never: no preemption while the preemptor would borrow") {
    Engine e(c.m);
    e.run();
    e.create_workload(make_workload("a-big", "a", 10, {{"cpu", 6}}));
    e.run();
    CHECK(state_of(e, "a-big") == "Pending");
    CHECK(state_of(e, "b-borrower") == "Admitted");
  }
}

TEST_CASE("overlapping preemption targets: the second preemptor is skipped in that cycle",
          "[engine][preemption]") {
  Cluster c;
  c.flavor("default");
  auto& a = c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 5}}}})});
  auto& b = c.cq("b", "co", {group({"cpu"}, {{"default", {{"cpu", 5}}}})});
  c.cq("c", "co", {group({"cpu"}, {{"default", {{"cpu", 0}}}})});
  a.preemption.reclaim_within_cohort = ReclaimWithinCohortPolicy::Any;
  b.preemption.reclaim_within_cohort = ReclaimWithinCohortPolicy::Any;
  c.wl("victim", "c", 0, {{"cpu", 10}});
  Engine e(c.m);
  e.run();
  REQUIRE(state_of(e, "victim") == "Admitted");
  e.create_workload(make_workload("pa", "a", 0, {{"cpu", 5}}));
  e.create_workload(make_workload("pb", "b", 0, {{"cpu", 5}}));
  const CycleStats s = e.schedule();
  CHECK(s.preempted == 1);
  // pb's targets overlap pa's: recomputed; with the victim gone it fits, so DeferredFit.
  CHECK(e.find("ns/pb")->pending_message ==
        "Workload has overlapping preemption targets with another workload, but will fit after "
        "these preemptions complete");
  e.run();
  CHECK(state_of(e, "pa") == "Admitted");
  CHECK(state_of(e, "pb") == "Admitted");
}

TEST_CASE("partial admission reduces the count to what fits", "[engine][scheduler]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  auto& w = c.wl("job", "a", 0, {{"cpu", 1}}, 16);
  w.pod_sets[0].min_count = 4;
  Engine e(c.m);
  e.run();
  CHECK(state_of(e, "job") == "Admitted");
  CHECK(e.find("ns/job")->obj.admission->pod_set_assignments[0].count == 10);
}

TEST_CASE("a job that finishes releases quota and wakes parked workloads", "[engine][scheduler]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("first", "a", 0, {{"cpu", 10}}).runtime_s = 5;
  c.wl("second", "a", 0, {{"cpu", 10}});
  Engine e(c.m);
  const TimeMs t0 = e.now();
  e.run();
  CHECK(state_of(e, "first") == "Finished");
  CHECK(state_of(e, "second") == "Admitted");
  // finished at t0+5s, requeued after the 1s batch period
  CHECK(e.find("ns/second")->condition_ms.at("QuotaReserved") == t0 + 6000);
}

TEST_CASE("dump prints the clock, queued events and every workload", "[engine][report]") {
  Cluster c;
  c.flavor("default");
  c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  c.wl("w", "a", 0, {{"cpu", 1}}).runtime_s = 3;
  Engine e(c.m);
  e.schedule();
  const std::string d = e.dump();
  CHECK(d.find("JobFinished ns/w") != std::string::npos);
  CHECK(d.find("ns/w  Admitted  clusterQueue=a") != std::string::npos);
}

// GetTargets chooses victims for TotalRequestsFor, which has no `pods`; the
// fits check after it counts them. A preemptor short of pods alone finds one
// victim, no longer fits, and is skipped: nothing is ever preempted. The
// guarantee probe's option counts the pods, as a fixed Kueue would.
TEST_CASE("a preemptor short of pods never preempts: victims are chosen without them",
          "[engine][scheduler][preemption][pods]") {
  for (const bool counts_pods : {false, true}) {
    DYNAMIC_SECTION((counts_pods ? "victims chosen with the pods" : "Kueue")) {
      Cluster c;
      c.flavor("default");
      c.cq("shared", "", {group({"cpu", "pods"}, {{"default", {{"cpu", 16}, {"pods", 2}}}})})
          .preemption.within_cluster_queue = kmc::model::WithinClusterQueuePolicy::LowerPriority;
      c.wl("sweep-a", "shared", 0, {{"cpu", 2}});
      c.wl("sweep-b", "shared", 0, {{"cpu", 2}});
      EngineOptions o;
      o.preemption_counts_pods = counts_pods;
      Engine e(c.m, o);
      e.run(-1, 0);
      REQUIRE(state_of(e, "sweep-a") == "Admitted");
      REQUIRE(state_of(e, "sweep-b") == "Admitted");
      e.post(1000, ev::WorkloadCreated{make_workload("serve", "shared", 1000, {{"cpu", 2}}, 2)});
      e.run(-1, 60'000);
      CHECK(state_of(e, "serve") == (counts_pods ? "Admitted" : "Pending"));
      CHECK(state_of(e, "sweep-a") == (counts_pods ? "Pending" : "Admitted"));
    }
  }
}

// markSkipped keeps the flavor scan's progress under
// FlavorFungibilityPreserveScanProgress (on by default) and clears it with the
// gate off. cq-b's high-priority w2 fits flavor A by borrowing and stops
// there; cq-a's w1, not borrowing, goes first and takes what w2 would borrow,
// so w2 is skipped ("no longer fits"). With the progress kept, the next cycle
// resumes at B, which has no quota: NoFit, parked, and w0 is never preempted.
// Without it, the scan starts at A again, where w2 may preempt w0.
TEST_CASE("a skipped entry resumes its flavor scan unless the progress gate is off",
          "[engine][scheduler][flavor-fungibility]") {
  for (const bool gate : {true, false}) {
    DYNAMIC_SECTION((gate ? "progress kept" : "gate off")) {
      Cluster c;
      c.flavor("A").flavor("B");
      const auto groups = std::vector{group({"cpu"}, {{"A", {{"cpu", 4}}}, {"B", {{"cpu", 0}}}})};
      c.cq("a", "co", groups);
      c.cq("b", "co", groups).preemption.within_cluster_queue =
          WithinClusterQueuePolicy::LowerPriority;
      c.m.configuration.feature_gates.gates["FlavorFungibilityPreserveScanProgress"] = gate;
      c.wl("w0", "b", 0, {{"cpu", 2}});
      Engine e(c.m);
      e.run(-1, 0);
      REQUIRE(state_of(e, "w0") == "Admitted");
      e.post(1000, ev::WorkloadCreated{make_workload("w1", "a", 0, {{"cpu", 4}})});
      e.post(1000, ev::WorkloadCreated{make_workload("w2", "b", 10, {{"cpu", 4}})});
      e.run(-1, 60'000);
      CHECK(state_of(e, "w1") == "Admitted");
      CHECK(state_of(e, "w2") == (gate ? "Pending" : "Admitted"));
      CHECK(state_of(e, "w0") == (gate ? "Admitted" : "Pending"));
    }
  }
}

TEST_CASE("a ClusterQueue's namespaceSelector sees the name label of every Namespace",
          "[engine][scheduler]") {
  // Kueue's docs select a team's namespace by kubernetes.io/metadata.name,
  // which the API server sets: neither the input's Namespace object nor its
  // absence has to write it.
  for (const bool with_object : {false, true}) {
    for (const std::string selected : {"ns", "team-b"}) {
      INFO("Namespace object " << with_object << ", selected " << selected);
      Cluster c;
      c.flavor("default");
      auto& q = c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
      q.namespace_selector.match_labels["kubernetes.io/metadata.name"] = selected;
      if (with_object) {
        kmc::model::Namespace ns;
        ns.meta.name = "ns";
        c.m.namespaces.push_back(ns);
      }
      c.wl("w", "a", 0, {{"cpu", 1}});
      Engine e(c.m);
      e.schedule();
      CHECK(state_of(e, "w") == (selected == "ns" ? "Admitted" : "Pending"));
      if (selected != "ns")
        CHECK(e.find("ns/w")->pending_message ==
              "workload namespace doesn't match ClusterQueue selector");
    }
  }
}

// handleInadmissibleHash: a BestEffortFIFO head that does not fit parks every
// workload of its heap with its scheduling hash. With SchedulingEquivalenceHashing
// off the hash is SchedulingHashUnknown, and each is parked on its own turn.
TEST_CASE("equivalent workloads are parked with their head only under SchedulingEquivalenceHashing",
          "[engine][scheduler]") {
  for (const bool gate : {true, false}) {
    DYNAMIC_SECTION("SchedulingEquivalenceHashing " << gate) {
      Cluster c;
      c.flavor("default");
      c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
      c.wl("running", "a", 0, {{"cpu", 8}});
      c.wl("head", "a", 0, {{"cpu", 4}});
      c.wl("twin", "a", 0, {{"cpu", 4}});
      c.m.configuration.feature_gates.gates["SchedulingEquivalenceHashing"] = gate;
      Engine e(c.m);
      e.schedule();
      REQUIRE(state_of(e, "running") == "Admitted");
      e.schedule();  // head does not fit
      CHECK(e.queues.inadmissible_count(0) == (gate ? 2u : 1u));
      CHECK(e.queues.active_count(0) == (gate ? 0u : 1u));
    }
  }
}

// resolveNoFitReason (UnadmittedWorkloadsObservability, beta, on): a NoFit's
// QuotaReserved reason says why, the most severe of the failed pod sets',
// each the least severe of its group's flavors; Pending with the gate off.
TEST_CASE("a workload no flavor fits waits with the granular QuotaReserved reason",
          "[engine][scheduler]") {
  const auto reason = [](const Engine& e, const std::string& name) {
    return e.find("ns/" + name)->condition("QuotaReserved")->reason;
  };
  for (const bool gate : {true, false}) {
    DYNAMIC_SECTION("UnadmittedWorkloadsObservability " << gate) {
      Cluster c;
      c.flavor("default").flavor("tainted");
      c.m.resource_flavors[1].node_taints.push_back({"gpu", "", "NoSchedule"});
      c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
      c.cq("t", "", {group({"cpu"}, {{"tainted", {{"cpu", 4}}}})});
      c.cq("two", "", {group({"cpu"}, {{"tainted", {{"cpu", 8}}}, {"default", {{"cpu", 4}}}})});
      c.wl("running", "a", 0, {{"cpu", 3}});
      c.wl("too-big", "a", 0, {{"cpu", 8}});
      c.wl("waits", "a", 0, {{"cpu", 2}});
      c.wl("tainted", "t", 0, {{"cpu", 1}});
      c.wl("least", "two", 0, {{"cpu", 6}});  // tainted: NoMatchingFlavor; default: too big
      c.m.configuration.feature_gates.gates["UnadmittedWorkloadsObservability"] = gate;
      Engine e(c.m);
      e.run();
      REQUIRE(state_of(e, "running") == "Admitted");
      CHECK(reason(e, "too-big") == (gate ? "ExceedsMaxQuota" : "Pending"));
      CHECK(reason(e, "waits") == (gate ? "WaitingForQuota" : "Pending"));
      CHECK(reason(e, "tainted") == (gate ? "NoMatchingFlavor" : "Pending"));
      CHECK(reason(e, "least") == (gate ? "ExceedsMaxQuota" : "Pending"));
    }
  }
}
