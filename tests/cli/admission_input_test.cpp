// The kueue-admission protocol as a user meets it: its examples through the
// real binary, and every kind of bad input exit 3 naming file, line and field.
#include <catch2/catch.hpp>

#include "cli/run_kmc.hpp"

namespace {

// A copy of `example` with one replacement in one file; the error must name `where` and `what`.
void refused_in(const std::string& example, const std::string& rel, const std::string& from,
                const std::string& to, const std::string& where, const std::string& what) {
  const auto dir = example_replacing(example, rel, from, to);
  const auto r = kmc("check " + dir);
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(r.err.find(where) != std::string::npos);
  CHECK(r.err.find(what) != std::string::npos);
}

void refused(const std::string& rel, const std::string& from, const std::string& to,
             const std::string& where, const std::string& what) {
  refused_in("zombie-pod", rel, from, to, where, what);
}

}  // namespace

TEST_CASE("kueue-admission examples: violated as the seeds say, fixed ones verify",
          "[cli][admission]") {
  auto r = kmc("check examples/zombie-pod");
  CHECK(r.code == 1);
  CHECK(r.out.find("Property guarantee-not-stuck is violated") != std::string::npos);
  CHECK(r.out.find("KubeletLost(research/sweep)") != std::string::npos);
  CHECK(kmc("check examples/zombie-pod-fixed").code == 0);
  r = kmc("check examples/preemption-grace-hol");
  CHECK(r.code == 1);
  CHECK(r.out.find("Property no-head-of-line-blocking is violated") != std::string::npos);
  CHECK(kmc("check examples/preemption-grace-hol-fixed").code == 0);
  r = kmc("check examples/plain-scheduler-gang-deadlock");
  CHECK(r.code == 1);
  CHECK(r.out.find("Property no-gang-deadlock is violated") != std::string::npos);
  CHECK(r.err.find("warning") == std::string::npos);  // no queue needed without Kueue
  // Its report suggests no engine replay: this protocol has no engine.
  CHECK(r.out.find("--replay-engine") == std::string::npos);
  CHECK(kmc("check examples/plain-scheduler-gang-deadlock-fixed").code == 0);
  // The trace renders from its token, and an edited trace is refused.
  const auto trace = temp_path("zombie.itf.json");
  REQUIRE(kmc("check examples/zombie-pod --trace-out " + trace).code == 1);
  r = kmc("render " + trace);
  CHECK(r.code == 0);
  CHECK(r.out.find("KubeletLost") != std::string::npos);
  auto text = slurp(trace);
  const auto at = text.find("\"StuckTerminating\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, 18, "\"Evicted\"");
  std::ofstream(trace) << text;
  r = kmc("render " + trace);
  CHECK(r.code == 3);
  // The edited cell, its line and what the token gives instead.
  CHECK(names_line(r.err, trace, "states[2].phase"));
  CHECK(r.err.find("the token gives \"StuckTerminating\"") != std::string::npos);
}

