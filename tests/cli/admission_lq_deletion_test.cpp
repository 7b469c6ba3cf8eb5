// LocalQueue deletions as a user meets them: kmc.yaml environment.queueEdits
// with `{localQueue: NS/NAME, delete: true}`. A LocalQueue has no finalizer:
// its pending workloads leave the queues at once, a reservation not yet
// Admitted is unset, an Admitted workload runs on (reconcileOnLocalQueueActiveState
// reads a missing queue's stopPolicy as None).
#include <catch2/catch.hpp>

#include "cli/fleet_refused.hpp"

namespace {

// cluster-queue-delete-borrower with its edit replaced, and `extra` appended.
std::string with_edit(const std::string& edit, const std::string& extra = "") {
  return example_text_replacing("cluster-queue-delete-borrower", "kmc.yaml",
                                "    - clusterQueue: batch\n      delete: true\n", edit) +
         extra;
}

const std::string kDeleteBatch =
    "    - localQueue: research/batch\n"
    "      delete: true\n";

}  // namespace

TEST_CASE("LocalQueue deletion: the sweep's ClusterQueue stays active, so the teams reclaim",
          "[cli][admission][lq-deletion]") {
  // Deleting the batch ClusterQueue strands what its sweep borrows
  // (examples/cluster-queue-delete-borrower); deleting its LocalQueue does not.
  auto r = kmc("check " +
               example_with("cluster-queue-delete-borrower", "kmc.yaml", with_edit(kDeleteBatch)));
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "guarantee-eventually-admitted  Verified"));
  // Once its queue is gone and the teams reclaimed its GPUs, the sweep is out
  // of every queue: the engine replays the deletion and agrees.
  const std::string property =
      "properties:\n"
      "  - name: sweep-requeued\n"
      "    always: \"!(budget[queueEdits] == 0 && phase[\\\"research/sweep\\\"] == Pending && "
      "phase[\\\"research/train-a\\\"] == Admitted)\"\n";
  r = kmc(
      "check " +
      example_with("cluster-queue-delete-borrower", "kmc.yaml", with_edit(kDeleteBatch, property)) +
      " --property sweep-requeued --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "<QueueEdited> LocalQueue research/batch deleted"));
  CHECK(has(r.out, "LocalQueue research/batch deleted: its pending workloads left the queues"));
  CHECK(has(r.out, "Reproduced in the engine"));
}

TEST_CASE("LocalQueue deletion: bad deletions are exit 3 at their line",
          "[cli][admission][lq-deletion]") {
  auto refused = [](const std::string& edit, const std::string& field, const std::string& what) {
    fleet_refused("cluster-queue-delete-borrower", with_edit(edit), field, what);
  };
  refused(kDeleteBatch + "    - localQueue: research/batch\n      stopPolicy: None\n",
          "environment.queueEdits[1].localQueue",
          "LocalQueue research/batch does not exist (deleted by environment.queueEdits[0]): "
          "create it first");
  refused(kDeleteBatch + "    - {localQueue: research/batch, create: true}\n" +
              "    - {localQueue: research/batch, create: true}\n",
          "environment.queueEdits[2].create",
          "LocalQueue research/batch is edited by environment.queueEdits[0] before it is created");
  refused("    - localQueue: research/batch\n      delete: true\n      stopPolicy: Hold\n",
          "delete", "a deletion is an edit of its own");
  refused("    - localQueue: research/nosuch\n      delete: true\n",
          "environment.queueEdits[0].localQueue", "no LocalQueue research/nosuch");
}

TEST_CASE("LocalQueue deletion: created again, its pending workloads are queued again",
          "[cli][admission][lq-deletion]") {
  // The sweep's LocalQueue deleted and created again (AddLocalQueue pushes its
  // pending workloads): the sweep can be admitted after both edits, which it
  // cannot while the queue is gone. The engine replays both.
  const std::string property =
      "properties:\n"
      "  - name: sweep-not-admitted-after-both\n"
      "    always: '!(budget[queueEdits] == 0 && phase[\"research/sweep\"] == Admitted)'\n";
  const std::string create = "    - {localQueue: research/batch, create: true}\n";
  auto r = kmc("check " +
               example_with("cluster-queue-delete-borrower", "kmc.yaml",
                            with_edit(kDeleteBatch + create, property)) +
               " --property sweep-not-admitted-after-both --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "<QueueEdited> LocalQueue research/batch created"));
  CHECK(has(r.out, "Reproduced in the engine"));
  // Put on Hold before its deletion: created again, it has its manifest's
  // stopPolicy (None), in the model and in the engine.
  r = kmc("check " +
          example_with("cluster-queue-delete-borrower", "kmc.yaml",
                       with_edit("    - {localQueue: research/batch, stopPolicy: Hold}\n" +
                                     kDeleteBatch + create,
                                 property)) +
          " --property sweep-not-admitted-after-both --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Reproduced in the engine"));
}
