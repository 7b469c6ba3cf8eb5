// MultiKueue in one engine (kueue-semantics.md §6): a manager and workers
// with their own queues; first admitted copy wins, re-dispatch on Retry,
// workerLostTimeout, Incremental rounds.
#include "engine/multikueue.hpp"

#include <catch2/catch.hpp>

#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;
namespace model = kmc::model;

namespace {

// Manager: CQ "main" (10 cpu) with the MultiKueue check "mk" over `clusters`.
Cluster manager(const std::vector<std::string>& clusters) {
  Cluster c;
  c.flavor("default");
  c.cq("main", "", {group({"cpu"}, {{"default", {{"cpu", 10}}}})})
      .admission_checks.push_back({"mk", {}});
  model::AdmissionCheck ac;
  ac.meta.name = "mk";
  ac.controller_name = model::kMultiKueueController;
  ac.parameters.name = "cfg";
  c.m.admission_checks.push_back(ac);
  model::MultiKueueConfig cfg;
  cfg.meta.name = "cfg";
  cfg.clusters = clusters;
  c.m.multikueue_configs.push_back(cfg);
  return c;
}

// Worker: CQ "main" (4 cpu), preempting lower priorities; optionally busy with a
// local job of `busy_s` seconds (0: none, -1: forever).
std::pair<std::string, model::ClusterManifests> worker(const std::string& name,
                                                       std::int64_t busy_s) {
  Cluster c;
  c.flavor("default");
  c.cq("main", "", {group({"cpu"}, {{"default", {{"cpu", 4}}}})}).preemption.within_cluster_queue =
      model::WithinClusterQueuePolicy::LowerPriority;
  if (busy_s != 0)
    c.wl("local-" + name, "main", 0, {{"cpu", 4}}).runtime_s = busy_s > 0 ? busy_s : 0;
  return {name, c.m};
}

model::Workload job(const std::string& name, std::int64_t runtime_s) {
  model::Workload w = make_workload(name, "main", 0, {{"cpu", 4}});
  w.runtime_s = runtime_s;
  return w;
}

const model::AdmissionCheckState& mk_state(const Fleet& f, const std::string& name) {
  return f.manager.find("ns/" + name)->obj.admission_checks.at(0);
}

bool has_remote(Fleet& f, const std::string& cluster, const std::string& name) {
  const WorkloadInfo* r = f.worker(cluster).find("ns/" + name);
  return r != nullptr && !r->deleted;
}

// train runs on w2 when the manager loses w2, at 10 s; workerLostTimeout is 60 s and w1 is busy
// for `w1_busy_s` (worker()). `mirror_status`: MultiKueueBatchJobWithManagedBy.
Fleet lost_on_w2(std::int64_t w1_busy_s, bool mirror_status = true) {
  Cluster m = manager({"w1", "w2"});
  m.m.configuration.multi_kueue.worker_lost_timeout_s = 60;
  m.m.configuration.feature_gates.gates["MultiKueueBatchJobWithManagedBy"] = mirror_status;
  Fleet f(m.m, {worker("w1", w1_busy_s), worker("w2", 0)});
  f.create_workload(job("train", 1000));
  f.run(f.now());
  REQUIRE(f.manager.find("ns/train")->obj.cluster_name == "w2");
  f.post_connection(f.now() + 10000, {"w2", false});
  return f;
}

// An idle worker whose ClusterQueue also has an admission check "gate" of its own, which the
// test answers (ev::AdmissionCheckUpdate on the worker).
std::pair<std::string, model::ClusterManifests> gated_worker(const std::string& name) {
  auto w = worker(name, 0);
  w.second.cluster_queues.at(0).admission_checks.push_back({"gate", {}});
  model::AdmissionCheck gate;
  gate.meta.name = "gate";
  gate.controller_name = "example.com/gate";
  w.second.admission_checks.push_back(gate);
  return w;
}

}  // namespace

