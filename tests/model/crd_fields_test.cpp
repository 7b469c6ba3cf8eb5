// Every spec field of Kueue's CRDs (kueue.x-k8s.io v1beta1 and v1beta2 at the
// reference commit of docs/kueue-semantics.md) loads: one manifest per kind in
// tests/model/fixtures/crd-fields/<version>/, each using every field. Fields
// kmc does not model are warnings, never exit 3; those that change who is
// admitted say so. A misspelled field is still an error.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <set>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::fixture;
using kmc::test::input_error_of;

namespace {

// "file: field" of every warning, file without its folder.
std::set<std::string> warned(const Warnings& warnings) {
  std::set<std::string> out;
  for (const auto& w : warnings) {
    const std::string file = w.pos.file.substr(w.pos.file.rfind('/') + 1);
    out.insert(file + ": " + w.field + (w.may_change_answer ? " (may change)" : ""));
  }
  return out;
}

// Every warning that may change the answer says how, under its kind's concept.
void check_consequences(const Warnings& warnings) {
  for (const auto& w : warnings) {
    INFO(w.to_string());
    if (!w.may_change_answer) continue;
    CHECK(contains(w.message, "may differ because"));
    CHECK(w.concept_.find('.') != std::string::npos);
    CHECK(std::isupper(static_cast<unsigned char>(w.concept_[0])));
  }
}

}  // namespace

TEST_CASE("every v1beta2 field of Kueue's kinds loads, the unmodeled ones as warnings") {
  const auto m = load_cluster_manifests({fixture("crd-fields/v1beta2")});
  CHECK(warned(m.warnings) == std::set<std::string>{
                                  "clusterqueue.yaml: spec.admissionScope (may change)",
                                  "clusterqueue.yaml: spec.concurrentAdmissionPolicy (may change)",
                                  "localqueue.yaml: spec.fairSharing (may change)",
                                  "provisioningrequestconfig.yaml: spec.podSetMergePolicy",
                                  "provisioningrequestconfig.yaml: spec.podSetUpdates",
                                  "resourceflavor.yaml: spec.topologyName (may change)",
                                  "topology.yaml: kind",
                                  "workload.yaml: spec.maximumExecutionTimeSeconds (may change)",
                                  "workload.yaml: spec.podSets[0].topologyRequest (may change)",
                                  "workload.yaml: spec.preemptionGates (may change)",
                              });
  check_consequences(m.warnings);
  REQUIRE(m.cluster_queues.size() == 1);
  CHECK(m.cluster_queues[0].cohort == "research");
  CHECK(m.cluster_queues[0].flavor_fungibility.preference ==
        FungibilityPreference::BorrowingOverPreemption);
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].priority == 1000);
  CHECK(m.workloads[0].pod_sets[0].min_count == 2);
  CHECK(m.resource_flavors[0].tolerations.size() == 1);
  CHECK(m.multikueue_clusters.size() == 2);
}

TEST_CASE("every v1beta1 field of Kueue's kinds loads, the unmodeled ones as warnings") {
  const auto m = load_cluster_manifests({fixture("crd-fields/v1beta1")});
  CHECK(warned(m.warnings) == std::set<std::string>{
                                  "admissioncheck.yaml: spec.retryDelayMinutes",
                                  "clusterqueue.yaml: spec.admissionScope (may change)",
                                  "localqueue.yaml: spec.fairSharing (may change)",
                                  "provisioningrequestconfig.yaml: spec.podSetMergePolicy",
                                  "provisioningrequestconfig.yaml: spec.podSetUpdates",
                                  "resourceflavor.yaml: spec.topologyName (may change)",
                                  "topology.yaml: kind",
                                  "workload.yaml: spec.maximumExecutionTimeSeconds (may change)",
                                  "workload.yaml: spec.podSets[0].topologyRequest (may change)",
                              });
  check_consequences(m.warnings);
  REQUIRE(m.cluster_queues.size() == 2);
  CHECK(m.cluster_queues[0].cohort == "research");
  CHECK(m.cluster_queues[0].admission_checks.size() == 1);
  CHECK(m.cluster_queues[1].admission_checks[0].on_flavors == std::vector<std::string>{"h100"});
  REQUIRE(m.workloads.size() == 1);
  CHECK_FALSE(m.workloads[0].active);
}

TEST_CASE("concurrentAdmissionPolicy is a warning that names what it changes") {
  const auto m = load_cluster_manifests({fixture("crd-fields/v1beta2/clusterqueue.yaml")});
  const auto it = std::find_if(m.warnings.begin(), m.warnings.end(), [](const Diagnostic& d) {
    return d.field == "spec.concurrentAdmissionPolicy";
  });
  REQUIRE(it != m.warnings.end());
  CHECK(it->concept_ == "ClusterQueue.spec.concurrentAdmissionPolicy");
  CHECK(it->pos.line == 46);
  CHECK(contains(it->message, "admission may differ because concurrent admission"));
}

TEST_CASE("a misspelled field of a Kueue kind is still an error naming file, line and field") {
  const std::string file =
      kmc::test::write_temp("misspelled.yaml", R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cq
spec:
  concurrentAdmissionPolicies:
    migration: {mode: TryPreferredFlavors}
)");
  const Diagnostic d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.pos == SourcePos{file, 6});
  CHECK(d.field == "spec.concurrentAdmissionPolicies");
  CHECK(contains(d.message, "unknown field"));
  CHECK(contains(d.message, "concurrentAdmissionPolicy"));  // the spelling it expected
}

TEST_CASE("a Configuration's process settings (tls, visibilityServer) are accepted silently") {
  const std::string file =
      kmc::test::write_temp("config-plumbing.yaml", R"(apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
tls:
  minVersion: VersionTLS13
visibilityServer:
  bindAddress: :8082
)");
  CHECK(load_cluster_manifests({file}).warnings.empty());
}
