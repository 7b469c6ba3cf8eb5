// Model and engine agree step by step on two-phase admission and PodsReady timeouts: random walks
// of the kueue-admission model (ProvisioningRequest checks, Retry and backoff, Rejected,
// blockAdmission) replayed in the reference engine, which must follow every step and reach the same
// cells. The autoscaler may say anything (answer: Any), so the walks cover Provisioned, Failed and
// BookingExpired. With failed admission writes, the walks cover patches in flight meeting
// preemption, deletions, restarts and blockAdmission; with late ones, evictions they overwrite.
#include <catch2/catch.hpp>
#include <functional>
#include <optional>
#include <random>

#include "checker/result.hpp"
#include "counterexamples/kueue_admission/engine_replay.hpp"
#include "counterexamples/scenario_id.hpp"
#include "counterexamples/token.hpp"
#include "counterexamples/trace.hpp"
#include "model/scenario.hpp"
#include "protocols/kueue_admission/spec.hpp"

using namespace kmc;

namespace {

// `walks` random paths of up to `depth` steps; returns how many steps the engine followed.
struct Followed {
  std::size_t steps = 0;             // steps the engine followed
  std::size_t timeouts = 0;          // of them, PodsReadyTimeout
  std::size_t checks = 0;            // of them, the autoscaler's answers
  std::size_t failed = 0;            // of them, AdmissionWriteFailed
  std::size_t landed = 0;            // of them, AdmissionWritten
  std::size_t evictions_failed = 0;  // of them, EvictionWriteFailed
  std::size_t kubelets_lost = 0;     // of them, KubeletLost
  std::size_t pods_failed = 0;       // of them, PodFailed
  std::size_t edits = 0;             // of them, QueueEdited
  std::size_t stop_acted = 0;        // of them, QueueStopped
  std::size_t revoked = 0;           // of them, CapacityRevoked
  std::size_t finalized = 0;         // of them, ClusterQueueFinalized
  std::size_t overwritten = 0;       // of them, EvictionOverwritten
};

// The environment's budgets for the walks (kmc.yaml environment.podsReadyTimeouts,
// .admissionWriteFailures, .evictionWriteFailures), and
// requeuingStrategy.backoffLimitCount.
struct Budgets {
  int timeouts = 0;
  int write_failures = 0;
  int eviction_failures = 0;
  std::optional<int> backoff_limit = std::nullopt;
  bool block_admission = false;  // waitForPodsReady.blockAdmission forced on
  int stuck = -1;                // environment.stuckTerminating; -1: the example's
  int pod_failures = 0;          // environment.podFailures
  // environment.queueEdits: a queue ("namespace/name": a LocalQueue) and its new stopPolicy.
  std::vector<std::pair<const char*, model::StopPolicy>> edits = {};
  int revocations = 0;  // environment.capacityRevocations
  // environment.queueEdits of quotas, after the stopPolicy ones.
  std::vector<model::QueueEdit> quota_edits = {};
  int restarts = 0;        // environment.controllerRestarts, where not 0
  int late_writes = 0;     // environment.lateAdmissionWrites
  bool pre_11502 = false;  // the variant: an overwritten eviction's expectation stays
  std::function<void(model::Scenario&)> edit = nullptr;  // of the manifests, before compiling
};

// An edit of ClusterQueue cq's quota of `resource` in `flavor`: its nominal quota, and
// a lending limit (-1: removed, -2: left as it is).
model::QueueEdit quota_edit(const char* cq, const char* flavor, const char* resource,
                            std::optional<std::int64_t> nominal, std::int64_t lending = -2) {
  model::QueueEdit e;
  e.cluster_queue = cq;
  model::QuotaChange c;
  c.flavor = flavor, c.resource = resource;
  if (nominal) c.nominal_quota = model::Quantity::from_units(*nominal);
  if (lending == -1) c.lending_limit = std::optional<model::Quantity>{};
  if (lending >= 0)
    c.lending_limit = std::optional<model::Quantity>{model::Quantity::from_units(lending)};
  e.quotas.push_back(c);
  return e;
}

// One example's walks: its folder, the random seed, the budgets.
struct Case {
  const char* example;
  unsigned seed;
  Budgets budgets;
};

Followed walk_and_replay(const std::string& example, int walks, int depth, unsigned seed,
                         const Budgets& b = {}) {
  auto sc = model::load_scenario(KMC_SOURCE_DIR "/examples/" + example);
  // requeuingStrategy.backoffLimitCount, in the Configuration both read.
  if (b.backoff_limit)
    sc.manager.configuration.wait_for_pods_ready.backoff_limit_count = b.backoff_limit;
  if (b.block_admission) {
    sc.manager.configuration.wait_for_pods_ready.enable = true;
    sc.manager.configuration.wait_for_pods_ready.block_admission = true;
  }
  for (const auto& [queue, policy] : b.edits) {
    model::QueueEdit e;
    (std::string(queue).find('/') != std::string::npos ? e.local_queue : e.cluster_queue) = queue;
    e.stop_policy = policy;
    sc.fleet.environment.queue_edits.push_back(e);
  }
  for (const auto& e : b.quota_edits) sc.fleet.environment.queue_edits.push_back(e);
  if (b.edit) b.edit(sc);
  auto params = protocols::ka::compile_admission(sc);
  params.answer = model::AutoscalerAnswer::Any;
  params.pods_ready_timeouts = b.timeouts;
  params.admission_write_failures = b.write_failures;
  params.eviction_write_failures = b.eviction_failures;
  if (b.stuck >= 0) params.stuck_terminating = b.stuck;
  params.pod_failures = b.pod_failures;
  params.capacity_revocations = b.revocations;
  if (b.restarts != 0) params.controller_restarts = b.restarts;
  params.late_admission_writes = b.late_writes;
  params.satisfy_expectation_on_admission = !b.pre_11502;
  const protocols::ka::Instance inst(params);
  std::mt19937 rng(seed);
  Followed followed;
  std::vector<protocols::ka::Action> actions;
  for (int n = 0; n < walks; ++n) {
    checker::Path path;
    auto s = inst.init_states().front();
    for (int d = 0; d < depth; ++d) {
      actions.clear();
      inst.actions(s, actions);
      if (actions.empty()) break;
      const auto pick = static_cast<std::uint32_t>(rng() % actions.size());
      path.choices.push_back(pick);
      s = inst.next(s, actions[pick]);
    }
    cx::Trace t = cx::make_trace(inst, path);
    t.property = "no-over-admission";
    const std::string token = cx::format_token({cx::scenario_id(inst), t.property, -1, path});
    const auto r = cx::replay_in_engine(sc, params, t, token);
    INFO(example << " walk " << n << ": diverged at step " << r.step << " (" << r.action
                 << "): " << r.engine_did);
    std::string cells;
    for (const auto& d : r.difference) cells += "\n  " + d;
    std::string steps;
    for (const auto& st : t.steps) steps += "\n  " + st.action;
    INFO("trace:" << steps << "\ndiffering cells:" << cells);
    CHECK(r.difference.empty());
    CHECK(r.steps.size() == path.choices.size());
    followed.steps += r.steps.size();
    for (const auto& st : r.steps) {
      followed.timeouts += st.action.starts_with("PodsReadyTimeout");
      followed.checks += st.action.starts_with("Provision");
      followed.failed += st.action.starts_with("AdmissionWriteFailed");
      followed.landed += st.action.starts_with("AdmissionWritten");
      followed.evictions_failed += st.action.starts_with("EvictionWriteFailed");
      followed.kubelets_lost += st.action.starts_with("KubeletLost");
      followed.pods_failed += st.action.starts_with("PodFailed");
      followed.edits += st.action.starts_with("QueueEdited");
      followed.stop_acted += st.action.starts_with("QueueStopped");
      followed.revoked += st.action.starts_with("CapacityRevoked");
      followed.finalized += st.action.starts_with("ClusterQueueFinalized");
      followed.overwritten += st.action.starts_with("EvictionOverwritten");
    }
  }
  return followed;
}

}  // namespace

