// A dump caught halfway through an eviction: a Workload Evicted while it still
// holds quota. Kueue's job reconciler stops the job, then unsets the
// reservation once the job is inactive (reconciler.go, "handle eviction"):
// a Job at once, as the model takes any Job's eviction, a running Pod group
// once its pods are gone. The workload controller then requeues it at once,
// unless a requeueAt is ahead (workload_controller.go, the transition back to
// pending). tests/cli/fixtures/evicted-halfway is the dump; these cases edit it
// in memory for the other reasons and settings.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "model/scenario.hpp"
#include "protocols/kueue_admission/params.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using ka_check::check;
using kmc::checker::Verdict;
using namespace ka_check::steps;

namespace {

// The fixture's dump time is 10:10 (group's eviction, the newest time it shows).
constexpr std::int64_t kDumpTime = 1796465400;  // 2026-12-05T10:10:00Z

kmc::model::Scenario fixture() {
  return kmc::model::load_scenario(KMC_SOURCE_DIR "/tests/cli/fixtures/evicted-halfway");
}

kmc::model::Workload& workload(kmc::model::Scenario& sc, const std::string& name) {
  for (auto& w : sc.manager.workloads)
    if (w.meta.name == name) return w;
  FAIL("no workload " << name);
  return sc.manager.workloads.front();
}

kmc::model::Condition& condition(kmc::model::Workload& w, const std::string& type) {
  for (auto& c : w.conditions)
    if (c.type == type) return c;
  FAIL(w.meta.name << " has no condition " << type);
  return w.conditions.front();
}

int at(const ka::AdmissionParams& p, const std::string& name) {
  for (int w = 0; w < p.W(); ++w)
    if (p.workloads[w].name == "ns/" + name) return w;
  FAIL("no workload " << name);
  return -1;
}

ka::Action act(ka::Kind k, int w) {
  return ka::Action{k, static_cast<std::int16_t>(w)};
}

}  // namespace

TEST_CASE("a dump's halfway eviction: the Job's quota goes at once, the Pod group's with its pods",
          "[admission][dump][evicted-halfway]") {
  auto sc = fixture();
  // The fixture's backoff is over by the dump's time; here it is still ahead.
  workload(sc, "job").requeue_at_s = kDumpTime + 60;
  const auto p = ka::compile_admission(sc);
  CHECK(p.warnings.empty());
  const int group = at(p, "group"), job = at(p, "job"), high = at(p, "high");
  CHECK(p.workloads[group].initial_evicted);
  CHECK(p.workloads[job].initial_evicted);
  ka_check::Walk step(p);
  auto& s = step.s;
  CHECK(s.phase[group] == ka::kEvicted);
  CHECK(s.flavor[group] == 0);
  CHECK(s.phase[job] == ka::kBackoff);
  CHECK(s.flavor[job] == -1);
  CHECK(s.usage[0] == 1000);  // group's cpu only
  // high (2 cpu) does not fit beside group; its preemption finds group, on its
  // way out already, issues nothing, and keeps high at the head (#7157).
  step(kSchedule);
  CHECK(s.phase[high] == ka::kPending);
  CHECK(s.sticky[0] == high);
  step(act(ka::kPodsTerminated, group));
  CHECK(s.phase[group] == ka::kPending);  // Preempted: back in its queue at once
  step(kSchedule);
  CHECK(s.phase[high] == ka::kAdmitted);
  step(act(ka::kBackoffExpired, job));
  CHECK(s.phase[job] == ka::kPending);
  // The fixture's properties: high never runs beside group's pods; job runs again.
  CHECK(check(p, {"high-waits-for-group"}).result.verdict == Verdict::Verified);
  CHECK(check(p, {"job-stays-out"}).result.verdict == Verdict::Violated);
}

TEST_CASE("a dump's halfway eviction: a backoff over by the dump's time is over",
          "[admission][dump][evicted-halfway]") {
  // As shipped: job's requeueAt (10:07) is before the dump's time, so the
  // workload controller requeues it once its job is stopped, ordered by its
  // eviction (10:06). The same holds for a workload the dump shows released.
  for (const bool released : {false, true}) {
    auto sc = fixture();
    if (released) {
      auto& w = workload(sc, "job");
      w.admission.reset();
      condition(w, "QuotaReserved").status = "False";
      condition(w, "Admitted").status = "False";
      w.conditions.push_back({"Requeued", "False", "PodsReadyTimeout", "", kDumpTime - 240});
    }
    const auto p = ka::compile_admission(sc);
    const int job = at(p, "job");
    INFO("released " << released);
    CHECK(p.workloads[job].initial_evicted != released);
    CHECK_FALSE(p.workloads[job].initial_backoff);
    CHECK(p.workloads[job].evicted_at == kDumpTime - 240);
    const auto s = ka::Spec::initial(p);
    CHECK(s.phase[job] == ka::kPending);
    CHECK(s.requeued[job] >= 0);
  }
}

