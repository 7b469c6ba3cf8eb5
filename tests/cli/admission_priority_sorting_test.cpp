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

TEST_CASE("PrioritySortingWithinCohort: a victim reclaimed while borrowing, in both engines",
          "[cli][admission][priority-sorting]") {
  struct Row {
    bool gate;
    const char* expect;  // kmc admit's answer
    int check_code;      // kmc check --property w2-not-before-w0
    const char* check_says;
  };
  for (const Row& row : {
           // Off: the StrictFIFO queue's head is w2, created in the second w0 was preempted:
           // w0 waits from 1 ms after it.
           Row{false, "admitted=ns/w1,admitted=ns/w2,pending=ns/w0", 1, "Reproduced in the engine"},
           // On: w0 heads the queue by its creation and does not fit; w2 waits behind it.
           Row{true, "admitted=ns/w1,pending=ns/w2,pending=ns/w0", 0, "w2-not-before-w0  Verified"},
       }) {
    const auto dir = with_gate(row.gate);
    auto r = kmc("admit " + dir + "/cluster --expect " + row.expect);
    INFO("PrioritySortingWithinCohort " << row.gate << "\n" << r.out << r.err);
    CHECK(r.code == 0);
    CHECK_FALSE(has(r.err, "PrioritySortingWithinCohort"));  // read, not ignored
    r = kmc("check " + dir + " --property w2-not-before-w0 --replay-engine --strict");
    INFO(r.out << r.err);
    CHECK(r.code == row.check_code);
    CHECK(has(r.out, row.check_says));
  }
}
