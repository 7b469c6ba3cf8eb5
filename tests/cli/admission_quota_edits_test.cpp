// Quota edits as a user meets them: kmc.yaml environment.queueEdits setting a
// ClusterQueue's or Cohort's quotas during the run, the quota-move example and
// its fix with their engine replay, and bad edits exit 3 naming file, line and field.
#include <catch2/catch.hpp>
#include <fstream>

#include "cli/fleet_refused.hpp"

namespace {

const std::string kFirst =
    "    - clusterQueue: team-b\n"
    "      quotas: [{flavor: h100, resource: nvidia.com/gpu, nominalQuota: 8}]\n";

// quota-move-order with its first edit replaced.
std::string with_edit(const std::string& edit) {
  std::string text = slurp(std::string(KMC_SOURCE_DIR) + "/examples/quota-move-order/kmc.yaml");
  text.replace(text.find(kFirst), kFirst.size(), edit);
  return text;
}

void refused(const std::string& edit, const std::string& field, const std::string& what) {
  fleet_refused("quota-move-order", with_edit(edit), field, what);
}

}  // namespace

TEST_CASE(
    "quota edits: raising team-b first admits beyond the pool; lowering team-a first does not",
    "[cli][admission][quota-edits]") {
  auto r = kmc("check examples/quota-move-order --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Property within-the-pool is violated"));
  // The trace names the edit each QueueEdited step applies.
  CHECK(has(r.out, "<QueueEdited> ClusterQueue team-b: h100 nvidia.com/gpu nominalQuota 8\n"));
  CHECK(has(r.out, "ClusterQueue team-b quotas of h100 nvidia.com/gpu edited"));
  CHECK(has(r.out, "Reproduced in the engine"));
  r = kmc("check examples/quota-move-order-fixed --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "within-the-pool"));
  CHECK(has(r.out, "no-over-admission"));
  // The fix's finetune gets its new quota: team-a's run, borrowing once its
  // quota shrank, is reclaimed (some-preemption is Verified, so it happens).
  const auto line = r.out.find("some-preemption");
  REQUIRE(line != std::string::npos);
  CHECK(r.out.substr(line, r.out.find('\n', line) - line).find("Verified") != std::string::npos);
}

TEST_CASE("quota edits: bad edits are exit 3 at their line", "[cli][admission][quota-edits]") {
  const std::string q =
      "      quotas: [{flavor: h100, resource: nvidia.com/gpu, nominalQuota: 8}]\n";
  refused(
      "    - clusterQueue: team-b\n      quotas: [{flavor: a100, resource: nvidia.com/gpu, "
      "nominalQuota: 8}]\n",
      "environment.queueEdits[0].quotas[0]", "ClusterQueue team-b has no quota of");
  refused(
      "    - clusterQueue: team-b\n      quotas: [{flavor: h100, resource: nvidia.com/gpu, "
      "nominalQuota: -8}]\n",
      "nominalQuota", "must not be negative");
  refused("    - clusterQueue: team-b\n      quotas: [{flavor: h100, resource: nvidia.com/gpu}]\n",
          "quotas", "sets nominalQuota, borrowingLimit or lendingLimit");
  refused("    - clusterQueue: team-b\n      quotas: [{flavor: h100, nominalQuota: 8}]\n", "quotas",
          "names its flavor and resource");
  refused("    - clusterQueue: team-b\n      quotas: []\n", "quotas", "lists no quota change");
  // team-b's quota is 0: lending 1 of it is more than it has (validateLendingLimit).
  refused(
      "    - clusterQueue: team-b\n      quotas: [{flavor: h100, resource: nvidia.com/gpu, "
      "lendingLimit: 1}]\n",
      "environment.queueEdits[0].quotas[0]",
      "lendingLimit 1 must be less than or equal to the nominalQuota 0");
  refused("    - localQueue: research/team-b\n" + q, "quotas", "a LocalQueue has no quotas");
  refused("    - cohort: gpu-pool\n      stopPolicy: Hold\n", "stopPolicy",
          "a Cohort has no stopPolicy");
  refused("    - cohort: nosuch\n" + q, "environment.queueEdits[0].cohort", "no Cohort nosuch");
  refused("    - cohort: gpu-pool\n" + q, "environment.queueEdits[0].quotas[0]",
          "Cohort gpu-pool has no quota of");
  refused(
      "    - clusterQueue: team-b\n      quotas: [{flavor: h100, resource: nvidia.com/gpu, "
      "shared: true}]\n",
      "shared", "");
}

