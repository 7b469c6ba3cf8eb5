// Pods as a user writes them (tests/cli/fixtures/pod-group-preempted): kmc
// builds a group's Workload and a lone Pod's as Kueue's pod integration does,
// and both engines hold the group's quota until its pods are gone.
// tests/model/pods_test.cpp has the reading itself.
#include <catch2/catch.hpp>

#include "cli/run_kmc.hpp"

namespace {

const std::string kFixture =
    std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/pod-group-preempted";

}  // namespace

TEST_CASE("pods: a group preempted by a lone Pod, in both engines", "[cli][admission][pods]") {
  auto r = kmc("check " + kFixture + " --property urgent-waits-for-train --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_FALSE(has(r.err, "warning"));
  CHECK(has(r.out, "Kueue admission: 2 workloads"));
  r = kmc("check " + kFixture + " --property train-never-preempted --replay-engine --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Reproduced in the engine"));
  // kmc admit reads the cluster alone, both Pods there at once: urgent, of higher
  // priority, goes first, and the group's two pods (2 cpu each) wait as one.
  r = kmc("admit " + kFixture + "/cluster --expect admitted=ns/urgent,pending=ns/train");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "insufficient unused quota for cpu in flavor default, 4 more needed"));
}
