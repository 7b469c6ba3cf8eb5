// CapacityRevoked after admission in one cluster (kmc.yaml
// environment.capacityRevocations): the autoscaler takes back a Provisioned
// request's nodes, Kueue rejects the check and deactivates the workload. A
// trace with the step replays in the engine; a budget nothing reads is exit 3.
#include <catch2/catch.hpp>
#include <fstream>

#include "cli/fleet_refused.hpp"

namespace {

std::string fixed_with(const std::string& extra) {
  return slurp(std::string(KMC_SOURCE_DIR) +
               "/examples/provisioning-accept-then-hang-fixed/kmc.yaml") +
         extra;
}

}  // namespace

TEST_CASE("capacity revocations: a revoked workload is deactivated, in the model and the engine",
          "[cli][admission][revocations]") {
  const std::string extra =
      "environment: {capacityRevocations: 1}\n"
      "properties:\n  - name: nothing-deactivated\n"
      "    always: \"all w: workload. phase[w] != Deactivated\"\n";
  const auto dir =
      example_with("provisioning-accept-then-hang-fixed", "kmc.yaml", fixed_with(extra));
  auto r = kmc("check " + dir + " --property nothing-deactivated --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "<CapacityRevoked("));
  CHECK(has(r.out, "Result: Violated (Reproduced in the engine)"));
  // The protocol's own properties still hold: the next job gets the quota.
  r = kmc("check " + example_with("provisioning-accept-then-hang-fixed", "kmc.yaml",
                                  fixed_with("environment: {capacityRevocations: 2}\n")));
  INFO(r.out << r.err);
  CHECK(r.code == 0);
}

// Kueue's cache drops a deactivated workload at once, so a pod group's quota
// does not wait for its pods either: the revocation applies to it as to a Job.
TEST_CASE("capacity revocations: a revoked pod group is deactivated, its quota free at once",
          "[cli][admission][revocations]") {
  const std::string extra =
      "environment: {capacityRevocations: 1}\n"
      "properties:\n  - name: train-never-deactivated\n"
      "    always: \"phase[\\\"research/train\\\"] != Deactivated\"\n";
  std::string dir =
      example_with("provisioning-accept-then-hang-fixed", "kmc.yaml", fixed_with(extra));
  const std::string workloads = dir + "/cluster/workloads.yaml";
  std::string text = slurp(workloads);
  const std::string name = "  name: train\n";
  text.replace(text.find(name), name.size(),
               name + "  annotations: {kueue.x-k8s.io/is-group-workload: \"true\"}\n");
  std::ofstream(workloads) << text;
  const auto r = kmc("check " + dir + " --property train-never-deactivated --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK_FALSE(has(r.err, "CapacityRevoked for pod groups"));
  CHECK(has(r.out, "<CapacityRevoked(research/train"));
  CHECK(has(r.out, "Result: Violated (Reproduced in the engine)"));
}

TEST_CASE("capacity revocations: a budget nothing reads is exit 3",
          "[cli][admission][revocations]") {
  const std::string zombie = slurp(std::string(KMC_SOURCE_DIR) + "/examples/zombie-pod/kmc.yaml");
  const std::string line = "environment: {stuckTerminating: 1}";
  std::string text = zombie;
  text.replace(text.find(line), line.size(),
               "environment: {stuckTerminating: 1, capacityRevocations: 1}");
  fleet_refused("zombie-pod", text, "environment.capacityRevocations",
                "no ClusterQueue of this cluster has a ProvisioningRequest admission check");
}
