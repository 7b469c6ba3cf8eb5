// waitForPodsReady.blockAdmission (scheduler.go waitForPodsReadyIfNeeded): the
// goroutine sleeps inside the entry's processEntry and, woken, admits that
// entry with the assignment its cycle planned; Scheduler.admit re-checks
// nothing, so what changed meanwhile (a new head, a quota cut) does not count.
#include <catch2/catch.hpp>

#include "engine/controllers.hpp"
#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;

namespace {

// ClusterQueue "a" {cpu: 4}, blockAdmission, pods ready only when posted; w1
// (2 cpu) admitted and not ready, w2 (2 cpu) held by the sleeping goroutine.
struct Asleep {
  Cluster c;
  Engine e;
  Asleep() : c(cluster()), e(c.m, options()) {
    e.run(-1, 0);
    REQUIRE(state_of(e, "w1") == "Admitted");
    REQUIRE(state_of(e, "w2") == "Pending");
    REQUIRE(e.pods_ready_blocked());
  }
  static Cluster cluster() {
    Cluster c;
    c.flavor("default");
    c.cq("a", "", {group({"cpu"}, {{"default", {{"cpu", 4}}}})});
    c.m.configuration.wait_for_pods_ready.block_admission = true;
    c.wl("w1", "a", 0, {{"cpu", 2}});
    c.wl("w2", "a", 0, {{"cpu", 2}});
    return c;
  }
  static EngineOptions options() {
    EngineOptions o;
    o.pods_ready_on_start = false;
    return o;
  }
};

}  // namespace

TEST_CASE("blockAdmission: woken, the goroutine admits the entry it held, not a newer head",
          "[engine][podsready][block-admission]") {
  Asleep a;
  Engine& e = a.e;
  e.post(1000, ev::WorkloadCreated{make_workload("urgent", "a", 10, {{"cpu", 2}})});
  e.run(-1, 1000);
  CHECK(state_of(e, "urgent") == "Pending");
  e.post(2000, ev::PodsReady{"ns/w1"});
  e.run(-1, 2000);
  CHECK(state_of(e, "w2") == "Admitted");
  CHECK(state_of(e, "urgent") == "Pending");  // the quota is full
  CHECK_FALSE(e.pods_ready_blocked());
}

TEST_CASE("blockAdmission: woken after a quota cut, the goroutine admits above the quota",
          "[engine][podsready][block-admission]") {
  // The cycle planned w2 against {cpu: 4}; the operator cut it to 2 while the
  // goroutine slept. Scheduler.admit re-checks nothing: w2 holds quota above
  // the ClusterQueue's nominal.
  Asleep a;
  Engine& e = a.e;
  REQUIRE(update_quotas(e, "a", false, {{"default", "cpu", Amount{2000}, {}, {}}}));
  e.post(1000, ev::PodsReady{"ns/w1"});
  e.run(-1, 1000);
  CHECK(state_of(e, "w2") == "Admitted");
  const int node = e.cluster_queues[0].node;
  const FrId cpu = e.frs.find("default", "cpu");
  CHECK(e.tree.usage(node, cpu) == 4000);
  CHECK(e.tree.nominal(node, cpu) == 2000);
}

TEST_CASE("blockAdmission: an entry deleted while the goroutine slept is not admitted",
          "[engine][podsready][block-admission]") {
  Asleep a;
  Engine& e = a.e;
  e.post(1000, ev::WorkloadDeleted{"ns/w2"});
  e.post(1500, ev::WorkloadCreated{make_workload("w3", "a", 0, {{"cpu", 2}})});
  e.post(2000, ev::PodsReady{"ns/w1"});
  e.run(-1, 2000);
  CHECK_FALSE(e.find("ns/w2")->has_quota_reservation());
  // The woken goroutine's loop goes on at once: the next cycle admits w3,
  // with no event left to wake the engine.
  CHECK(state_of(e, "w3") == "Admitted");
}