TEST_CASE("multikueue: AllAtOnce copies to every worker; the first admitted copy wins",
          "[engine][multikueue]") {
  // w1 is busy for 10 s, w2 for 5 s: the copy on w2 is admitted first, at 6 s
  // (the worker's parked workloads are requeued 1 s after quota is released).
  Fleet f(manager({"w1", "w2"}).m, {worker("w1", 10), worker("w2", 5)});
  const TimeMs t0 = f.now();
  f.create_workload(job("train", 100));
  f.run(t0);
  CHECK(state_of(f.manager, "train") == "QuotaReserved");
  CHECK(mk_state(f, "train").state == model::CheckState::Pending);
  CHECK(f.manager.find("ns/train")->obj.nominated_cluster_names ==
        std::vector<std::string>{"w1", "w2"});
  CHECK(has_remote(f, "w1", "train"));
  CHECK(has_remote(f, "w2", "train"));
  f.run(t0 + 5999);
  CHECK(state_of(f.worker("w2"), "train") == "Pending");
  f.run(t0 + 6000);
  CHECK(state_of(f.worker("w2"), "train") == "Admitted");
  CHECK(mk_state(f, "train").state == model::CheckState::Ready);
  CHECK(f.manager.find("ns/train")->obj.cluster_name == "w2");
  CHECK(state_of(f.manager, "train") == "Admitted");
  CHECK_FALSE(has_remote(f, "w1", "train"));  // the loser is deleted before w1 frees up
  f.run(t0 + 20000);
  CHECK_FALSE(has_remote(f, "w1", "train"));
  // The remote job's end finishes the local workload; then the remotes are deleted.
  f.run(t0 + 105999);
  CHECK(state_of(f.manager, "train") == "Admitted");
  f.run(t0 + 106000);
  CHECK(state_of(f.manager, "train") == "Finished");
  CHECK_FALSE(has_remote(f, "w2", "train"));
}

TEST_CASE("multikueue: the selected copy evicted on its worker re-dispatches",
          "[engine][multikueue]") {
  // w1 is busy for 30 s; the copy runs on w2 until a higher-priority local job preempts it.
  Fleet f(manager({"w1", "w2"}).m, {worker("w1", 30), worker("w2", 0)});
  const TimeMs t0 = f.now();
  f.create_workload(job("train", 1000));
  f.run(t0);
  REQUIRE(f.manager.find("ns/train")->obj.cluster_name == "w2");
  model::Workload urgent = make_workload("urgent", "main", 100, {{"cpu", 4}});
  f.worker("w2").post(t0 + 10000, ev::WorkloadCreated{urgent});
  f.run(t0 + 10000);
  CHECK(state_of(f.worker("w2"), "urgent") == "Admitted");
  // Check Retry -> local evicted, quota released, remotes deleted, requeued and copied again.
  CHECK(mk_state(f, "train").retry_count == 1);
  CHECK(state_of(f.manager, "train") == "QuotaReserved");
  CHECK(mk_state(f, "train").state == model::CheckState::Pending);
  CHECK(f.manager.find("ns/train")->obj.cluster_name.empty());
  CHECK(has_remote(f, "w1", "train"));
  f.run(t0 + 31000);  // w1 frees up at 30 s; its parked copy is requeued 1 s later
  CHECK(f.manager.find("ns/train")->obj.cluster_name == "w1");
  CHECK(state_of(f.manager, "train") == "Admitted");
  CHECK(state_of(f.worker("w1"), "train") == "Admitted");
  CHECK_FALSE(has_remote(f, "w2", "train"));
}

TEST_CASE("multikueue: a job lost while running keeps the manager's quota until its worker is back",
          "[engine][multikueue]") {
  // MultiKueueBatchJobWithManagedBy (GA): the manager's Job mirrors w2's, whose pods run when the
  // connection drops, so the eviction after workerLostTimeout keeps the reservation
  // (jobframework: released only once the Job reads inactive). w1 is busy for good, so the copy
  // the evicted workload is dispatched to there is never admitted.
  Fleet f = lost_on_w2(-1);
  const TimeMs t0 = f.now();
  f.run(t0 + 69000);
  CHECK(mk_state(f, "train").state == model::CheckState::Ready);  // still within the timeout
  f.run(t0 + 200000);
  const WorkloadInfo* local = f.manager.find("ns/train");
  CHECK(mk_state(f, "train").retry_count == 1);
  CHECK(local->is_evicted());
  CHECK(local->has_quota_reservation());
  CHECK(local->obj.cluster_name.empty());
  // The eviction reset the check to Pending and cleared clusterName, so step 8 dispatched the
  // evicted workload again (ShouldSkipClusterNomination); w1 has no room for the copy.
  CHECK(state_of(f.worker("w1"), "train") == "Pending");
  CHECK(state_of(f.worker("w2"), "train") == "Admitted");
  // w2 back: its copy is deactivated, the Job reads inactive, the quota goes (step 2 deletes the
  // copy on w1 with it), and the job is dispatched again: w2 admits it at once.
  f.post_connection(t0 + 300000, {"w2", true});
  f.run(t0 + 400000);
  CHECK(f.manager.find("ns/train")->obj.cluster_name == "w2");
  CHECK(state_of(f.worker("w2"), "train") == "Admitted");
  CHECK(state_of(f.worker("w1"), "train") == "Pending");  // AllAtOnce: created again, then lost
}

