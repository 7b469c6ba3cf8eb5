// Several resource groups in one ClusterQueue as a user meets them: Kueue's
// own shared-quota example (two CPU flavors capped together by a one-flavor
// group of virtual credits) checked, and replayed in the engine.
#include <catch2/catch.hpp>
#include <fstream>

#include "cli/fleet_refused.hpp"

namespace {
const std::string kFixture =
    std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/shared-quota-credits";
// job-e, asking for credits only (none of the CPU flavors' group).
const std::string kCreditsOnly =
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: job-e\n"
    "  namespace: default\nspec:\n  queueName: team-queue\n  podSets:\n  - name: main\n"
    "    count: 1\n    template:\n      spec:\n        containers:\n        - name: main\n"
    "          resources: {requests: {cpu_credits: \"2\"}}\n";
}  // namespace

TEST_CASE("resource groups: Kueue's shared-quota example caps the two flavors together",
          "[cli][admission][resource-groups]") {
  auto r = kmc("check " + kFixture +
               " --property never-four --property credits-within-quota --property "
               "no-over-admission --property usage-counted-once");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_FALSE(has(r.out + r.err, "resource group"));  // nothing dropped, no warning
  // A trace of the fourth job, admitted once another finished, replays in the engine.
  r = kmc("check " + kFixture + " --property job-d-never-runs --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Reproduced in the engine"));
  // Without the credits group, the four run at once: two in each flavor.
  const std::string queues = slurp(kFixture + "/cluster/queues.yaml");
  const std::string credits = queues.substr(queues.find("  - coveredResources: [\"cpu_credits\"]"));
  std::string without = queues;
  without.erase(without.find(credits), credits.find("---"));
  // and without the transformation into credits, which no group would cover.
  without.erase(without.find("---\napiVersion: config.kueue.x-k8s.io"));
  const auto dir = folder_with(kFixture, "cluster/queues.yaml", without);
  const std::string kmc_yaml = slurp(kFixture + "/kmc.yaml");
  std::ofstream(dir + "/kmc.yaml") << kmc_yaml.substr(0, kmc_yaml.find("  - name: credits"));
  r = kmc("check " + dir + " --property never-four");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
}

TEST_CASE("resource groups: two groups with several flavors are exit 3",
          "[cli][admission][resource-groups]") {
  // The credits group gets a second flavor, credits-b.
  std::string queues = slurp(kFixture + "/cluster/queues.yaml");
  const std::string one = "      - name: cpu_credits\n        nominalQuota: 14\n";
  queues.replace(queues.find(one), one.size(),
                 one + "    - name: credits-b\n      resources:\n" + one);
  queues =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n"
      "  name: credits-b\n---\n" +
      queues;
  const auto dir = folder_with(kFixture, "cluster/queues.yaml", queues);
  const auto r = kmc("check " + dir);
  INFO(r.out << r.err);
  CHECK(r.code == 3);
  CHECK(has(r.err, "queues.yaml"));
  CHECK(has(r.err, "spec.resourceGroups[1]"));
  CHECK(has(r.err, "one resource group with several flavors"));
}