TEST_CASE("kueue-admission: bad input is exit 3 naming file, line and field",
          "[cli][admission][bad-input]") {
  refused("cluster/queues.yaml", "              nominalQuota: 0", "              nominalQuota: -2",
          "queues.yaml:", "nominalQuota: quantity '-2' must not be negative");
  refused("cluster/queues.yaml", "metadata:\n  name: gpu-pool\n",
          "metadata:\n  name: gpu-pool\nspec:\n  parentName: gpu-pool\n",
          "queues.yaml:", "spec.parentName: cohort gpu-pool is its own ancestor");
  refused("kmc.yaml", "variant: pre-7312", "variant: pre-0000",
          "kmc.yaml:", "options.variant: unknown variant 'pre-0000' for kueue-admission");
  refused("kmc.yaml", "cluster: cluster ", "cluster: elsewhere ", "zombie-pod", "folder");
  refused("cluster/queues.yaml", "  name: batch\nspec:\n",
          "  name: batch\nspec:\n  admissionChecks: [prov]\n", "queues.yaml:", "admission");
  refused("cluster/workloads.yaml", "  queueName: team-a", "  queueName: team-z",
          "workloads.yaml:", "spec.queueName");
  refused("kmc.yaml", "protocol: kueue-admission",
          "protocol: kueue-admission\nworkers: [{name: w1}]", "kmc.yaml:", "workers");
  // Fair sharing over nested cohorts is not modelled yet: refused, naming the Configuration.
  const auto dir =
      example_replacing("zombie-pod", "cluster/queues.yaml", "metadata:\n  name: gpu-pool\n",
                        "metadata:\n  name: gpu-pool\nspec:\n  parentName: org\n");
  std::ofstream(dir + "/cluster/kueue-config.yaml")
      << "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
         "fairSharing: {preemptionStrategies: [LessThanInitialShare]}\n";
  const auto r = kmc("check " + dir);
  CHECK(r.code == 3);
  CHECK(r.err.find("kueue-config.yaml:") != std::string::npos);
  CHECK(r.err.find("fairSharing: kueue-admission models fair sharing over flat cohorts") !=
        std::string::npos);
}

TEST_CASE("kueue-admission: a lone Pod's quota goes at eviction, a pod group's waits for its pods",
          "[cli][admission][pods]") {
  // (*Pod).IsActive counts a group's pods only. zombie-pod's sweep as a lone Pod (owned by a
  // Pod, no group mark) releases its quota when preempted, so no stuck pod can hold it.
  const std::string label = "  labels: {kueue.x-k8s.io/pod-group-name: sweep}\n";
  auto dir = example_replacing("zombie-pod", "cluster/workloads.yaml", label, "");
  auto r = kmc("check " + dir + " --property guarantee-not-stuck");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  // Kueue's own mark on a pod group's Workload keeps the seed's violation.
  dir = example_replacing("zombie-pod", "cluster/workloads.yaml", label,
                          "  annotations: {kueue.x-k8s.io/is-group-workload: \"true\"}\n");
  r = kmc("check " + dir + " --property guarantee-not-stuck");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
}

TEST_CASE("kueue-admission: a ProvisioningRequest accepted and never answered (accept-then-hang)",
          "[cli][admission][checks]") {
  auto r = kmc("check examples/provisioning-accept-then-hang");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("Property guarantee-not-stuck is violated") != std::string::npos);
  CHECK(r.out.find("waits for admission check(s) dws-prov") != std::string::npos);
  // The engine reserves quota, creates the ProvisioningRequest, and waits with the model.
  const auto at = r.out.find("--replay kmc1:");
  REQUIRE(at != std::string::npos);
  const auto token = r.out.substr(at + 9, r.out.find('\n', at) - at - 9);
  r = kmc("check examples/provisioning-accept-then-hang --replay " + token + " --replay-engine");
  CHECK(r.code == 1);
  CHECK(r.out.find("Replay in the engine: Reproduced") != std::string::npos);
  CHECK(r.out.find("ProvisioningRequest train-dws-prov-1 created") != std::string::npos);
  CHECK(kmc("check examples/provisioning-accept-then-hang-fixed").code == 0);
}

TEST_CASE("kueue-admission: a quota cut while blockAdmission sleeps is exceeded, not without it",
          "[cli][admission][block-admission]") {
  auto r = kmc("check examples/block-admission-quota-cut --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("no-over-admission          Violated") != std::string::npos);
  CHECK(r.out.find("research/finetune in h100 -> none") != std::string::npos);
  CHECK(r.out.find("Replay in the engine: Reproduced") != std::string::npos);
  r = kmc("check examples/block-admission-quota-cut-fixed");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("Stats: 53 states") != std::string::npos);
}

