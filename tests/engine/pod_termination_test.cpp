// The Pod integration's quota release (kueue-semantics.md §4.6): an evicted
// Job's quota goes at once (the Job controller does not count terminating
// pods); a Pod group's only when its pods are gone, or at once with
// FastQuotaReleaseInPodIntegration. Pods on a node whose kubelet is lost stay
// terminating until the PodTermination controller (#7312) fails them.
#include <catch2/catch.hpp>

#include "engine/controllers.hpp"
#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;
using kmc::model::WithinClusterQueuePolicy;

namespace {

// CQ "a" with 10 cpu, preempting lower priority; "low" (8 cpu) holds it.
Cluster one_queue(bool pod_group) {
  Cluster c;
  c.flavor("default");
  auto& q = c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})});
  q.preemption.within_cluster_queue = WithinClusterQueuePolicy::LowerPriority;
  auto& low = c.wl("low", "a", 0, {{"cpu", 8}});
  if (pod_group) low.meta.labels["kueue.x-k8s.io/pod-group-name"] = "low";
  return c;
}

EngineOptions on_event() {
  EngineOptions o;
  o.pod_termination_on_event = true;
  return o;
}

// "low" admitted, then "high" (8 cpu, priority 10) arrives and preempts it.
Engine preempted(const Cluster& c, EngineOptions o) {
  Engine e(c.m, o);
  e.run();
  REQUIRE(state_of(e, "low") == "Admitted");
  e.create_workload(make_workload("high", "a", 10, {{"cpu", 8}}));
  const CycleStats s = e.schedule();
  REQUIRE(s.preempted == 1);
  return e;
}

// The cpu in use in "a", in Kueue's units (milli-cpu).
std::int64_t used(const Engine& e) {
  return e.tree.usage(e.cluster_queues[0].node, e.frs.find("default", "cpu"));
}

}  // namespace

TEST_CASE("a preempted Job's quota goes at eviction", "[engine][pods]") {
  Engine e = preempted(one_queue(false), on_event());
  e.run();
  CHECK(state_of(e, "low") == "Pending");
  CHECK(state_of(e, "high") == "Admitted");
}

TEST_CASE("a preempted lone Pod's quota goes at eviction; a group annotated so holds it",
          "[engine][pods]") {
  // (*Pod).IsActive counts a group's pods only: a single plain Pod is inactive once stopped.
  Cluster lone = one_queue(false);
  lone.m.workloads[0].meta.owner_kinds = {"Pod"};
  Engine e = preempted(lone, on_event());
  e.run();
  CHECK(state_of(e, "low") == "Pending");
  CHECK(state_of(e, "high") == "Admitted");
  // Kueue's own mark on a pod group's Workload.
  Cluster annotated = one_queue(false);
  annotated.m.workloads[0].meta.owner_kinds = {"Pod"};
  annotated.m.workloads[0].meta.annotations["kueue.x-k8s.io/is-group-workload"] = "true";
  Engine g = preempted(annotated, on_event());
  g.run();
  CHECK(used(g) == 8000);
  CHECK(state_of(g, "high") != "Admitted");
}

TEST_CASE("a preempted Pod group holds its quota until its pods are gone", "[engine][pods]") {
  Engine e = preempted(one_queue(true), on_event());
  e.run();
  CHECK(state_of(e, "low") == "Evicted");
  CHECK(e.find("ns/low")->pods_terminating);
  CHECK(state_of(e, "high") == "Pending");
  CHECK(used(e) == 8000);
  e.post(e.now(), ev::PodsTerminated{"ns/low"});
  e.run();
  CHECK(state_of(e, "low") == "Pending");
  CHECK(e.find("ns/low")->is_true("Requeued"));
  CHECK(state_of(e, "high") == "Admitted");
  CHECK(used(e) == 8000);
}

TEST_CASE("FastQuotaReleaseInPodIntegration releases a Pod group's quota at eviction",
          "[engine][pods]") {
  Cluster c = one_queue(true);
  c.m.configuration.feature_gates.gates["FastQuotaReleaseInPodIntegration"] = true;
  Engine e = preempted(c, on_event());
  e.run();
  CHECK(state_of(e, "low") == "Pending");
  CHECK(state_of(e, "high") == "Admitted");
}

TEST_CASE("pods stuck terminating hold the quota until the PodTermination controller fails them",
          "[engine][pods]") {
  Engine e = preempted(one_queue(true), on_event());
  e.post(e.now(), ev::PodsStuckTerminating{"ns/low"});
  e.run();
  REQUIRE(e.find("ns/low")->pods_stuck);
  // A stuck pod never terminates by itself: the kubelet that would report it is gone.
  e.post(e.now() + 1000, ev::PodsTerminated{"ns/low"});
  e.run();
  CHECK(state_of(e, "low") == "Evicted");
  CHECK(state_of(e, "high") == "Pending");
  CHECK(used(e) == 8000);
  e.post(e.now() + 1000, ev::StuckPodsFailed{"ns/low"});
  e.run();
  CHECK_FALSE(e.find("ns/low")->pods_stuck);
  CHECK(state_of(e, "low") == "Pending");
  CHECK(state_of(e, "high") == "Admitted");
}

