// A dump caught halfway through two evictions (tests/cli/fixtures/evicted-halfway),
// end to end: kueue-admission starts the Job released and the Pod group Evicted
// with its quota, as the engine loads them, so the model's traces replay in the
// engine. tests/protocols/admission_evicted_halfway_test.cpp has the model's states.
#include <catch2/catch.hpp>
#include <fstream>
#include <utility>
#include <vector>

#include "cli/run_kmc.hpp"

namespace {

const std::string kFixture = std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/evicted-halfway";

// The trace's first state, as `kmc check` prints it.
std::string first_state(const std::string& out) {
  const auto from = out.find("State 0:");
  if (from == std::string::npos) return "";
  return out.substr(from, out.find("State 1:", from) - from);
}

// The fixture's dump with each (from, to) replaced, once, in order.
std::string edited(const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string dump = slurp(kFixture + "/cluster/manifests.yaml");
  for (const auto& [from, to] : edits) {
    const auto at = dump.find(from);
    REQUIRE(at != std::string::npos);
    dump.replace(at, from.size(), to);
  }
  return folder_with(kFixture, "cluster/manifests.yaml", dump);
}

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
  const std::string start = first_state(r.out);
  CHECK(has(start, "phase[ns/group]           Evicted\n"));
  CHECK(has(start, "flavor[ns/job]            none\n"));
  CHECK(has(start, "usage[cq, default, cpu]   1000\n"));
}

TEST_CASE("a dump's halfway evictions: a backoff still ahead, in both engines",
          "[cli][admission][evicted-halfway]") {
  // job's requeueAt after the dump's time (10:10) holds it back once its job is
  // stopped, whatever the eviction's reason (the workload controller's
  // RequeueAfter; the queue's backoffWaitingTimeExpired).
  for (const char* reason : {"PodsReadyTimeout", "Preempted", "ClusterQueueStopped"}) {
    const auto dir =
        edited({{"reason: PodsReadyTimeout", std::string("reason: ") + reason},
                {R"(requeueAt: "2026-12-05T10:07:00Z")", R"(requeueAt: "2026-12-05T10:20:00Z")"}});
    auto r = kmc("check " + dir + " --property job-stays-out --replay-engine --strict");
    INFO(reason << "\n" << r.out << r.err);
    CHECK(r.code == 1);
    CHECK(has(first_state(r.out), "phase[ns/job]             Backoff\n"));
    CHECK(has(r.out, "Reproduced in the engine"));
  }
}

TEST_CASE("a dump's halfway evictions: a deactivated workload's quota is free at once",
          "[cli][admission][evicted-halfway]") {
  // spec.active false: Kueue's cache counts no quota of it (HasActiveQuotaReservation),
  // though its pods may still be stopping. Both engines leave group out.
  const auto dir =
      edited({{"spec:\n  queueName: lq\n", "spec:\n  active: false\n  queueName: lq\n"}});
  // kueue-admission has no inactive workload to name: the property about group goes.
  std::string fleet = slurp(kFixture + "/kmc.yaml");
  const auto from = fleet.find("  - name: high-waits-for-group");
  fleet.erase(from, fleet.find("  - name: job-stays-out") - from);
  std::ofstream(dir + "/kmc.yaml") << fleet;
  auto r = kmc("check " + dir + " --property job-stays-out --replay-engine --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(first_state(r.out), "usage[cq, default, cpu]   0\n"));
  CHECK(has(r.out, "Reproduced in the engine"));
}
