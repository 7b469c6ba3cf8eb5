// Queues created during the run, as a user meets them: kmc.yaml
// environment.queueEdits with `{clusterQueue: NAME, create: true}` or
// `{localQueue: NS/NAME, create: true}`. Until then the queue is absent: a
// ClusterQueue's quota is in no cohort, and the workloads of a missing queue
// are in no heap; its creation brings its manifest's quotas and stopPolicy.
#include <catch2/catch.hpp>
#include <fstream>

#include "cli/fleet_refused.hpp"

namespace {

// cluster-queue-delete-borrower with its edit replaced, and `extra` appended.
// Its pool: team-a and team-b of 8 GPUs each and batch of 0 in one cohort; the
// sweep (batch, 16 GPUs) waits from the start, the teams' jobs arrive later.
std::string with_edit(const std::string& edit, const std::string& extra = "") {
  return example_text_replacing("cluster-queue-delete-borrower", "kmc.yaml",
                                "    - clusterQueue: batch\n      delete: true\n", edit) +
         extra;
}

const std::string kSweepNeverAdmitted =
    "properties:\n"
    "  - name: sweep-never-admitted\n"
    "    always: 'phase[\"research/sweep\"] != Admitted'\n";

}  // namespace

TEST_CASE("queue creation: a ClusterQueue's quota joins its cohort when it is created",
          "[cli][admission][queue-creation]") {
  // Without team-b the pool has 8 GPUs and the sweep, which needs 16, cannot
  // borrow them: it is admitted only after the creation. The engine agrees.
  const std::string create = "    - {clusterQueue: team-b, create: true}\n";
  auto r = kmc("check " +
               example_with("cluster-queue-delete-borrower", "kmc.yaml",
                            with_edit(create, kSweepNeverAdmitted)) +
               " --property sweep-never-admitted --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "State 1: <QueueEdited> ClusterQueue team-b created"));
  CHECK(has(r.out, "State 2: <Schedule>"));
  CHECK(has(r.out, "ClusterQueue team-b created: "));
  CHECK(has(r.out, "Reproduced in the engine"));
  // Every default property, and the guarantee: train-b is owed nothing while its
  // queue is missing (the operator may never create it), and once it is, the
  // team reclaims its quota from the sweep.
  r = kmc("check " + example_with("cluster-queue-delete-borrower", "kmc.yaml", with_edit(create)));
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "guarantee-eventually-admitted  Verified"));
}

