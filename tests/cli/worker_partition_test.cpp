// examples/worker-partition (issue 12, item 1): the duplicate run KEP-693
// accepts by design, found by the model and reproduced by the engine.
#include <catch2/catch.hpp>

#include "cli/run_kmc.hpp"

TEST_CASE("a partitioned worker runs the job the manager dispatched again: Reproduced",
          "[cli][faults]") {
  const Run r =
      kmc("check examples/worker-partition --property no-job-on-two-workers --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Result: Violated (Reproduced in the engine)"));
  CHECK(has(r.out, "Replay in the engine: Reproduced"));
  CHECK(has(r.out, "WorkerDisconnected("));
  CHECK(has(r.out, "WorkerLostTimeout(team-ml/llm-finetune, "));
  CHECK(has(r.out, "(\"Admitting remote lost\")"));
  CHECK(has(r.out, "job team-ml/llm-finetune runs on us-central1 and europe-west4"));
}

TEST_CASE("a losing copy behind a partition keeps its quota: Reproduced", "[cli][faults]") {
  const Run r =
      kmc("check examples/worker-partition --property quota-counted-once --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Replay in the engine: Reproduced"));
  CHECK(has(r.out, "is selected for"));
}

TEST_CASE("without connection faults the same fleet runs the job once", "[cli][faults]") {
  const std::string dir =
      example_replacing("worker-partition", "kmc.yaml", "environment: {workerDisconnects: 1}",
                        "environment: {workerDisconnects: 0}");
  const Run r = kmc("check " + dir);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "Result: Verified"));
  CHECK_FALSE(has(r.out, "connection "));
}

TEST_CASE("workerDisconnects must be a count or -1 (exit 3, naming the line)", "[cli][faults]") {
  const std::string dir =
      example_replacing("worker-partition", "kmc.yaml", "environment: {workerDisconnects: 1}",
                        "environment: {workerDisconnects: -2}");
  const Run r = kmc("check " + dir);
  CHECK(r.code == 3);
  CHECK(has(r.err, "kmc.yaml:"));
  CHECK(has(r.err, "workerDisconnects"));
}

TEST_CASE("the engine's runs with partitions are behaviours of the model (kmc validate)",
          "[cli][faults][validate]") {
  // Random walks of the engine fleet that drop and restore connections, finish jobs behind a
  // partition and let the manager give up: every step must be one the model allows. It caught
  // a finished copy's Job-created bit the model kept after deleting the copy.
  const Run r = kmc("validate --walk examples/worker-partition --walks 100 --steps 30");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("Allowed: 100 random walks") != std::string::npos);
}

TEST_CASE("shared ClusterQueues keep Kueue's queue order after a retry, without a warning",
          "[cli][queue-order]") {
  // Kueue queues a Workload an admission check evicted by the eviction's time
  // (GetQueueOrderTimestamp); the MultiKueue protocol keeps that order in its state
  // (tests/protocols/multikueue_queue_order_test.cpp), so it no longer warns that it does not.
  const Run shared = kmc("check examples/three-workers --max-states 1");
  INFO(shared.out << shared.err);
  CHECK_FALSE(has(shared.err, "GetQueueOrderTimestamp"));
  CHECK(has(shared.out, "Incomplete"));
}

TEST_CASE("a Job another controller manages is checked with a warning; --strict refuses it",
          "[cli][managed-by]") {
  // Kueue's MultiKueue controller Rejects the check of a Job whose spec.managedBy is neither
  // MultiKueue nor the Job controller (IsJobManagedByKueue): it would never run.
  const std::string dir = example_replacing("worker-partition", "manager/llm-finetune-job.yaml",
                                            "managedBy: kueue.x-k8s.io/multikueue",
                                            "managedBy: example.com/other-controller");
  const Run r = kmc("check " + dir + " --max-states 1");
  INFO(r.out << r.err);
  CHECK(has(r.err, "llm-finetune-job.yaml:10: spec.managedBy: example.com/other-controller"));
  CHECK(has(r.err, "IsJobManagedByKueue"));
  const Run strict = kmc("check " + dir + " --strict");
  CHECK(strict.code == 3);
  CHECK(has(strict.err, "spec.managedBy"));
  // MultiKueue's own name and the Job controller's (which Kueue's webhook defaults) are fine.
  const Run own = kmc("check examples/worker-partition --max-states 1");
  CHECK_FALSE(has(own.err, "spec.managedBy"));
}

TEST_CASE("a bare Workload on the manager is checked with a warning; --strict refuses it",
          "[cli][managed-by]") {
  // With no owner, Kueue's MultiKueue finds no adapter and Rejects the check (workload.go: "No
  // multikueue adapter found"): the Workload never runs.
  const std::string dir = example_with("worker-partition", "manager/llm-finetune-job.yaml", R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: llm-finetune
  namespace: team-ml
spec:
  queueName: training
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: trainer
          resources:
            requests: {cpu: "96", memory: 768Gi, nvidia.com/gpu: "8"}
)");
  const Run r = kmc("check " + dir + " --max-states 1");
  INFO(r.out << r.err);
  CHECK(has(r.err, "llm-finetune-job.yaml:2: metadata.ownerReferences: a Workload with no owner"));
  CHECK(kmc("check " + dir + " --strict").code == 3);
}