TEST_CASE("kueue-admission: blockAdmission turns one hung check into a cluster-wide stall",
          "[cli][admission][checks]") {
  auto r = kmc("check examples/provisioning-block-admission");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("research/notebook (Pending) fits ClusterQueue interactive's nominal quota") !=
        std::string::npos);
  CHECK(r.out.find("waitForPodsReady.blockAdmission") != std::string::npos);
  r = kmc("check examples/provisioning-block-admission --replay-engine");
  CHECK(r.code == 1);
  CHECK(r.out.find("Replay in the engine: Reproduced") != std::string::npos);
  CHECK(kmc("check examples/provisioning-block-admission-fixed").code == 0);
  // Managing a resource that nothing covers or requests: no workload needs a
  // ProvisioningRequest (reqIsNeeded), so its check is Ready at once and
  // nothing hangs. The same states as with the check managing cpu, which the
  // notebook requests only in a ClusterQueue without the check.
  for (const std::string managed : {"example.com/fpga", "cpu"}) {
    const auto dir =
        example_with("provisioning-block-admission", "cluster/queues.yaml",
                     example_text_replacing("provisioning-block-admission", "cluster/queues.yaml",
                                            "managedResources: [nvidia.com/gpu]",
                                            "managedResources: [" + managed + "]"));
    r = kmc("check " + dir);
    INFO(managed << "\n" << r.out << r.err);
    CHECK(r.code == 0);
    CHECK(has(r.out, "Stats: 5 states, 5 transitions"));
  }
}

TEST_CASE("kueue-admission: bad admission checks are exit 3 naming file, line and field",
          "[cli][admission][checks][bad-input]") {
  const std::string ex = "provisioning-accept-then-hang";
  refused_in(ex, "cluster/queues.yaml", "controllerName: kueue.x-k8s.io/provisioning-request",
             "controllerName: example.com/budget",
             "queues.yaml:", "spec.controllerName: kueue-admission models the ProvisioningRequest");
  refused_in(ex, "cluster/queues.yaml", "controllerName: kueue.x-k8s.io/provisioning-request",
             "controllerName: kueue.x-k8s.io/multikueue",
             "queues.yaml:22:", "spec.parameters.name: MultiKueueConfig 'dws-config' not found");
  refused_in(
      ex, "cluster/queues.yaml", "    name: dws-config\n", "    name: dws-other\n",
      "queues.yaml:", "spec.parameters.name: ProvisioningRequestConfig 'dws-other' not found");
  refused_in(ex, "cluster/queues.yaml", "      - name: dws-prov\n", "      - name: dws-gone\n",
             "queues.yaml:33:",
             "spec.admissionChecksStrategy.admissionChecks[0].name: AdmissionCheck 'dws-gone' not "
             "found");
  refused_in(ex, "kmc.yaml", "answer: AcceptsThenHangs", "answer: Sometimes",
             "kmc.yaml:", "autoscaler.answer");
}

TEST_CASE("kmc admit on a scenario folder runs its cluster, as kmc check reads it",
          "[cli][admission][admit]") {
  auto r = kmc("admit examples/provisioning-block-admission");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.err.find("warning") == std::string::npos);  // kmc.yaml is not read as a manifest
  CHECK(r.out.find("research/train  QuotaReserved") != std::string::npos);
  CHECK(r.out.find("waiting for all admitted workloads to be in PodsReady condition") !=
        std::string::npos);
  // A MultiKueue scenario has several clusters: the user names one.
  r = kmc("admit examples/three-workers");
  CHECK(r.code == 3);
  CHECK(names_line(r.err, "examples/three-workers/kmc.yaml", "protocol"));
}

// A gate set away from its default that the engine does not read would make
// kmc admit answer for a Kueue it does not run: a warning that may change the
// answer, refused under --strict. One the engine reads is no warning.
TEST_CASE("kmc admit warns about a feature gate the engine does not read",
          "[cli][admission][admit]") {
  const auto config = [](const std::string& gate) {
    return example_with("zombie-pod", "cluster/kueue-config.yaml",
                        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                        "featureGates:\n  " +
                            gate + ": false\n");
  };
  const std::string off = config("FlavorFungibility");
  auto r = kmc("admit " + off);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(names_line(r.err, "kueue-config.yaml", "featureGates.FlavorFungibility"));
  CHECK(has(r.err, "the engine models Kueue with FlavorFungibility at its default (on)"));
  CHECK(kmc("admit --strict " + off).code == 3);
  r = kmc("admit " + config("SchedulingEquivalenceHashing"));
  CHECK(r.code == 0);
  CHECK_FALSE(has(r.err, "featureGates"));
}

