// JobSets as a user writes them (tests/cli/fixtures/jobset-preempted): kmc
// builds each JobSet's Workload as Kueue's jobset integration does, a pod set
// per replicated job, and both engines admit and preempt by it.
// tests/model/jobset_test.cpp has the reading itself.
#include <catch2/catch.hpp>

#include "cli/run_kmc.hpp"

namespace {

const std::string kFixture = std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/jobset-preempted";

}  // namespace

TEST_CASE("jobsets: a JobSet preempted by a higher-priority one, in both engines",
          "[cli][admission][jobset]") {
  auto r = kmc("check " + kFixture +
               " --property finetune-admitted-alone --property some-preemption --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_FALSE(has(r.err, "warning"));
  CHECK(has(r.out, "Kueue admission: 2 workloads"));
  CHECK(has(r.out, "some-preemption          Verified"));
  r = kmc("check " + kFixture + " --property finetune-never-admitted --replay-engine --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Reproduced in the engine"));
  // kmc admit reads both at once: finetune, of higher priority, goes first, and
  // pretrain's workers (2 Jobs of 3 pods, a GPU each) need 6 of the 4 GPUs left.
  r = kmc("admit " + kFixture +
          "/cluster --strict --expect admitted=research/finetune,pending=research/pretrain");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "insufficient unused quota for nvidia.com/gpu in flavor a100, 2 more needed"));
}

TEST_CASE("jobsets: without the jobset integration Kueue leaves a JobSet alone, and says so",
          "[cli][admission][jobset]") {
  // Kueue's default integrations.frameworks is batch/job only.
  auto r = kmc("admit " + kFixture + "/cluster/queues.yaml " + kFixture + "/cluster/jobsets.yaml");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.err, "Kueue manages a JobSet only with the jobset.x-k8s.io/jobset integration"));
  CHECK(has(r.out, "admitted=0 pending=0"));
}