TEST_CASE("a dump's halfway eviction of a Pod group: what its pods' end leads to",
          "[admission][dump][evicted-halfway]") {
  struct Row {
    const char* reason;
    std::int64_t requeue_at;  // 0: none
    bool by_creation;         // requeuingStrategy.timestamp Creation
    ka::Phase after;          // once its pods are gone
    bool stamped;             // ordered by the eviction's time
  };
  for (const Row& row : {
           // Preempted: back in its queue by its creation.
           Row{"Preempted", 0, false, ka::kPending, false},
           // A PodsReady timeout: a backoff still ahead, ordered by the eviction...
           Row{"PodsReadyTimeout", kDumpTime + 60, false, ka::kBackoff, true},
           // ... or by creation (marked while its pods terminate) ...
           Row{"PodsReadyTimeout", kDumpTime + 60, true, ka::kBackoff, false},
           // ... or over by the dump's time: in its queue at once, still ordered by the eviction.
           Row{"PodsReadyTimeout", kDumpTime - 60, false, ka::kPending, true},
           Row{"AdmissionCheck", kDumpTime + 60, false, ka::kBackoff, true},
           // Any other reason: back in its queue by its creation, unless a requeueAt
           // is ahead, which holds it back all the same (marked while its pods terminate).
           Row{"ClusterQueueStopped", 0, false, ka::kPending, false},
           Row{"Preempted", kDumpTime + 60, false, ka::kBackoff, false},
       }) {
    auto sc = fixture();
    auto& w = workload(sc, "group");
    condition(w, "Evicted").reason = row.reason;
    if (row.requeue_at != 0) w.requeue_at_s = row.requeue_at;
    if (row.by_creation)
      sc.manager.configuration.wait_for_pods_ready.requeuing_timestamp =
          kmc::model::RequeuingTimestamp::Creation;
    const auto p = ka::compile_admission(sc);
    const int group = at(p, "group");
    INFO(row.reason << " requeueAt " << row.requeue_at << " by creation " << row.by_creation);
    ka_check::Walk step(p);
    auto& s = step.s;
    REQUIRE(s.phase[group] == ka::kEvicted);
    CHECK(s.flavor[group] == 0);
    // Marked for a backoff by creation while its pods terminate.
    CHECK((s.requeued[group] == ka::kRequeuedInCreationOrder) ==
          (row.after == ka::kBackoff && !row.stamped));
    CHECK(step.rules.enabled(s, act(ka::kBackoffExpired, group)) == false);
    step(act(ka::kPodsTerminated, group));
    CHECK(s.phase[group] == row.after);
    CHECK(s.flavor[group] == -1);
    CHECK((s.requeued[group] >= 0) == row.stamped);
    if (row.after == ka::kBackoff) step(act(ka::kBackoffExpired, group));
    CHECK(s.phase[group] == ka::kPending);
  }
}

TEST_CASE("a dump's halfway eviction: a requeueAt ahead holds a Job back, whatever the reason",
          "[admission][dump][evicted-halfway]") {
  // The workload controller requeues at once only where no requeueAt is ahead
  // (the transition back to pending; RequeueAfter in Reconcile).
  for (const char* reason : {"Preempted", "ClusterQueueStopped", "NodeFailures"}) {
    auto sc = fixture();
    auto& w = workload(sc, "job");
    condition(w, "Evicted").reason = reason;
    w.requeue_at_s = kDumpTime + 60;
    const auto p = ka::compile_admission(sc);
    const int job = at(p, "job");
    INFO(reason);
    CHECK(p.workloads[job].initial_backoff);
    CHECK(p.workloads[job].evicted_at < 0);  // ordered by creation
    ka_check::Walk step(p);
    CHECK(step.s.phase[job] == ka::kBackoff);
    CHECK(step.s.flavor[job] == -1);
    step(act(ka::kBackoffExpired, job));
    CHECK(step.s.phase[job] == ka::kPending);
  }
}