TEST_CASE("random walks of two-phase admission replay step by step in the engine",
          "[replay][admission][checks]") {
  auto f = walk_and_replay("provisioning-accept-then-hang-fixed", 60, 14, 7);
  CHECK(f.steps > 300);
  CHECK(f.checks > 50);
  CHECK(walk_and_replay("provisioning-block-admission", 60, 14, 11).checks > 30);
  CHECK(walk_and_replay("provisioning-block-admission-fixed", 60, 14, 13).checks > 50);
}

TEST_CASE("random walks with PodsReady timeouts replay step by step in the engine",
          "[replay][admission][pods-ready]") {
  for (const auto& [example, seed] : {std::pair{"provisioning-accept-then-hang-fixed", 17u},
                                      {"cohort-shared-victim", 19u},
                                      {"late-arrivals-reclaim", 23u},
                                      {"drs-rounding-fixed", 29u},
                                      // blockAdmission: late pods keep the scheduler asleep
                                      {"provisioning-block-admission", 47u},
                                      {"provisioning-block-admission-fixed", 53u}}) {
    INFO(example);
    const auto f = walk_and_replay(example, 60, 16, seed, {.timeouts = 2});
    CHECK(f.steps > 300);
    CHECK(f.timeouts > 20);
  }
}

TEST_CASE("random walks with failed admission writes replay step by step in the engine",
          "[replay][admission][write-failures]") {
  // Preemption of a workload whose patch is in flight, deletions and restarts
  // meeting one, blockAdmission waiting on one, and PodsReady timeouts after
  // one.
  for (const auto& c :
       {Case{"cohort-shared-victim", 31u, {.timeouts = 1, .write_failures = 2}},
        Case{"zombie-pod-readopted", 37u, {.write_failures = 2}},
        Case{"provisioning-block-admission-fixed", 41u, {.timeouts = 1, .write_failures = 2}},
        Case{"preemption-grace-hol", 43u, {.timeouts = 1, .write_failures = 2}}}) {
    INFO(c.example);
    const auto f = walk_and_replay(c.example, 60, 16, c.seed, c.budgets);
    CHECK(f.steps > 300);
    CHECK(f.failed > 20);
    CHECK(f.landed > 20);
  }
}