TEST_CASE("queue creation: a LocalQueue's workloads are queued when it is created",
          "[cli][admission][queue-creation]") {
  // The sweep's LocalQueue is missing: the sweep waits in no queue, so the
  // teams' jobs go first whatever their arrival; then the LocalQueue is created.
  const std::string property =
      "properties:\n"
      "  - name: sweep-waits-alone\n"
      "    always: '!(phase[\"research/sweep\"] == Admitted && budget[queueEdits] == 0)'\n";
  auto r =
      kmc("check " +
          example_with("cluster-queue-delete-borrower", "kmc.yaml",
                       with_edit("    - {localQueue: research/batch, create: true}\n", property)) +
          " --property sweep-waits-alone --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "State 1: <QueueEdited> LocalQueue research/batch created"));
  CHECK(has(r.out, "LocalQueue research/batch created: "));
  CHECK(has(r.out, "Reproduced in the engine"));
}

TEST_CASE("queue creation: bad creations are exit 3 at their line",
          "[cli][admission][queue-creation]") {
  auto refused = [](const std::string& edit, const std::string& field, const std::string& what) {
    fleet_refused("cluster-queue-delete-borrower", with_edit(edit), field, what);
  };
  refused("    - {clusterQueue: team-b, create: true, stopPolicy: Hold}\n", "create",
          "a creation is an edit of its own");
  refused(
      "    - {cohort: gpu-pool, create: true, quotas: [{flavor: h100, resource: "
      "nvidia.com/gpu, nominalQuota: 8}]}\n",
      "create", "a creation is an edit of its own");
  refused("    - {cohort: nosuch, create: true}\n", "environment.queueEdits[0].cohort",
          "no Cohort nosuch");
  refused(
      "    - {cohort: gpu-pool, delete: true}\n    - {cohort: gpu-pool, create: true}\n"
      "    - {cohort: gpu-pool, create: true}\n",
      "environment.queueEdits[2].create",
      "Cohort gpu-pool exists (created by environment.queueEdits[1]): delete it first");
  refused(
      "    - {cohort: gpu-pool, delete: true}\n    - {clusterQueue: team-b, stopPolicy: Hold}\n"
      "    - {cohort: gpu-pool, create: true}\n    - {cohort: gpu-pool, create: true}\n",
      "environment.queueEdits[3].create", "Cohort gpu-pool exists");
  refused("    - {clusterQueue: team-b, create: false}\n", "create",
          "create: false is not an edit");
  refused(
      "    - {clusterQueue: team-b, stopPolicy: Hold}\n    - {clusterQueue: team-b, create: "
      "true}\n",
      "environment.queueEdits[1].create",
      "ClusterQueue team-b is edited by environment.queueEdits[0] before it is created");
  refused("    - {localQueue: research/nosuch, create: true}\n",
          "environment.queueEdits[0].localQueue", "no LocalQueue research/nosuch");
  // A workload holding quota through a queue that does not exist yet has no start in Kueue.
  fleet_refused("drs-rounding",
                "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\nprotocol: kueue-admission\n"
                "cluster: cluster\nenvironment:\n  queueEdits:\n"
                "    - {clusterQueue: research, create: true}\n",
                "environment.queueEdits[0].create",
                "research/sweep holds quota through ClusterQueue research, which this edit "
                "creates");
}

TEST_CASE("queue creation: a Cohort created during the run, and one deleted and created again",
          "[cli][admission][queue-creation]") {
  // examples/cohort-delete-parked with the research Cohort created again after
  // its deletion: it rejoins the pool, the sweep's borrowing counts there
  // again, and the creation requeues the pool's tree (AddOrUpdateCohort), so
  // the server is parked only until the sweep ends: not stuck.
  const std::string recreate =
      "    - {cohort: research, delete: true}\n    - {cohort: research, create: true}\n";
  auto text = example_text_replacing("cohort-delete-parked", "kmc.yaml",
                                     "    - {cohort: research, delete: true}\n", recreate);
  auto r = kmc("check " + example_with("cohort-delete-parked", "kmc.yaml", text) +
               " --property guarantee-not-stuck");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  // A trace through both edits replays in the engine.
  text +=
      "properties:\n  - name: served-after-both-edits\n"
      "    always: \"budget[queueEdits] == 0 => phase[ml/inference] != Admitted\"\n";
  r = kmc("check " + example_with("cohort-delete-parked", "kmc.yaml", text) +
          " --property served-after-both-edits --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "<QueueEdited> Cohort research created"));
  CHECK(has(r.out, "Cohort research created: "));
  CHECK(has(r.out, "Reproduced in the engine"));
  // Absent from the start while the sweep holds 10 GPUs borrowed through it:
  // the start is above what research's implicit cohort has.
  fleet_refused("cohort-delete-parked",
                example_text_replacing("cohort-delete-parked", "kmc.yaml",
                                       "    - {cohort: research, delete: true}\n",
                                       "    - {cohort: research, create: true}\n"),
                "environment.queueEdits[0].create",
                "before this edit creates Cohort research, cohort research uses 10 of h100");
  // Absent from the start, and the sweep not yet admitted: the research
  // ClusterQueue is alone in an implicit cohort without quota, and the sweep
  // (10 GPUs on a quota of 4) waits until research joins the pool and the
  // server frees serving's 8.
  std::string workloads =
      slurp(std::string(KMC_SOURCE_DIR) + "/examples/cohort-delete-parked/cluster/workloads.yaml");
  workloads.erase(workloads.find("status:"), workloads.find("---") - workloads.find("status:"));
  const auto dir = example_with("cohort-delete-parked", "cluster/workloads.yaml", workloads);
  std::ofstream(dir + "/kmc.yaml") << "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\n"
                                      "protocol: kueue-admission\ncluster: cluster\n"
                                      "environment:\n  queueEdits:\n"
                                      "    - {cohort: research, create: true}\n"
                                      "properties:\n  - name: sweep-never-admitted\n"
                                      "    always: \"phase[ml/sweep] != Admitted\"\n";
  r = kmc("check " + dir + " --property sweep-never-admitted --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "State 3: <QueueEdited> Cohort research created"));
  CHECK(has(r.out, "Reproduced in the engine"));
}
