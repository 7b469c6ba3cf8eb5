// The feature gate PrioritySortingWithinCohort off, end to end on a dump: a
// workload preempted with reason InCohortReclaimWhileBorrowing waits from its
// preemption (GetQueueOrderTimestamp), in the engine (`kmc admit`) and in the
// kueue-admission protocol (`kmc check`), and the model's trace replays in
// the engine. tests/protocols/admission_priority_sorting_test.cpp has the
// cycle's entry order.
#include <catch2/catch.hpp>

#include "cli/run_kmc.hpp"

namespace {

const std::string kFixture =
    std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/reclaimed-while-borrowing";

// The fixture with the gate at `on`.
std::string with_gate(bool on) {
  return folder_with(kFixture, "cluster/kueue-config.yaml",
                     "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                     "featureGates:\n  PrioritySortingWithinCohort: " +
                         std::string(on ? "true" : "false") + "\n");
}

}  // namespace

TEST_CASE("PrioritySortingWithinCohort off: the reclaimed victim waits from its preemption",
          "[cli][admission][priority-sorting]") {
  const auto dir = with_gate(false);
  // The StrictFIFO queue's head is w2: created before w0 was preempted.
  auto r = kmc("admit " + dir + "/cluster --expect admitted=ns/w1,admitted=ns/w2,pending=ns/w0");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_FALSE(has(r.err, "PrioritySortingWithinCohort"));  // read, not ignored
  r = kmc("check " + dir + " --property w2-not-before-w0 --replay-engine --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Reproduced in the engine"));
}

TEST_CASE("PrioritySortingWithinCohort on: the reclaimed victim keeps its place by creation",
          "[cli][admission][priority-sorting]") {
  const auto dir = with_gate(true);
  // w0 heads the StrictFIFO queue and does not fit: w2 waits behind it.
  auto r = kmc("admit " + dir + "/cluster --expect admitted=ns/w1,pending=ns/w2,pending=ns/w0");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  r = kmc("check " + dir + " --property w2-not-before-w0 --replay-engine --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "w2-not-before-w0  Verified"));
}