TEST_CASE("random walks with PodsReady timeouts of pod groups replay step by step in the engine",
          "[replay][admission][pods-ready][pod-group]") {
  // The sweeps are pod groups: a timeout leaves their pods terminating (or
  // stuck), holding quota, before the backoff or, past backoffLimitCount 0, the
  // deactivation.
  for (const auto& [example, seed] :
       {std::pair{"zombie-pod", 59u}, {"zombie-pod-fixed", 61u}, {"zombie-pod-readopted", 67u}}) {
    for (const std::optional<int> limit : {std::optional<int>{}, std::optional<int>{0}}) {
      INFO(example << (limit ? " backoffLimitCount 0" : ""));
      const auto f =
          walk_and_replay(example, 60, 16, seed, {.timeouts = 2, .backoff_limit = limit});
      CHECK(f.steps > 300);
      CHECK(f.timeouts > 20);
    }
  }
}

TEST_CASE("random walks with failed eviction writes replay step by step in the engine",
          "[replay][admission][eviction-failures]") {
  // A victim whose eviction patch failed keeps running; its preemptor is
  // requeued at once, sticky only if another of its evictions went through.
  // Shared victims, pod groups that stay evicted while their pods terminate,
  // preemption across a cohort, and admission patches failing too.
  for (const auto& c : {Case{"cohort-shared-victim", 71u, {.eviction_failures = 2}},
                        Case{"zombie-pod", 73u, {.eviction_failures = 2}},
                        Case{"cohort-preemption-hol", 79u, {.eviction_failures = 2}},
                        Case{"preemption-grace-hol",
                             83u,
                             {.timeouts = 1, .write_failures = 1, .eviction_failures = 2}}}) {
    INFO(c.example);
    const auto f = walk_and_replay(c.example, 60, 16, c.seed, c.budgets);
    CHECK(f.steps > 300);
    CHECK(f.evictions_failed > 10);
  }
}