TEST_CASE("pod events for a workload that is not terminating change nothing", "[engine][pods]") {
  Engine e(one_queue(true).m, on_event());
  e.run();
  for (const Event& x :
       {Event{ev::PodsTerminated{"ns/low"}}, Event{ev::PodsStuckTerminating{"ns/low"}},
        Event{ev::StuckPodsFailed{"ns/low"}}, Event{ev::PodsTerminated{"ns/no"}}})
    e.post(e.now(), x);
  e.run();
  CHECK(state_of(e, "low") == "Admitted");
  CHECK_FALSE(e.find("ns/low")->pods_stuck);
  CHECK(used(e) == 8000);
}

TEST_CASE("without pod_termination_on_event a Pod group stops as a Job does", "[engine][pods]") {
  EngineOptions o;
  o.job_stop_delay_ms = 5000;
  Engine e = preempted(one_queue(true), o);
  CHECK_FALSE(e.find("ns/low")->pods_terminating);
  e.run(-1, e.now() + 4000);
  CHECK(state_of(e, "low") == "Evicted");
  e.run();
  CHECK(state_of(e, "low") == "Pending");
  CHECK(state_of(e, "high") == "Admitted");
}

namespace {

// one_queue's "low" as a dump shows it holding its 8 cpu in "a" since `at`:
// status.admission and QuotaReserved.
kmc::model::Workload& reserved(Cluster& c, std::int64_t at) {
  auto& low = c.m.workloads[0];
  low.admission = kmc::model::Admission{};
  low.admission->cluster_queue = "a";
  kmc::model::PodSetAssignment psa;
  psa.flavors["cpu"] = "default";
  psa.resource_usage["cpu"] = units(8);
  low.admission->pod_set_assignments.push_back(psa);
  low.conditions.push_back({"QuotaReserved", "True", "QuotaReserved", "", at});
  return low;
}

}  // namespace

TEST_CASE("the first reconcile after start admits a reserved workload that needs no check",
          "[engine][pods]") {
  Cluster c = one_queue(true);
  reserved(c, 0);
  Engine e(c.m, on_event());
  REQUIRE(state_of(e, "low") == "QuotaReserved");
  CHECK_FALSE(e.find("ns/low")->job_active);
  reconcile_all_workloads(e);
  CHECK(state_of(e, "low") == "Admitted");
  CHECK(e.find("ns/low")->job_active);
  CHECK(used(e) == 8000);
}

namespace {

// one_queue's "low" loaded from a dump taken halfway through its eviction:
// Admitted, holding its 8 cpu, and Evicted (Preempted) a second before the dump;
// "next" (8 cpu, priority 10) waits.
Cluster evicted_holder(bool pod_group) {
  Cluster c = one_queue(pod_group);
  auto& low = reserved(c, 10);
  low.conditions.push_back({"Admitted", "True", "Admitted", "", 10});
  low.conditions.push_back({"Evicted", "True", "Preempted", "", 11});
  c.wl("next", "a", 10, {{"cpu", 8}});
  return c;
}

}  // namespace

TEST_CASE("a dumped workload evicted halfway finishes its eviction", "[engine][pods]") {
  // Kueue's job reconciler stops an evicted job whatever loaded it: the
  // Job's quota goes when it reads inactive, the Pod group's when its pods are gone.
  SECTION("a Job") {
    Engine e(evicted_holder(false).m, on_event());
    REQUIRE(state_of(e, "low") == "Evicted");
    e.run();
    CHECK(state_of(e, "low") == "Pending");
    CHECK(state_of(e, "next") == "Admitted");
    // Its eviction keeps its time: the dump's, not the load's.
    CHECK(e.find("ns/low")->condition("Evicted")->last_transition_s == 11);
  }
  SECTION("a Pod group") {
    Engine e(evicted_holder(true).m, on_event());
    e.run();
    CHECK(state_of(e, "low") == "Evicted");
    CHECK(e.find("ns/low")->pods_terminating);
    CHECK(state_of(e, "next") == "Pending");
    e.post(e.now(), ev::PodsTerminated{"ns/low"});
    e.run();
    CHECK(state_of(e, "low") == "Pending");
    CHECK(state_of(e, "next") == "Admitted");
  }
}

TEST_CASE("the event queue shows its next event without taking it", "[engine][clock]") {
  EventQueue q;
  q.post(20, ev::JobStopped{"b"});
  q.post(10, ev::JobStopped{"a"});
  REQUIRE(std::get<ev::JobStopped>(q.next_event()).key == "a");
  CHECK(q.size() == 2);
  CHECK(std::get<ev::JobStopped>(q.pop().second).key == "a");
}