TEST_CASE("quota edits: a Cohort's quota and a removed limit, replayed in the engine",
          "[cli][admission][quota-edits]") {
  // The pool's GPUs as the Cohort's own quota, which the operator halves; team-b
  // gets a borrowing limit that a later edit removes (null, merge-patch style).
  std::string queues =
      slurp(std::string(KMC_SOURCE_DIR) + "/examples/quota-move-order/cluster/queues.yaml");
  const std::string cohort = "  name: gpu-pool\n";
  queues.replace(queues.find(cohort), cohort.size(),
                 cohort +
                     "spec:\n  resourceGroups:\n    - coveredResources: [nvidia.com/gpu]\n"
                     "      flavors:\n        - name: h100\n          resources:\n"
                     "            - {name: nvidia.com/gpu, nominalQuota: 8}\n");
  const auto dir = example_with("quota-move-order", "cluster/queues.yaml", queues);
  std::ofstream(dir + "/kmc.yaml")
      << "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\nprotocol: kueue-admission\n"
         "cluster: cluster\nenvironment:\n  queueEdits:\n"
         "    - cohort: gpu-pool\n"
         "      quotas: [{flavor: h100, resource: nvidia.com/gpu, nominalQuota: 4}]\n"
         "    - clusterQueue: team-b\n"
         "      quotas: [{flavor: h100, resource: nvidia.com/gpu, borrowingLimit: 0}]\n"
         "    - clusterQueue: team-b\n"
         "      quotas: [{flavor: h100, resource: nvidia.com/gpu, borrowingLimit: ~}]\n"
         "properties:\n  - name: finetune-never-admitted\n"
         "    always: \"phase[research/finetune] != Admitted\"\n";
  const auto r = kmc("check " + dir + " --property finetune-never-admitted --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Reproduced in the engine"));
}

TEST_CASE("quota edits: an edit that sets what is already set requeues nothing",
          "[cli][admission][quota-edits]") {
  // examples/cohort-delete-parked, and then the operator applies serving's
  // quota again, unchanged. Kueue gets no update event for it (the API server
  // writes nothing; the controller's specUpdated is false anyway), so the
  // parked server stays parked: still Violated, and the engine agrees.
  const auto dir = example_replacing(
      "cohort-delete-parked", "kmc.yaml", "    - {cohort: research, delete: true}\n",
      "    - {cohort: research, delete: true}\n"
      "    - {clusterQueue: serving, quotas: [{flavor: h100, resource: nvidia.com/gpu, "
      "nominalQuota: 8}]}\n");
  auto r = kmc("check " + dir + " --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Property guarantee-not-stuck is violated"));
  CHECK(has(r.out, "Reproduced in the engine"));
  // A trace through both edits names the second one unchanged.
  std::ofstream(dir + "/kmc.yaml", std::ios::app)
      << "properties:\n  - name: parked-after-both-edits\n"
         "    always: \"budget[queueEdits] == 0 => phase[ml/inference] != Inadmissible\"\n";
  r = kmc("check " + dir + " --property parked-after-both-edits --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out,
            "<QueueEdited> ClusterQueue serving: h100 nvidia.com/gpu nominalQuota 8 "
            "(unchanged: no spec update, nothing is requeued)"));
  CHECK(has(r.out, "Reproduced in the engine"));
}