TEST_CASE("random walks of blockAdmission with pods stuck terminating replay in the engine",
          "[replay][admission][block-admission][pod-group]") {
  // A victim whose kubelet is lost has its pods marked NotReady: while the
  // cache holds it, blockAdmission keeps every queue's Fit admission waiting.
  for (const auto& [example, seed] : {std::pair{"zombie-pod", 89u},
                                      {"zombie-pod-fixed", 97u},
                                      {"zombie-pod-readopted", 101u},
                                      {"preemption-grace-hol", 103u},
                                      {"cohort-preemption-hol", 107u},
                                      {"late-arrivals-reclaim", 109u}}) {
    INFO(example);
    const auto f = walk_and_replay(example, 60, 16, seed, {.block_admission = true, .stuck = 1});
    CHECK(f.steps > 300);
    CHECK(f.kubelets_lost > 4);  // a lost kubelet needs a preemption first
  }
}

TEST_CASE("random walks of blockAdmission with failing pods replay in the engine",
          "[replay][admission][block-admission][pod-failures]") {
  // A ready job's pod fails: the scheduler waits for its recovery, or
  // recoveryTimeout evicts it; with late pods, stuck victims and checks too.
  for (const auto& c :
       {Case{"provisioning-block-admission-fixed", 113u, {.timeouts = 1, .pod_failures = 2}},
        Case{"preemption-grace-hol",
             127u,
             {.timeouts = 1, .block_admission = true, .stuck = 1, .pod_failures = 2}},
        Case{"zombie-pod-fixed", 131u, {.block_admission = true, .pod_failures = 2}}}) {
    INFO(c.example);
    const auto f = walk_and_replay(c.example, 60, 16, c.seed, c.budgets);
    CHECK(f.steps > 300);
    CHECK(f.pods_failed > 10);
  }
}

TEST_CASE("random walks with stopped queues replay step by step in the engine",
          "[replay][admission][stop-policy]") {
  using model::StopPolicy;
  const std::vector<std::pair<const char*, StopPolicy>> cohort = {
      {"batch", StopPolicy::HoldAndDrain}, {"team-a", StopPolicy::Hold},
      {"batch", StopPolicy::None},         {"research/team-b", StopPolicy::HoldAndDrain},
      {"team-a", StopPolicy::None},        {"research/team-b", StopPolicy::None}};
  const std::vector<std::pair<const char*, StopPolicy>> checks = {
      {"gpu", StopPolicy::Hold},
      {"research/gpu", StopPolicy::HoldAndDrain},
      {"gpu", StopPolicy::None},
      {"research/gpu", StopPolicy::None}};
  const Case cases[] = {
      // Pod groups drained and holding quota while their pods terminate, in a cohort.
      {"late-arrivals-reclaim", 61, {.edits = cohort}},
      {"late-arrivals-reclaim", 67, {.stuck = 1, .edits = cohort}},
      // Reservations waiting for their checks, unset by Hold; blockAdmission.
      {"provisioning-accept-then-hang-fixed", 71, {.edits = checks}},
      {"provisioning-block-admission", 73, {.edits = checks}},
      {"cohort-shared-victim",
       79,
       {.edits = {{"beta", StopPolicy::HoldAndDrain},
                  {"alpha", StopPolicy::Hold},
                  {"beta", StopPolicy::None},
                  {"alpha", StopPolicy::None}}}},
  };
  std::size_t edits = 0, acted = 0;
  for (const Case& c : cases) {
    INFO(c.example);
    const auto f = walk_and_replay(c.example, 80, 18, c.seed, c.budgets);
    CHECK(f.steps > 400);
    edits += f.edits, acted += f.stop_acted;
  }
  CHECK(edits > 200);
  CHECK(acted > 50);
}