TEST_CASE("kueue-admission: PodsReady timeouts need waitForPodsReady on",
          "[cli][admission][pods-ready]") {
  const auto dir = example_replacing("zombie-pod", "kmc.yaml", "environment: {stuckTerminating: 1}",
                                     "environment: {stuckTerminating: 1, podsReadyTimeouts: 1}");
  auto r = kmc("check " + dir + " --property no-over-admission");
  INFO(r.out << r.err);
  CHECK(r.code == 0);  // waitForPodsReady is on by default
  CHECK(r.out.find("budget[podsReadyTimeouts]") == std::string::npos);  // verified: no trace
  // Off: a v1beta1 Configuration without `enable: true`, or the feature gate.
  for (const char* off : {"apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
                          "waitForPodsReady: {timeout: 5m}\n",
                          "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                          "featureGates: {DisableWaitForPodsReady: true}\n"}) {
    std::ofstream(dir + "/cluster/kueue-config.yaml") << off;
    r = kmc("check " + dir);
    INFO(off << r.err);
    CHECK(r.code == 3);
    CHECK(names_line(r.err, dir + "/cluster/kueue-config.yaml", "waitForPodsReady"));
    CHECK(r.err.find("podsReadyTimeouts is 1") != std::string::npos);
  }
  // With blockAdmission, late pods keep the scheduler asleep: the sweep's
  // stuck victim still starves the teams, and the engine agrees.
  std::ofstream(dir + "/cluster/kueue-config.yaml")
      << "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
         "waitForPodsReady: {blockAdmission: true}\n";
  r = kmc("check " + dir + " --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("unready[") != std::string::npos);
  CHECK(r.out.find("guarantee-not-stuck       Violated") != std::string::npos);
  CHECK(r.out.find("Result: Violated (Reproduced in the engine)") != std::string::npos);
  // 100 states and 171 transitions while the woken goroutine started a new
  // cycle: now it admits the entry it held, and an awake goroutine holding it
  // is a state of its own until it does.
  CHECK(r.out.find("Stats: 101 states, 175 transitions") != std::string::npos);
}

TEST_CASE("kueue-admission: failed admission writes are checked and replayed in the engine",
          "[cli][admission][write-failures]") {
  // #805's cohort with today's Kueue: a patch in flight may meet a preemptor,
  // fail, or land; the cohort stays within its quota either way.
  const std::string from = "options: {variant: pre-805}";
  auto dir = example_replacing("cohort-shared-victim", "kmc.yaml", from,
                               "environment: {admissionWriteFailures: 2}");
  auto r = kmc("check " + dir);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  // 517: a preemptor stays its queue's sticky head while its own admission's
  // patch is in flight, and after the patch fails (it was 496 when kmc forgot
  // it at the reservation, where Kueue forgets it once the write is seen).
  CHECK(r.out.find("Stats: 517 states, 1298 transitions") != std::string::npos);
  // A failure is a step of a trace, and the engine fails the same patch.
  dir = example_replacing("cohort-shared-victim", "kmc.yaml", from,
                          "environment: {admissionWriteFailures: 2}\n"
                          "properties:\n  - name: every-write-lands\n"
                          "    always: \"budget[admissionWriteFailures] == 2\"\n");
  r = kmc("check " + dir + " --property every-write-lands --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("<AdmissionWriteFailed(") != std::string::npos);
  CHECK(r.out.find("its admission patch failed: the cache forgot it") != std::string::npos);
  CHECK(r.out.find("Result: Violated (Reproduced in the engine)") != std::string::npos);
  // Only one cluster's Kueue has this budget.
  refused_in("gpu-hunter", "kmc.yaml", "environment: {snapshotRefreshes: -1}",
             "environment: {snapshotRefreshes: -1, admissionWriteFailures: 1}",
             "environment.admissionWriteFailures", "a budget of protocol kueue-admission");
  refused("kmc.yaml", "environment: {stuckTerminating: 1}",
          "environment: {stuckTerminating: 1, admissionWriteFailures: -1}",
          "environment.admissionWriteFailures", "out of range");
}

TEST_CASE("kmc check: failed eviction writes are steps the engine replays",
          "[cli][admission][eviction-failures]") {
  // #805's cohort with today's Kueue: an eviction patch may fail; the victim
  // keeps running and the preemptor tries again, within the cohort's quota.
  const std::string from = "options: {variant: pre-805}";
  auto dir = example_replacing("cohort-shared-victim", "kmc.yaml", from,
                               "environment: {evictionWriteFailures: 2}");
  auto r = kmc("check " + dir);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("Stats: 160 states, 315 transitions") != std::string::npos);
  dir = example_replacing("cohort-shared-victim", "kmc.yaml", from,
                          "environment: {evictionWriteFailures: 2}\n"
                          "properties:\n  - name: every-eviction-lands\n"
                          "    always: \"budget[evictionWriteFailures] == 2\"\n");
  r = kmc("check " + dir + " --property every-eviction-lands --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("<EvictionWriteFailed(default/beta-high)>") != std::string::npos);
  CHECK(r.out.find("whose eviction patch of default/beta-high failed") != std::string::npos);
  CHECK(r.out.find("Result: Violated (Reproduced in the engine)") != std::string::npos);
  refused_in("gpu-hunter", "kmc.yaml", "environment: {snapshotRefreshes: -1}",
             "environment: {snapshotRefreshes: -1, evictionWriteFailures: 1}",
             "environment.evictionWriteFailures", "a budget of protocol kueue-admission");
  refused("kmc.yaml", "environment: {stuckTerminating: 1}",
          "environment: {stuckTerminating: 1, evictionWriteFailures: -2}",
          "environment.evictionWriteFailures", "out of range");
}

TEST_CASE("kmc check: pod failures need blockAdmission", "[cli][admission][pod-failures]") {
  // Where blockAdmission waits on them a failed pod is a step the engine replays.
  auto dir = example_replacing("provisioning-block-admission-fixed", "kmc.yaml", "kind: Fleet",
                               "kind: Fleet\nenvironment: {podFailures: 1}\n"
                               "properties:\n  - name: pods-never-fail\n"
                               "    always: \"budget[podFailures] == 1\"");
  auto r = kmc("check " + dir + " --property pods-never-fail --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("<PodFailed(") != std::string::npos);
  CHECK(r.out.find("Result: Violated (Reproduced in the engine)") != std::string::npos);
  // Without blockAdmission nothing reads it: exit 3, naming the budget's line.
  refused("kmc.yaml", "environment: {stuckTerminating: 1}",
          "environment: {stuckTerminating: 1, podFailures: 1}", "environment.podFailures",
          "blockAdmission is off");
}

TEST_CASE("kueue-admission: check-capacity without noRetry holds its quota like a hung request",
          "[cli][admission][checks]") {
  // The Cluster Autoscaler fails a check-capacity request it finds no room
  // for only with parameters.noRetry "true" (checkcapacity/provisioningclass.go);
  // otherwise it is Provisioned=False, tried again later, and the workload
  // keeps its quota: the fix does not fix without it. autoscaler.answer
  // AcceptsThenHangs: no room is ever found.
  const std::string ex = "provisioning-accept-then-hang-fixed";
  auto r = kmc("check examples/" + ex);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  const auto dir = example_with(
      ex, "cluster/queues.yaml",
      example_text_replacing(ex, "cluster/queues.yaml", "  parameters: {noRetry: \"true\"}", ""));
  r = kmc("check " + dir + " --strict --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);  // modelled now: neither a warning nor refused by --strict
  CHECK(has(r.out, "Property guarantee-not-stuck is violated"));
  CHECK(has(r.out, "Reproduced in the engine"));
  CHECK_FALSE(has(r.out + r.err, "<ProvisioningFailed>"));
}

TEST_CASE("kueue-admission: a revoked capacity deactivates a workload still waiting on a check",
          "[cli][admission][checks][revocations]") {
  // train waits for two checks; the first is Provisioned, and its capacity is
  // revoked before the second answers. Kueue's syncCheckStates rejects it all
  // the same (an active, unfinished workload holding quota), and the engine agrees.
  const std::string ex = std::string(KMC_SOURCE_DIR) + "/examples/provisioning-block-admission";
  std::string queues = slurp(ex + "/cluster/queues.yaml");
  const std::string check = "      - name: dws-prov\n";
  queues.replace(queues.find(check), check.size(), check + "      - name: dws-prov-b\n");
  queues +=
      "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata:\n"
      "  name: dws-prov-b\nspec:\n  controllerName: kueue.x-k8s.io/provisioning-request\n"
      "  parameters:\n    apiGroup: kueue.x-k8s.io\n    kind: ProvisioningRequestConfig\n"
      "    name: dws-config\n";
  const auto dir = folder_with(ex, "cluster/queues.yaml", queues);
  std::string kmc_yaml = slurp(ex + "/kmc.yaml");
  const std::string answer = "autoscaler: {answer: AcceptsThenHangs}";
  kmc_yaml.replace(kmc_yaml.find(answer), answer.size(),
                   "autoscaler: {answer: Any}\nenvironment: {capacityRevocations: 1}\n"
                   "properties:\n  - name: train-never-deactivated\n"
                   "    always: \"phase[research/train] != Deactivated\"");
  std::ofstream(dir + "/kmc.yaml") << kmc_yaml;
  const auto r = kmc("check " + dir + " --property train-never-deactivated --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "State 2: <Provisioned(research/train, dws-prov)>"));
  CHECK(has(r.out, "State 3: <CapacityRevoked(research/train, dws-prov)>"));
  CHECK(has(r.out, "Reproduced in the engine"));
}

// The model and the engine agree on a hierarchical reclaim that Kueue refuses
// (QuantitiesFitInQuota checks a resource covered below at each cohort too):
// the preemptor is parked, in the trace and in the engine's replay, and the
// borrower it could not reclaim from runs on.
TEST_CASE("kueue-admission: no hierarchical advantage where a cohort is over on another resource",
          "[cli][admission][hierarchy]") {
  const auto r = kmc("check " + std::string(KMC_SOURCE_DIR) +
                     "/tests/cli/fixtures/hierarchy-covered-below --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(has(r.out, "Result: Violated (Reproduced in the engine)"));
  CHECK(has(r.out, "phase[ns/p]                    Pending -> Inadmissible"));
  CHECK_FALSE(has(r.out, "phase[ns/x1]                   Admitted"));  // never evicted
}

// Kueue weighs a request of 0 in flavor assignment (the borrowing level); the
// model does not, and says so for a resource its ClusterQueue covers.
TEST_CASE("kueue-admission: a request of 0 of a covered resource is a warning",
          "[cli][admission][hierarchy]") {
  const std::string fixture =
      std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/hierarchy-covered-below";
  const std::string text = slurp(fixture + "/cluster/manifests.yaml");
  const std::string from = "{cpu: 3, memory: 1}";
  REQUIRE(text.find(from) != std::string::npos);
  for (const auto& [requests, warned] :
       {std::pair{"{cpu: 3, memory: 0}", true}, std::pair{"{cpu: 3, example.com/foo: 0}", false}}) {
    std::string edited = text;
    edited.replace(edited.find(from), from.size(), requests);
    const auto dir = folder_with(fixture, "cluster/manifests.yaml", edited);
    const auto r = kmc("check " + dir + " --property p-never-parked");
    INFO(requests << "\n" << r.err);
    CHECK(has(r.err, "ns/p requests 0 of memory") == warned);
  }
}