TEST_CASE("resource groups: a workload requesting only a one-flavor group's resource",
          "[cli][admission][resource-groups]") {
  // Both CPU flavors tainted, so no job tolerates them, and job-e asks for
  // credits only: Kueue assigns it the credits group alone and never looks
  // at the CPU flavors' taints (assignFlavors reads the groups it requests).
  std::string queues = slurp(kFixture + "/cluster/queues.yaml");
  for (const std::string label : {"node-type: on-demand\n", "node-type: spot\n"})
    queues.replace(
        queues.find(label), label.size(),
        label + "  nodeTaints: [{key: reserved, value: \"true\", effect: NoSchedule}]\n");
  const auto dir = folder_with(kFixture, "cluster/queues.yaml", queues);
  std::ofstream(dir + "/cluster/credits-only.yaml") << kCreditsOnly;
  std::ofstream(dir + "/kmc.yaml", std::ios::app)
      << "  - name: job-e-never-runs\n    always: \"phase[default/job-e] != Admitted\"\n";
  const auto r = kmc("check " + dir + " --property job-e-never-runs --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "State 1: <Schedule>"));
  CHECK(has(r.out, "Reproduced in the engine"));
}

namespace {
// The shared-quota example with a ProvisioningRequest check on `flavor` that
// the autoscaler accepts and never provisions, and job-e asking for credits
// only: a workload waits for a check only where one of the flavors assigned
// to what it requests is in onFlavors (AdmissionChecksForWorkload,
// findAdmissionFlavors), whichever group that flavor is in.
std::string with_hanging_check(const std::string& flavor) {
  std::string queues = slurp(kFixture + "/cluster/queues.yaml");
  const std::string spec = "  namespaceSelector: {}\n";
  queues.replace(queues.find(spec), spec.size(),
                 spec +
                     "  admissionChecksStrategy:\n    admissionChecks:\n    - name: prov\n"
                     "      onFlavors: [" +
                     flavor + "]\n");
  queues =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ProvisioningRequestConfig\nmetadata:\n"
      "  name: prov-config\nspec:\n  provisioningClassName: "
      "best-effort-atomic-scaleup.autoscaling.x-k8s.io\n---\n"
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata:\n  name: prov\n"
      "spec:\n  controllerName: kueue.x-k8s.io/provisioning-request\n  parameters:\n"
      "    apiGroup: kueue.x-k8s.io\n    kind: ProvisioningRequestConfig\n    name: prov-config\n"
      "---\n" +
      queues;
  const auto dir = folder_with(kFixture, "cluster/queues.yaml", queues);
  std::ofstream(dir + "/cluster/credits-only.yaml") << kCreditsOnly;
  std::ofstream(dir + "/kmc.yaml", std::ios::app)
      << "  - name: job-e-never-runs\n    always: \"phase[default/job-e] != Admitted\"\n"
         "  - name: job-a-never-on-demand\n"
         "    always: \"!(phase[default/job-a] == Admitted && flavor[default/job-a] == "
         "on-demand)\"\n"
         "autoscaler: {answer: AcceptsThenHangs}\n";
  return dir;
}
}  // namespace

TEST_CASE("resource groups: an admission check applies where its flavors are assigned",
          "[cli][admission][resource-groups][checks]") {
  // On the first CPU flavor: job-e, assigned credits alone, does not wait for
  // it and runs; a job in on-demand waits forever.
  auto dir = with_hanging_check("on-demand");
  auto r = kmc("check " + dir + " --property job-e-never-runs --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Reproduced in the engine"));
  r = kmc("check " + dir + " --property job-a-never-on-demand");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  // On the credits flavor, of a one-flavor group: every job is assigned it, so
  // none is ever admitted, job-e included, in either CPU flavor.
  dir = with_hanging_check("credits");
  r = kmc("check " + dir + " --property job-e-never-runs --property job-d-never-runs");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  // On spot: job-a runs in on-demand, and the trace replays in the engine.
  dir = with_hanging_check("spot");
  r = kmc("check " + dir + " --property job-a-never-on-demand --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Reproduced in the engine"));
}

TEST_CASE("resource groups: a ClusterQueue covering pods charges one per pod",
          "[cli][admission][resource-groups][pods]") {
  const std::string dir = std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/pods-quota";
  auto r = kmc("check " + dir +
               " --property never-three --property pods-within-quota --property "
               "no-over-admission --property usage-counted-once");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  // c runs once a or b finishes, and that trace replays in the engine, which
  // counts the pods too.
  r = kmc("check " + dir + " --property c-never-runs --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Reproduced in the engine"));
  r = kmc("admit " + dir + "/cluster --expect admitted=ns/a,admitted=ns/b,pending=ns/c");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
}

// Kueue orders one priority by the second of its creationTimestamp, then by
// metadata.uid, which kmc does not read: a tie is a warning naming the second
// workload's file and line, and the run goes on in name order.
TEST_CASE("queue order: two workloads created in one second are a warning",
          "[cli][admission][queue-order]") {
  const std::string fixture = std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/pods-quota";
  std::string manifests = slurp(fixture + "/cluster/manifests.yaml");
  for (const std::string name : {"a", "b"}) {
    const std::string meta = "metadata: {name: " + name + ", namespace: ns}";
    manifests.replace(manifests.find(meta), meta.size(),
                      "metadata: {name: " + name +
                          ", namespace: ns, creationTimestamp: \"2026-12-05T10:00:00Z\"}");
  }
  const auto dir = folder_with(fixture, "cluster/manifests.yaml", manifests);
  const auto r = kmc("check " + dir + " --property pods-within-quota");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out + r.err, "manifests.yaml:"));
  CHECK(has(r.out + r.err, "ns/a and ns/b have one priority and one creationTimestamp"));
}