TEST_CASE("random walks with revoked capacity replay step by step in the engine",
          "[replay][admission][revocations]") {
  const Case cases[] = {
      {"provisioning-accept-then-hang-fixed", 83, {.revocations = 2}},
      {"provisioning-block-admission", 89, {.revocations = 2}},
      {"provisioning-block-admission-fixed", 97, {.timeouts = 1, .revocations = 2}},
  };
  std::size_t revoked = 0;
  for (const Case& c : cases) {
    INFO(c.example);
    const auto f = walk_and_replay(c.example, 80, 16, c.seed, c.budgets);
    CHECK(f.steps > 400);
    revoked += f.revoked;
  }
  CHECK(revoked > 40);
}

TEST_CASE("random walks with quota edits replay step by step in the engine",
          "[replay][admission][quota-edits]") {
  // Quotas shrinking below usage and raised again, lending limits set and
  // removed: the cohort tree recomputed, reclaims under the new quotas, fair
  // sharing's DRS against them, reservations waiting for their checks.
  const auto gpu = [](const char* cq, std::optional<std::int64_t> q, std::int64_t lending = -2) {
    return quota_edit(cq, "h100", "nvidia.com/gpu", q, lending);
  };
  const auto cpu = [](const char* cq, std::optional<std::int64_t> q, std::int64_t lending = -2) {
    return quota_edit(cq, "default", "cpu", q, lending);
  };
  const Case cases[] = {
      {"late-arrivals-reclaim",
       101,
       {.quota_edits = {gpu("team-a", 4), gpu("batch", 4), gpu("team-b", std::nullopt, 4),
                        gpu("team-a", 8), gpu("team-b", std::nullopt, -1), gpu("batch", 0)}}},
      {"late-arrivals-reclaim",
       103,
       {.stuck = 1, .quota_edits = {gpu("team-b", 0), gpu("batch", 8), gpu("team-b", 8)}}},
      {"cohort-shared-victim",
       107,
       {.quota_edits = {cpu("alpha", 1), cpu("beta", 3, 1), cpu("gamma", 1), cpu("alpha", 2),
                        cpu("beta", std::nullopt, -1)}}},
      {"drs-rounding-fixed",
       109,
       {.quota_edits = {gpu("production", 500), gpu("research", 1000), gpu("production", 1000)}}},
      {"provisioning-accept-then-hang-fixed",
       113,
       {.quota_edits = {gpu("gpu", 4), gpu("gpu", 16), gpu("gpu", 0)}}},
  };
  std::size_t edits = 0;
  for (const Case& c : cases) {
    INFO(c.example);
    const auto f = walk_and_replay(c.example, 80, 18, c.seed, c.budgets);
    CHECK(f.steps > 400);
    edits += f.edits;
  }
  CHECK(edits > 200);
}