TEST_CASE("multikueue: a job lost for good gets its quota back once another worker admits a copy",
          "[engine][multikueue]") {
  // Kueue's way out for an evicted workload holding its quota on a Job mirrored as active
  // (workload.go): dispatched again, its copy admitted on w1 gets DeactivationTarget
  // (EvictedOnManagerCluster, step 6b); step 4's SyncJob creates the Job there suspended and
  // mirrors it, so the manager's Job reads inactive and the reservation goes. The job is then
  // dispatched once more and runs on w1, while w2, never seen again, runs it too.
  Fleet f = lost_on_w2(5);
  f.run(f.now() + 200000);
  const WorkloadInfo* local = f.manager.find("ns/train");
  CHECK_FALSE(local->is_evicted());
  CHECK(local->obj.cluster_name == "w1");
  CHECK(local->mirrored_from == "w1");  // the manager's Job mirrors w1's now
  CHECK(state_of(f.manager, "train") == "Admitted");
  CHECK(state_of(f.worker("w1"), "train") == "Admitted");
  CHECK(state_of(f.worker("w2"), "train") == "Admitted");  // behind the partition, for good
}

TEST_CASE("multikueue: before v0.15 workerLostTimeout re-dispatches away from a lost worker",
          "[engine][multikueue]") {
  // MultiKueueBatchJobWithManagedBy off: the manager's Job stays suspended and reads inactive,
  // so the eviction releases the quota at once.
  Fleet f = lost_on_w2(5, /*mirror_status=*/false);
  f.run(f.now() + 70000);
  CHECK(mk_state(f, "train").retry_count == 1);
  CHECK(f.manager.find("ns/train")->obj.cluster_name == "w1");
  // The lost worker keeps running its copy: nothing reached it (the duplicate run).
  CHECK(state_of(f.worker("w2"), "train") == "Admitted");
}

TEST_CASE("multikueue: Incremental nominates stepSize clusters per 5-minute round",
          "[engine][multikueue]") {
  Cluster m = manager({"w1", "w2", "w3"});
  m.m.configuration.multi_kueue.dispatcher_name = model::kDispatcherIncremental;
  m.m.configuration.multi_kueue.incremental_step_size = 1;
  Fleet f(m.m, {worker("w1", -1), worker("w2", 0), worker("w3", 0)});
  const TimeMs t0 = f.now();
  f.create_workload(job("train", 1000));
  f.run(t0 + 299000);
  CHECK(f.manager.find("ns/train")->obj.nominated_cluster_names == std::vector<std::string>{"w1"});
  CHECK(state_of(f.worker("w1"), "train") == "Pending");
  CHECK_FALSE(has_remote(f, "w2", "train"));
  f.run(t0 + 300000);
  CHECK(f.manager.find("ns/train")->obj.cluster_name == "w2");
  CHECK_FALSE(has_remote(f, "w1", "train"));
  CHECK_FALSE(has_remote(f, "w3", "train"));
}

// getNextNominatedWorkers: without MultiKueueIncrementalDispatcherRespectConfigOrder the
// clusters left go in name order; without MultiKueueIncrementalDispatcherConfig the step is
// DefaultStepSize, 3, whatever the Configuration says.
TEST_CASE("multikueue: Incremental's order and step without their feature gates",
          "[engine][multikueue]") {
  using Names = std::vector<std::string>;
  for (const bool order : {true, false}) {
    DYNAMIC_SECTION("RespectConfigOrder " << order) {
      Cluster m = manager({"zeta", "alpha", "mid", "beta"});
      m.m.configuration.multi_kueue.dispatcher_name = model::kDispatcherIncremental;
      m.m.configuration.multi_kueue.incremental_step_size = 1;
      m.m.configuration.feature_gates.gates["MultiKueueIncrementalDispatcherRespectConfigOrder"] =
          order;
      Fleet f(m.m,
              {worker("zeta", -1), worker("alpha", -1), worker("mid", -1), worker("beta", -1)});
      f.create_workload(job("train", 1000));
      f.run(f.now() + 1000);
      CHECK(f.manager.find("ns/train")->obj.nominated_cluster_names ==
            (order ? Names{"zeta"} : Names{"alpha"}));
    }
  }
  Cluster m = manager({"w1", "w2", "w3", "w4"});
  m.m.configuration.multi_kueue.dispatcher_name = model::kDispatcherIncremental;
  m.m.configuration.multi_kueue.incremental_step_size = 1;
  m.m.configuration.feature_gates.gates["MultiKueueIncrementalDispatcherConfig"] = false;
  Fleet f(m.m, {worker("w1", -1), worker("w2", -1), worker("w3", -1), worker("w4", -1)});
  f.create_workload(job("train", 1000));
  f.run(f.now() + 1000);
  CHECK(f.manager.find("ns/train")->obj.nominated_cluster_names == Names{"w1", "w2", "w3"});
}

