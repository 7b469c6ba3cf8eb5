// A dump caught halfway through two evictions (tests/cli/fixtures/evicted-halfway),
// end to end: kueue-admission starts the Job released and the Pod group Evicted
// with its quota, as the engine loads them, so the model's traces replay in the
// engine. tests/protocols/admission_evicted_halfway_test.cpp has the model's states.
#include <catch2/catch.hpp>

#include "cli/run_kmc.hpp"

namespace {

const std::string kFixture = std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/evicted-halfway";

}  // namespace

TEST_CASE("a dump's halfway evictions: checked, and replayed in the engine",
          "[cli][admission][evicted-halfway]") {
  auto r = kmc("check " + kFixture + " --property high-waits-for-group --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_FALSE(has(r.err, "warning"));
  CHECK(has(r.out, "high-waits-for-group  Verified"));
  r = kmc("check " + kFixture + " --property job-stays-out --replay-engine --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK_FALSE(has(r.err, "warning"));
  CHECK(has(r.out, "Reproduced in the engine"));
  // The trace starts where the engine does: group Evicted with its cpu, job released.
  CHECK(has(r.out, "phase[ns/group]           Evicted"));
  CHECK(has(r.out, "flavor[ns/job]            none"));
}

TEST_CASE("a dump's halfway evictions: a backoff still ahead, in both engines",
          "[cli][admission][evicted-halfway]") {
  // job's requeueAt after the dump's time (10:10): it waits out its backoff
  // once its job is stopped.
  std::string dump = slurp(kFixture + "/cluster/manifests.yaml");
  const std::string passed = R"(requeueAt: "2026-12-05T10:07:00Z")";
  REQUIRE(has(dump, passed));
  dump.replace(dump.find(passed), passed.size(), R"(requeueAt: "2026-12-05T10:20:00Z")");
  const auto dir = folder_with(kFixture, "cluster/manifests.yaml", dump);
  auto r = kmc("check " + dir + " --property job-stays-out --replay-engine --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "phase[ns/job]             Backoff"));
  CHECK(has(r.out, "Reproduced in the engine"));
}