TEST_CASE("the queue manager says which preemptor a ClusterQueue keeps at its head",
          "[engine][pods]") {
  Engine e = preempted(one_queue(true), on_event());
  const int high = e.find("ns/high")->id;
  CHECK(e.queues.sticky(0) == high);
  e.post(e.now(), ev::PodsTerminated{"ns/low"});
  e.run();
  CHECK(e.queues.sticky(0) == -1);  // admitted: it left the queue
}

// Kueue forgets the preemptor when the workload controller sees its
// reservation: while the admission patch is in flight it is still the
// preemptor, and a patch that fails requeues it so, at its queue's head.
TEST_CASE("a preemptor stays so until its admission's write lands", "[engine][pods]") {
  EngineOptions o = on_event();
  o.admission_write_failures = 1;
  for (const bool lands : {true, false}) {
    INFO("lands " << lands);
    Engine e = preempted(one_queue(true), o);
    WorkloadInfo& high = *e.find("ns/high");
    e.post(e.now(), ev::PodsTerminated{"ns/low"});
    e.run();
    REQUIRE(high.admission_in_flight);
    CHECK(e.queues.sticky(0) == high.id);
    if (lands) {
      land_admission_write(e, high);
      CHECK(e.queues.sticky(0) == -1);
    } else {
      fail_admission_write(e, high);
      CHECK(state_of(e, "high") == "Pending");
      CHECK(e.queues.sticky(0) == high.id);
    }
  }
}

TEST_CASE("before #7157 a BestEffortFIFO queue keeps no preemptor at its head", "[engine][pods]") {
  EngineOptions o = on_event();
  o.sticky_preemptor_head = false;
  Engine e = preempted(one_queue(true), o);
  CHECK(e.queues.sticky(0) == -1);
  CHECK(state_of(e, "low") == "Evicted");
  CHECK(state_of(e, "high") == "Pending");
}

namespace {

// Two ClusterQueues of cohort "co" (2 cpu each, preempting lower priority),
// each full of two low-priority Pod groups; one high-priority workload per
// queue, a's created first.
Engine two_teams(EngineOptions o) {
  Cluster c;
  c.flavor("default");
  for (const char* q : {"a", "b"}) {
    auto& cq = c.cq(q, "co", {group({"cpu"}, {{"default", {{"cpu", 2}}}})});
    cq.preemption.within_cluster_queue = WithinClusterQueuePolicy::LowerPriority;
  }
  for (const char* name : {"a-low-0", "a-low-1", "b-low-0", "b-low-1"}) {
    auto& low = c.wl(name, std::string(1, name[0]), 0, {{"cpu", 1}});
    low.meta.labels["kueue.x-k8s.io/pod-group-name"] = name;
  }
  Engine e(c.m, o);
  e.run();
  for (const char* name : {"a-low-0", "a-low-1", "b-low-0", "b-low-1"})
    REQUIRE(state_of(e, name) == "Admitted");
  e.create_workload(make_workload("a-high", "a", 10, {{"cpu", 1}}));
  e.create_workload(make_workload("b-high", "b", 10, {{"cpu", 1}}));
  return e;
}

int evicted(const Engine& e) {
  int n = 0;
  for (const char* name : {"a-low-0", "a-low-1", "b-low-0", "b-low-1"})
    n += state_of(e, name) == "Evicted";
  return n;
}

}  // namespace

TEST_CASE("several preemptions per cohort and cycle; before #2641 one, in flight ones too",
          "[engine][pods]") {
  SECTION("today (MultiplePreemptions)") {
    Engine e = two_teams(on_event());
    const CycleStats s = e.schedule();
    CHECK(s.preempted == 2);
    CHECK(s.skipped.empty());
  }
  SECTION("before #2641") {
    EngineOptions o = on_event();
    o.multiple_preemptions = false;
    Engine e = two_teams(o);
    CycleStats s = e.schedule();
    CHECK(s.preempted == 1);
    CHECK(evicted(e) == 1);
    const int b_high = e.find("ns/b-high")->id;
    REQUIRE(s.skipped == std::vector<int>{b_high});
    CHECK(e.find("ns/b-high")->pending_message ==
          "Workload skipped because its preemption calculations were invalidated by another "
          "workload");
    // a-high re-issues its preemption (already in flight) every cycle: b-high waits.
    s = e.schedule();
    CHECK(s.preempted == 0);
    CHECK(s.skipped == std::vector<int>{b_high});
    CHECK(evicted(e) == 1);
    // Once a-high's victim is gone and a-high admitted, b-high preempts.
    for (const char* name : {"a-low-0", "a-low-1"})
      if (state_of(e, name) == "Evicted")
        e.post(e.now(), ev::PodsTerminated{"ns/" + std::string(name)});
    e.run();
    CHECK(state_of(e, "a-high") == "Admitted");
    CHECK(evicted(e) == 1);
    CHECK((state_of(e, "b-low-0") == "Evicted" || state_of(e, "b-low-1") == "Evicted"));
  }
}