TEST_CASE("a dump's halfway eviction of a Pod group that holds nothing by its pods",
          "[admission][dump][evicted-halfway]") {
  // Its job never started (not Admitted), or FastQuotaReleaseInPodIntegration
  // releases its quota without waiting for its pods: released at once.
  for (const bool fast : {false, true}) {
    auto sc = fixture();
    if (fast)
      sc.manager.configuration.feature_gates.gates["FastQuotaReleaseInPodIntegration"] = true;
    else
      condition(workload(sc, "group"), "Admitted").status = "False";
    const auto p = ka::compile_admission(sc);
    const int group = at(p, "group"), high = at(p, "high");
    INFO("fast quota release " << fast);
    ka_check::Walk step(p);
    auto& s = step.s;
    CHECK(s.phase[group] == ka::kPending);
    CHECK(s.flavor[group] == -1);
    step(kSchedule);  // high first, by priority, in the 2 cpu both evictions freed
    CHECK(s.phase[high] == ka::kAdmitted);
  }
}

TEST_CASE("a dump's halfway eviction is not a preemption of the run",
          "[admission][dump][evicted-halfway]") {
  // The guard some-preemption must not count group, Evicted from the start, nor
  // its return to its queue. Alone, it is admitted again once its pods are
  // gone, and nothing is ever preempted.
  auto sc = fixture();
  std::erase_if(sc.manager.workloads, [](const auto& w) { return w.meta.name != "group"; });
  sc.fleet.properties.clear();
  const auto p = ka::compile_admission(sc);
  REQUIRE(p.some_preemption_unchecked().empty());
  const auto out = check(p, {"some-preemption"});
  CHECK(out.result.verdict == Verdict::Violated);  // never witnessed
  CHECK(out.result.stats.states == 4);             // Evicted, Pending, Admitted, Finished
  // Admitted again, group may be preempted during the run with its Evicted phase
  // witnessing nothing: only a preemptor that sticks marks it. Under StrictFIFO
  // none does, and the guard is not checked.
  auto strict = fixture();
  strict.manager.cluster_queues[0].queueing_strategy = kmc::model::QueueingStrategy::StrictFIFO;
  const auto q = ka::compile_admission(strict);
  CHECK_THAT(q.some_preemption_unchecked(), Catch::Contains("dump shows evicted"));
}

TEST_CASE("a dump's halfway eviction: reclaimed while its preemptor borrowed",
          "[admission][dump][evicted-halfway][priority-sorting]") {
  // PrioritySortingWithinCohort off: a Pod group preempted with reason
  // InCohortReclaimWhileBorrowing waits from 1 ms after its preemption
  // (GetQueueOrderTimestamp), also when the dump caught its pods terminating.
  // Its pods' end returns it to its queue with that stamp (cell reclaimed),
  // here without any ClusterQueue that could reclaim so during the run.
  auto sc = fixture();
  sc.manager.configuration.feature_gates.gates["PrioritySortingWithinCohort"] = false;
  auto& w = workload(sc, "group");
  w.conditions.back().reason = "InCohortReclaimWhileBorrowing";
  REQUIRE(w.conditions.back().type == "Preempted");
  const auto p = ka::compile_admission(sc);
  REQUIRE_FALSE(p.victims_queue_from_preemption());
  CHECK(p.tracks_reclaimed());
  const int group = at(p, "group");
  CHECK(p.workloads[group].evicted_after);
  ka_check::Walk step(p);
  auto& s = step.s;
  CHECK(s.phase[group] == ka::kEvicted);
  CHECK(s.reclaimed[group] == 1);
  step(act(ka::kPodsTerminated, group));
  CHECK(s.phase[group] == ka::kPending);
  CHECK(s.requeued[group] >= 0);
  CHECK(s.reclaimed[group] == 0);
}

TEST_CASE("a dump's halfway eviction cannot arrive during the run",
          "[admission][dump][evicted-halfway]") {
  auto sc = fixture();
  sc.fleet.environment.arrivals = {"ns/job"};
  sc.fleet.environment.arrival_pos = {sc.fleet.pos};
  CHECK_THROWS_WITH(ka::compile_admission(sc), Catch::Contains("holds quota"));
}