TEST_CASE("multikueue: a copy its worker deactivated is deleted and created again",
          "[engine][multikueue]") {
  // w1's ClusterQueue has an admission check of its own, which rejects the copy, so w1 deactivates
  // it. Its spec then differs from the manager's (spec.active): reconcileGroup step 5 deletes it,
  // and step 8 creates it again on w1, still nominated. w2 stays busy.
  auto w1 = gated_worker("w1");
  Fleet f(manager({"w1", "w2"}).m, {w1, worker("w2", -1)});
  const TimeMs t0 = f.now();
  f.create_workload(job("train", 100));
  f.run(t0);
  REQUIRE(state_of(f.worker("w1"), "train") == "QuotaReserved");
  f.worker("w1").post(t0 + 1000,
                      ev::AdmissionCheckUpdate{"ns/train", "gate", model::CheckState::Rejected,
                                               std::nullopt, "no capacity"});
  f.run(t0 + 1000);
  auto logged = [&](const std::string& text) {
    return std::any_of(f.manager.log.begin(), f.manager.log.end(),
                       [&](const EngineLogLine& l) { return l.text == text; });
  };
  CHECK(logged("ns/train: remote on w1 deleted"));
  const WorkloadInfo* again = f.worker("w1").find("ns/train");
  REQUIRE(again != nullptr);
  CHECK_FALSE(again->deleted);
  CHECK(again->obj.active);
  CHECK(state_of(f.worker("w1"), "train") == "QuotaReserved");  // a new copy, its check Pending
  CHECK(state_of(f.manager, "train") == "QuotaReserved");
  CHECK(has_remote(f, "w2", "train"));
}

TEST_CASE("multikueue: before #8477 a deactivated selected copy goes Retry after workerLostTimeout",
          "[engine][multikueue]") {
  // The copy is selected on w1, then its check there is Rejected: w1 deactivates it, step 5
  // deletes it, and with no copy Admitted Kueue before #8477 waited workerLostTimeout from the
  // check's lastTransitionTime ("Reserving remote lost") before Retry.
  Cluster m = manager({"w1", "w2"});
  m.m.configuration.multi_kueue.worker_lost_timeout_s = 60;
  m.m.configuration.feature_gates.gates["MultiKueueRedoAdmissionOnEvictionInWorker"] = false;
  auto w1 = gated_worker("w1");
  Fleet f(m.m, {w1, worker("w2", -1)});
  const TimeMs t0 = f.now();
  f.create_workload(job("train", 1000));
  f.run(t0);
  f.worker("w1").post(t0 + 1000,
                      ev::AdmissionCheckUpdate{"ns/train", "gate", model::CheckState::Ready,
                                               std::nullopt, "provisioned"});
  f.run(t0 + 1000);
  REQUIRE(f.manager.find("ns/train")->obj.cluster_name == "w1");
  REQUIRE(mk_state(f, "train").state == model::CheckState::Ready);
  f.worker("w1").post(t0 + 2000,
                      ev::AdmissionCheckUpdate{"ns/train", "gate", model::CheckState::Rejected,
                                               std::nullopt, "capacity revoked"});
  auto retried_at = [&]() -> TimeMs {
    for (const auto& l : f.manager.log)
      if (l.text == "ns/train check mk -> Retry") return l.at - t0;
    return -1;
  };
  f.run(t0 + 60'999);
  CHECK_FALSE(has_remote(f, "w1", "train"));  // deleted, out of sync
  CHECK(mk_state(f, "train").state == model::CheckState::Ready);
  CHECK(retried_at() == -1);
  f.run(t0 + 61'000);
  CHECK(retried_at() == 61'000);  // then evicted, requeued and dispatched again at once
  CHECK(f.manager.find("ns/train")->condition("Evicted") != nullptr);
}
