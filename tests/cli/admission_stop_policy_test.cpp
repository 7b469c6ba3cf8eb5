// Stopped queues as a user meets them: a ClusterQueue or LocalQueue loaded with
// spec.stopPolicy, an operator's edits during the run (kmc.yaml
// environment.queueEdits), the example and its fix with their engine replay,
// and bad edits exit 3 naming file, line and field.
#include <catch2/catch.hpp>
#include <fstream>

#include "cli/fleet_refused.hpp"

namespace {

const std::string kEdit = "    - {clusterQueue: batch, stopPolicy: Hold}\n";

// held-queue-borrowed-quota with its edit line replaced.
std::string with_edit(const std::string& line) {
  std::string text =
      slurp(std::string(KMC_SOURCE_DIR) + "/examples/held-queue-borrowed-quota/kmc.yaml");
  text.replace(text.find(kEdit), kEdit.size(), line);
  return text;
}

void refused(const std::string& kmc_yaml, const std::string& field, const std::string& what) {
  fleet_refused("held-queue-borrowed-quota", kmc_yaml, field, what);
}

}  // namespace

TEST_CASE("stopPolicy: a held queue keeps its borrowed quota; HoldAndDrain gives it back",
          "[cli][admission][stop-policy]") {
  auto r = kmc("check examples/held-queue-borrowed-quota --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Property guarantee-eventually-admitted is violated"));
  CHECK(has(r.out, "<QueueEdited>"));
  CHECK(has(r.out, "Reproduced in the engine"));
  CHECK(has(r.out, "ClusterQueue batch stopPolicy set to Hold"));
  CHECK(has(r.out, "Stats: 86 states, 177 transitions"));
  r = kmc("check examples/held-queue-borrowed-quota-fixed");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "guarantee-eventually-admitted  Verified"));
  CHECK(has(r.out, "Stats: 96 states, 205 transitions"));
  // Its kmc.yaml names the properties it checks, some-preemption not among them: no warning.
  CHECK_FALSE(has(r.err, "some-preemption"));
  // Named, it is refused with the reason: a drain's evictions would witness it.
  r = kmc("check examples/held-queue-borrowed-quota-fixed --property some-preemption");
  INFO(r.out << r.err);
  CHECK(r.code == 3);
  CHECK(has(r.err,
            "--property: some-preemption cannot be checked in this scenario: a queue's "
            "stopPolicy HoldAndDrain"));
  // Without the edit the teams reclaim their quota, as in late-arrivals-reclaim.
  r = kmc("check " + example_with("held-queue-borrowed-quota", "kmc.yaml",
                                  with_edit("    - {clusterQueue: team-b, stopPolicy: None}\n")));
  INFO(r.out << r.err);
  CHECK(r.code == 0);
}

TEST_CASE("stopPolicy: a LocalQueue loaded stopped holds its workloads, and the engine agrees",
          "[cli][admission][stop-policy]") {
  // team-a's LocalQueue stopped in the manifests: train-a never gets a head, so no
  // guarantee is owed to it; a property of our own shows it stays Pending.
  const auto dir = example_replacing("held-queue-borrowed-quota", "cluster/queues.yaml",
                                     "  name: team-a\n  namespace: research\nspec:\n",
                                     "  name: team-a\n  namespace: research\nspec:\n"
                                     "  stopPolicy: Hold\n");
  std::string text = with_edit("    - {localQueue: research/team-a, stopPolicy: None}\n") +
                     "properties:\n  - name: train-a-never-admitted\n"
                     "    always: \"phase[research/train-a] != Admitted\"\n";
  std::ofstream(dir + "/kmc.yaml") << text;
  const auto r = kmc("check " + dir + " --property train-a-never-admitted --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);  // admitted only after the edit resumes the LocalQueue
  CHECK(has(r.out, "<QueueEdited>"));
  CHECK(has(r.out, "LocalQueue research/team-a stopPolicy set to None"));
  CHECK(has(r.out, "Reproduced in the engine"));
}

TEST_CASE("stopPolicy: bad queue edits are exit 3 at their line", "[cli][admission][stop-policy]") {
  refused(with_edit("    - {clusterQueue: nosuch, stopPolicy: Hold}\n"),
          "environment.queueEdits[0].clusterQueue", "no ClusterQueue nosuch");
  refused(with_edit("    - {localQueue: research/nosuch, stopPolicy: Hold}\n"),
          "environment.queueEdits[0].localQueue", "no LocalQueue research/nosuch");
  refused(with_edit("    - {localQueue: team-a, stopPolicy: Hold}\n"), "localQueue",
          "must name a LocalQueue as namespace/name");
  refused(with_edit("    - {clusterQueue: batch, localQueue: research/team-a, stopPolicy: Hold}\n"),
          "queueEdits", "exactly one of clusterQueue, localQueue and cohort");
  refused(with_edit("    - {clusterQueue: batch}\n"), "queueEdits", "an edit sets stopPolicy");
  refused(with_edit("    - {clusterQueue: batch, stopPolicy: Paused}\n"), "stopPolicy",
          "unknown value 'Paused'");
  refused(with_edit("    - {clusterQueue: batch, stopPolicy: Hold, when: later}\n"), "when", "");
  // A MultiKueue fleet has no such edit.
  const auto r = kmc("check " + example_replacing("gpu-hunter", "kmc.yaml",
                                                  "environment: {snapshotRefreshes: -1}",
                                                  "environment: {snapshotRefreshes: -1, "
                                                  "queueEdits: []}"));
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(has(r.err, "queueEdits"));
}
