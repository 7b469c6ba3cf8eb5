// Workloads deleted during the run (kmc.yaml environment.deletions) and K12:
// a restarted Kueue before #15154 builds a Workload for a deleted pod group
// whose pods are still terminating, and that head, pinned to a lost node,
// blocks a StrictFIFO queue forever. Found, replayed in the engine, fixed.
#include <catch2/catch.hpp>

#include "cli/run_kmc.hpp"

TEST_CASE("deletions: K12, a zombie pod group re-adopted after a restart (#15154)",
          "[cli][admission][deletions]") {
  auto r = kmc("check examples/zombie-pod-readopted --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Property no-workload-for-terminating-pods is violated"));
  // Even a healthy kubelet leaves a window: a restart while the pods terminate.
  CHECK(has(r.out, "State 1: <Delete(research/serve)>"));
  CHECK(has(r.out, "State 2: <ControllerRestart>"));
  CHECK(has(r.out, "phase[research/serve (re-adopted)]      Absent -> Pending"));
  CHECK(has(r.out, "Result: Violated (Reproduced in the engine)"));
  // Stuck for good only once the kubelet is gone: the pinned head never leaves StrictFIFO's head.
  r = kmc("check examples/zombie-pod-readopted --property guarantee-not-stuck --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "<KubeletLost(research/serve)>"));
  CHECK(has(r.out, "Result: Violated (Reproduced in the engine)"));
  CHECK(has(r.out, "research/train is Pending and nothing the environment may still do"));
  r = kmc("check examples/zombie-pod-readopted-fixed");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "no-workload-for-terminating-pods  Verified"));
}

TEST_CASE("deletions: bad lists are exit 3 naming the field", "[cli][admission][deletions]") {
  std::string text = slurp(std::string(KMC_SOURCE_DIR) + "/examples/zombie-pod-readopted/kmc.yaml");
  const std::string line = "deletions: [research/serve]";
  text.replace(text.find(line), line.size(), "deletions: [research/nobody]");
  const auto dir = example_with("zombie-pod-readopted", "kmc.yaml", text);
  const auto r = kmc("check " + dir);
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(has(r.err, "kmc.yaml:"));
  CHECK(has(r.err, "environment.deletions[0]"));
  CHECK(has(r.err, "no Workload or Job research/nobody"));
}
