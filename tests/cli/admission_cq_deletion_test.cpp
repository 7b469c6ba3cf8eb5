// ClusterQueue deletions as a user meets them: kmc.yaml environment.queueEdits
// with `delete: true`, the cluster-queue-retire example and its fix with their
// engine replay, and bad deletions exit 3 naming file, line and field.
#include <catch2/catch.hpp>

#include "cli/fleet_refused.hpp"

namespace {

const std::string kEdits =
    "    - clusterQueue: legacy\n"
    "      delete: true\n";

// cluster-queue-retire with its first edit replaced.
void refused(const std::string& edit, const std::string& field, const std::string& what) {
  std::string text = slurp(std::string(KMC_SOURCE_DIR) + "/examples/cluster-queue-retire/kmc.yaml");
  text.replace(text.find(kEdits), kEdits.size(), edit);
  fleet_refused("cluster-queue-retire", text, field, what);
}

}  // namespace

TEST_CASE(
    "ClusterQueue deletion: retiring the pool's owner overcommits it; a Cohort's quota does not",
    "[cli][admission][cq-deletion]") {
  auto r = kmc("check examples/cluster-queue-retire --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Property within-the-pool is violated"));
  CHECK(has(r.out, "<QueueEdited> ClusterQueue legacy deleted\n"));
  CHECK(has(r.out, "ClusterQueue legacy deleted: a deletionTimestamp"));
  CHECK(has(r.out, "Reproduced in the engine"));
  r = kmc("check examples/cluster-queue-retire-fixed --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "within-the-pool"));
  CHECK(has(r.out, "no-over-admission"));
}

TEST_CASE(
    "ClusterQueue deletion: a deleted borrower's quota is not reclaimed; drained first, it is",
    "[cli][admission][cq-deletion]") {
  auto r = kmc("check examples/cluster-queue-delete-borrower --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Property guarantee-eventually-admitted is violated"));
  CHECK(has(r.out, "<ClusterQueueTerminating(batch)>"));
  CHECK(has(r.out, "Reproduced in the engine"));
  r = kmc("check examples/cluster-queue-delete-borrower-fixed --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "guarantee-eventually-admitted  Verified"));
}

TEST_CASE("ClusterQueue deletion: bad deletions are exit 3 at their line",
          "[cli][admission][cq-deletion]") {
  // A Cohort is gone at once; applying it again is not modelled.
  refused(
      "    - cohort: gpu-pool\n      delete: true\n    - cohort: gpu-pool\n      quotas: "
      "[{flavor: h100, resource: nvidia.com/gpu, nominalQuota: 8}]\n",
      "environment.queueEdits[1].cohort",
      "Cohort gpu-pool does not exist (deleted by environment.queueEdits[0]): create it first");
  refused("    - clusterQueue: legacy\n      delete: false\n", "delete",
          "delete: false is not an edit");
  refused("    - clusterQueue: legacy\n      delete: yes-please\n", "delete", "");
  refused("    - clusterQueue: legacy\n      delete: true\n      stopPolicy: Hold\n", "delete",
          "a deletion is an edit of its own");
  refused("    - clusterQueue: nosuch\n      delete: true\n",
          "environment.queueEdits[0].clusterQueue", "no ClusterQueue nosuch");
  // Edits of a deleting ClusterQueue are ignored by Kueue: refused, not dropped.
  refused(kEdits + "    - clusterQueue: legacy\n      stopPolicy: Hold\n",
          "environment.queueEdits[1].clusterQueue",
          "ClusterQueue legacy is deleted by environment.queueEdits[0]");
}

TEST_CASE("Cohort deletion: a subtree leaves with what it borrowed, and nothing is requeued",
          "[cli][admission][cq-deletion]") {
  // examples/cohort-delete-parked: the serving team's server, parked while the
  // research sweep borrows the pool, fits once the research Cohort is deleted,
  // and waits forever: nothing requeues it. The engine agrees.
  auto r = kmc("check examples/cohort-delete-parked --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Property guarantee-not-stuck is violated"));
  CHECK(has(r.out, "State 1: <Schedule>"));
  CHECK(has(r.out, "State 2: <QueueEdited> Cohort research deleted"));
  CHECK(has(r.out, "guarantee-eventually-admitted  Violated"));
  CHECK(has(r.out, "Stats: 14 states"));
  CHECK(has(r.out, "Reproduced in the engine"));
  // Serving reclaims what it lends: nothing waits for a requeue.
  r = kmc("check examples/cohort-delete-parked-fixed");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "some-preemption                Verified"));
  CHECK(has(r.out, "Stats: 22 states"));
}

TEST_CASE("ClusterQueue re-creation: once the old one is gone, its workloads run again",
          "[cli][admission][cq-deletion][creation]") {
  // legacy deleted and created again: the creation waits for the finalizer
  // (the API server has the old object until then), and pretrain, pending in
  // it, is admitted in the new one. The trace replays in the engine.
  const auto dir = example_with(
      "cluster-queue-retire", "kmc.yaml",
      "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\nprotocol: kueue-admission\ncluster: cluster\n"
      "environment:\n  queueEdits:\n" +
          kEdits +
          "    - {clusterQueue: legacy, create: true}\nproperties:\n"
          "  - name: pretrain-never-runs-after-edits\n"
          "    always: \"budget[queueEdits] > 0 || phase[research/pretrain] != Admitted\"\n");
  const auto r =
      kmc("check " + dir + " --property pretrain-never-runs-after-edits --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "State 3: <ClusterQueueFinalized(legacy)>"));
  CHECK(has(r.out, "State 4: <QueueEdited> ClusterQueue legacy created"));
  CHECK(has(r.out, "Reproduced in the engine"));
}

TEST_CASE("ClusterQueue re-creation: bad ones are exit 3 at their line",
          "[cli][admission][cq-deletion][creation]") {
  refused(kEdits + "    - {clusterQueue: legacy, create: true}\n" + kEdits,
          "environment.queueEdits[2].delete",
          "ClusterQueue legacy was created again by environment.queueEdits[1]: kmc models one "
          "deletion of a ClusterQueue in a run");
  refused(kEdits +
              "    - {clusterQueue: legacy, create: true}\n    - {clusterQueue: legacy, "
              "create: true}\n",
          "environment.queueEdits[2].create",
          "ClusterQueue legacy exists (created again by environment.queueEdits[1]): delete it "
          "first");
  refused(kEdits + "    - {clusterQueue: legacy, stopPolicy: Hold}\n",
          "environment.queueEdits[1].clusterQueue",
          "Kueue ignores edits of a deleting ClusterQueue (create it again");
}