TEST_CASE("random walks with ClusterQueue and Cohort deletions replay step by step in the engine",
          "[replay][admission][cq-deletion]") {
  // A ClusterQueue deleted while its workloads run and wait: terminating
  // (inactive, its quota still its cohort's), then gone once nothing holds
  // quota in it, the cohort left with less; with quota edits, stuck pods and
  // admission checks around it.
  const auto del = [](const char* cq) {
    model::QueueEdit e;
    e.cluster_queue = cq;
    e.deletes = true;
    return e;
  };
  const auto gpu = [](const char* cq, std::int64_t q) {
    return quota_edit(cq, "h100", "nvidia.com/gpu", q);
  };
  const auto del_cohort = [](const char* cohort) {
    model::QueueEdit e;
    e.cohort = cohort;
    e.deletes = true;
    return e;
  };
  const Case cases[] = {
      {"late-arrivals-reclaim", 201, {.quota_edits = {del("batch"), gpu("team-a", 4)}}},
      {"late-arrivals-reclaim",
       203,
       {.stuck = 1, .quota_edits = {gpu("team-b", 0), del("team-b")}}},
      {"cohort-shared-victim", 207, {.quota_edits = {del("gamma"), del("alpha")}}},
      {"drs-rounding-fixed", 209, {.quota_edits = {del("research")}}},
      {"provisioning-accept-then-hang-fixed", 211, {.quota_edits = {del("gpu")}}},
      // Cohorts (at once, no finalizer): their quota gone, nothing requeued.
      {"late-arrivals-reclaim", 213, {.quota_edits = {del_cohort("gpu-pool"), del("batch")}}},
      {"drs-rounding-fixed", 217, {.quota_edits = {gpu("production", 500), del_cohort("fleet")}}},
      // A restart's cache has a terminating ClusterQueue active until it is reconciled again.
      {"late-arrivals-reclaim", 219, {.quota_edits = {del("team-a"), del("batch")}, .restarts = 2}},
  };
  std::size_t finalized = 0;
  for (const Case& c : cases) {
    INFO(c.example);
    const auto f = walk_and_replay(c.example, 80, 18, c.seed, c.budgets);
    CHECK(f.steps > 300);  // walks end early once the only ClusterQueue is gone
    finalized += f.finalized;
  }
  CHECK(finalized > 100);
}

TEST_CASE("random walks with late admission writes replay step by step in the engine",
          "[replay][admission][late-writes]") {
  // Evictions overwritten by a late admission patch (kueue#11480), before and
  // after #11502, meeting restarts, failed writes and other preemptions.
  for (const auto& c :
       {Case{"admission-patch-race", 59u, {.restarts = 1, .late_writes = 2, .pre_11502 = true}},
        Case{"admission-patch-race-fixed", 61u, {.write_failures = 1, .late_writes = 2}},
        Case{"late-arrivals-reclaim", 67u, {.timeouts = 1, .late_writes = 2, .pre_11502 = true}},
        Case{"preemption-livelock", 71u, {.late_writes = 2}}}) {
    INFO(c.example);
    // An overwrite needs a cycle to preempt the one workload whose patch is
    // in flight: rarer than other faults, hence more walks.
    const auto f = walk_and_replay(c.example, 150, 16, c.seed, c.budgets);
    CHECK(f.steps > 700);
    CHECK(f.landed > 50);
    CHECK(f.overwritten > 3);
  }
}

TEST_CASE("random walks with a ClusterQueue's namespaceSelector replay step by step in the engine",
          "[replay][admission][namespaces]") {
  // cohort-shared-victim with beta-high moved to namespace "other", which beta's
  // namespaceSelector leaves out: popped, it is parked (NamespaceMismatch) in
  // either queueing strategy, and requeued with its tree.
  for (const bool strict : {false, true}) {
    INFO("StrictFIFO " << strict);
    const auto edit = [strict](model::Scenario& sc) {
      auto& m = sc.manager;
      for (auto& q : m.cluster_queues)
        if (q.meta.name == "beta") {
          q.namespace_selector.match_labels["kubernetes.io/metadata.name"] = "default";
          if (strict) q.queueing_strategy = model::QueueingStrategy::StrictFIFO;
        }
      for (auto& w : m.workloads)
        if (w.meta.name == "beta-high") w.meta.namespace_ = "other";
      model::LocalQueue lq = *m.find_local_queue("default", "beta");
      lq.meta.namespace_ = "other";
      m.local_queues.push_back(lq);
    };
    const auto f = walk_and_replay("cohort-shared-victim", 60, 16, strict ? 229u : 233u,
                                   {.write_failures = 1, .edit = edit});
    CHECK(f.steps > 300);
  }
}
