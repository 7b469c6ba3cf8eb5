#include <algorithm>
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::fixture;
using kmc::test::input_error_of;

namespace {

bool has_warning(const Warnings& warnings, const std::string& field, const std::string& text) {
  return std::any_of(warnings.begin(), warnings.end(), [&](const Diagnostic& d) {
    return d.field == field && contains(d.message, text);
  });
}

}  // namespace

TEST_CASE("a v1beta2 ClusterQueue is read with every modeled field") {
  const auto m = load_cluster_manifests({fixture("gpu-fleet/manager")});
  REQUIRE(m.cluster_queues.size() == 1);
  const ClusterQueue& cq = m.cluster_queues[0];
  CHECK(cq.meta.name == "gpu");
  CHECK(cq.meta.pos == SourcePos{fixture("gpu-fleet/manager/queues.yaml"), 6});
  CHECK(cq.meta.creation_order == 1738324800);  // 2025-01-31T12:00:00Z
  CHECK(cq.cohort == "fleet");
  CHECK(cq.queueing_strategy == QueueingStrategy::StrictFIFO);
  CHECK(cq.namespace_selector.present);
  REQUIRE(cq.resource_groups.size() == 1);
  const auto& group = cq.resource_groups[0];
  CHECK(group.covered_resources == std::vector<ResourceName>{"nvidia.com/gpu", "cpu"});
  REQUIRE(group.flavors.size() == 1);
  CHECK(group.flavors[0].resources[0].nominal_quota == Quantity::from_units(16));
  CHECK(group.flavors[0].resources[0].borrowing_limit == Quantity::from_units(0));
  CHECK_FALSE(group.flavors[0].resources[0].lending_limit.has_value());
  CHECK(group.flavors[0].resources[1].nominal_quota.kueue_value("cpu") == 1500);
  CHECK(cq.preemption.within_cluster_queue == WithinClusterQueuePolicy::LowerPriority);
  CHECK(cq.preemption.reclaim_within_cohort == ReclaimWithinCohortPolicy::Any);
  CHECK(cq.preemption.borrow_within_cohort == BorrowWithinCohortPolicy::LowerPriority);
  CHECK(cq.preemption.max_priority_threshold == 100);
  CHECK(cq.flavor_fungibility.when_can_borrow == WhenCanBorrow::TryNextFlavor);
  CHECK(cq.flavor_fungibility.when_can_preempt == WhenCanPreempt::MayStopSearch);
  REQUIRE(cq.admission_checks.size() == 1);
  CHECK(cq.admission_checks[0].name == "multikueue");
  CHECK(cq.fair_sharing_weight == Quantity::from_units(2));
}

TEST_CASE("fields Kueue defines but kmc does not model are warnings with their line") {
  const auto m = load_cluster_manifests({fixture("gpu-fleet/manager")});
  CHECK(has_warning(m.warnings, "spec.admissionScope",
                    "kmc does not model spec.admissionScope; ignored"));
  auto it = std::find_if(m.warnings.begin(), m.warnings.end(),
                         [](const Diagnostic& d) { return d.field == "spec.admissionScope"; });
  REQUIRE(it != m.warnings.end());
  CHECK(it->pos == SourcePos{fixture("gpu-fleet/manager/queues.yaml"), 43});
  CHECK(has_warning(m.warnings, "objectRetentionPolicies",
                    "kmc does not model objectRetentionPolicies"));
  // manageJobsWithoutQueueName: false is Kueue's default, which kmc models.
  for (const auto& w : m.warnings) CHECK(w.field != "manageJobsWithoutQueueName");
  CHECK(has_warning(m.warnings, "kind", "kmc does not model kind Secret"));
}

TEST_CASE("a v1beta1 kind: List dump maps cohort and admissionChecks onto the v1beta2 shape") {
  const auto m = load_cluster_manifests({fixture("gpu-fleet/workers/us-central1")});
  REQUIRE(m.cluster_queues.size() == 1);
  const ClusterQueue& cq = m.cluster_queues[0];
  CHECK(cq.cohort == "region");
  REQUIRE(cq.admission_checks.size() == 1);
  CHECK(cq.admission_checks[0].name == "dws");
  CHECK(cq.admission_checks[0].on_flavors.empty());
  CHECK(cq.resource_groups[0].flavors[0].resources[0].lending_limit == Quantity::from_units(4));
  CHECK(cq.flavor_fungibility.when_can_borrow == WhenCanBorrow::MayStopSearch);
  CHECK(cq.flavor_fungibility.when_can_preempt == WhenCanPreempt::MayStopSearch);
  CHECK(cq.meta.pos == SourcePos{fixture("gpu-fleet/workers/us-central1/dump.yaml"), 17});
  REQUIRE(m.resource_flavors.size() == 1);
  CHECK(m.resource_flavors[0].node_taints.size() == 1);
  CHECK(m.resource_flavors[0].tolerations[0].op == "Exists");
  CHECK(has_warning(m.warnings, "items[0].spec.topologyName", "kmc does not model"));
  const auto* prc = m.find_provisioning_config("dws-config");
  REQUIRE(prc != nullptr);
  CHECK(prc->provisioning_class_name == "best-effort-atomic-scaleup.autoscaling.x-k8s.io");
  CHECK(prc->retry_strategy.backoff_limit_count == 1);
  CHECK(prc->retry_strategy.backoff_base_seconds == 30);
  CHECK(prc->retry_strategy.backoff_max_seconds == 1800);
  CHECK(prc->parameters.at("ValidUntilSeconds") == "600");
}

TEST_CASE("a batch/v1 Job with the queue-name label becomes a Workload as Kueue converts it") {
  const auto m = load_cluster_manifests({fixture("gpu-fleet/workers/us-central1")});
  REQUIRE(m.workloads.size() == 1);  // the Job without the label is not Kueue's
  const Workload& wl = m.workloads[0];
  CHECK(wl.source_kind == "Job");
  CHECK(wl.meta.name == "sample");
  CHECK(wl.meta.namespace_ == "research");
  CHECK(wl.queue_name == "team-a");
  CHECK(wl.priority == -5);
  CHECK(wl.priority_class_name == "low");
  CHECK(wl.runtime_s == 120);
  REQUIRE(wl.pod_sets.size() == 1);
  CHECK(wl.pod_sets[0].name == "main");
  CHECK(wl.pod_sets[0].count == 3);
  CHECK(wl.pod_sets[0].requests.at("nvidia.com/gpu") == Quantity::from_units(1));  // from limits
  CHECK(wl.pod_sets[0].requests.at("memory") == parse_quantity("4Gi"));            // request wins
  CHECK(has_warning(m.warnings, "metadata.labels", "no kueue.x-k8s.io/queue-name label"));
}

TEST_CASE("a Workload's priority class, pod requests and status are read") {
  const auto m = load_cluster_manifests({fixture("gpu-fleet/manager")});
  REQUIRE(m.workloads.size() == 1);
  const Workload& wl = m.workloads[0];
  CHECK(wl.priority == 1000);
  CHECK(wl.runtime_s == 3600);
  const PodSet& ps = wl.pod_sets[0];
  CHECK(ps.count == 4);
  CHECK(ps.min_count == 2);
  // max(init 3 cpu, containers 1 + 0.5 cpu) and max(1Gi, 2Gi) memory.
  CHECK(ps.requests.at("cpu") == Quantity::from_units(3));
  CHECK(ps.requests.at("memory") == parse_quantity("2Gi"));
  CHECK(ps.requests.at("nvidia.com/gpu") == Quantity::from_units(2));
  CHECK(ps.node_selector.at("cloud.google.com/gke-accelerator") == "nvidia-h100");
  REQUIRE(wl.admission.has_value());
  CHECK(wl.admission->cluster_queue == "gpu");
  CHECK(wl.admission->pod_set_assignments[0].flavors.at("nvidia.com/gpu") == "h100");
  CHECK(wl.admission->pod_set_assignments[0].resource_usage.at("nvidia.com/gpu") ==
        Quantity::from_units(8));
  REQUIRE(wl.conditions.size() == 1);
  CHECK(wl.conditions[0].type == "QuotaReserved");
  CHECK(wl.admission_checks[0].state == CheckState::Pending);
  CHECK(wl.nominated_cluster_names == std::vector<std::string>{"us-central1"});
}

TEST_CASE("the Kueue Configuration inside kueue-manager-config sets gates and MultiKueue knobs") {
  const auto m = load_cluster_manifests({fixture("gpu-fleet/manager")});
  const KueueConfiguration& c = m.configuration;
  CHECK_FALSE(c.feature_gates.enabled("PartialAdmission"));
  CHECK(c.feature_gates.enabled("MultiKueueManagerQuotaAutomation"));
  CHECK(c.feature_gates.enabled("FlavorFungibility"));  // default
  CHECK(c.wait_for_pods_ready.timeout_s == 600);
  CHECK(c.wait_for_pods_ready.recovery_timeout_s == 600);
  CHECK(c.wait_for_pods_ready.block_admission);
  CHECK(c.multi_kueue.gc_interval_s == 90);
  CHECK(c.multi_kueue.worker_lost_timeout_s == 3600);
  CHECK(c.multi_kueue.dispatcher_name == kDispatcherIncremental);
  CHECK(c.multi_kueue.incremental_step_size == 2);
  CHECK(c.pos.file == fixture("gpu-fleet/manager/kueue-config.yaml"));
  auto it = std::find_if(m.warnings.begin(), m.warnings.end(),
                         [](const Diagnostic& d) { return d.field == "objectRetentionPolicies"; });
  REQUIRE(it != m.warnings.end());
  CHECK(it->pos.line == 27);  // line inside the file, not inside the embedded string
}

TEST_CASE("MultiKueue objects keep cluster order and the Active condition") {
  const auto m = load_cluster_manifests({fixture("gpu-fleet/manager")});
  REQUIRE(m.multikueue_configs.size() == 1);
  CHECK(m.multikueue_configs[0].clusters == std::vector<std::string>{"us-central1", "us-east1"});
  REQUIRE(m.multikueue_clusters.size() == 2);
  CHECK_FALSE(m.multikueue_clusters[0].active);
  CHECK(m.multikueue_clusters[1].active);
  const auto* ac = m.find_admission_check("multikueue");
  REQUIRE(ac != nullptr);
  CHECK(ac->controller_name == kMultiKueueController);
  CHECK(ac->parameters.name == "fleet");
}

TEST_CASE("v1beta2 Cohorts, Namespaces and label selectors are read") {
  const auto m = load_cluster_manifests({fixture("gpu-fleet/workers/us-east1")});
  REQUIRE(m.cohorts.size() == 1);
  CHECK(m.cohorts[0].parent == "world");
  CHECK(m.cohorts[0].fair_sharing_weight == parse_quantity("500m"));
  REQUIRE(m.namespaces.size() == 1);
  CHECK(m.namespaces[0].meta.labels.at("team") == "a");
  const auto& sel = m.cluster_queues[0].namespace_selector;
  CHECK(sel.present);
  REQUIRE(sel.match_expressions.size() == 1);
  CHECK(sel.match_expressions[0].values == std::vector<std::string>{"a", "b"});
  CHECK(m.cluster_queues[0].meta.creation_order < m.cohorts[0].meta.creation_order);
}

TEST_CASE("a field Kueue does not define is an error naming file, line and field") {
  const auto d = input_error_of([] { load_cluster_manifests({fixture("bad/unknown-field")}); });
  CHECK(d.pos == SourcePos{fixture("bad/unknown-field/cq.yaml"), 13});
  CHECK(d.field == "spec.resourceGroups[0].flavors[0].resources[0].borowingLimit");
  CHECK(contains(d.message, "unknown field"));
  CHECK(contains(d.message, "borrowingLimit"));
}

TEST_CASE("a v1beta1 spelling in a v1beta2 object is an unknown field") {
  // cohort is v1beta1's name for v1beta2's cohortName.
  const std::string file = kmc::test::write_temp("v1beta2-cohort.yaml",
                                                 "apiVersion: kueue.x-k8s.io/v1beta2\n"
                                                 "kind: ClusterQueue\n"
                                                 "metadata: {name: a}\n"
                                                 "spec:\n"
                                                 "  cohort: x\n");
  const auto d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.pos == SourcePos{file, 5});
  CHECK(d.field == "spec.cohort");
  CHECK(contains(d.message, "cohortName"));
}

TEST_CASE("a string where a number is needed is an error naming the field") {
  const std::string file = kmc::test::write_temp("wpc.yaml",
                                                 "apiVersion: kueue.x-k8s.io/v1beta2\n"
                                                 "kind: WorkloadPriorityClass\n"
                                                 "metadata: {name: a}\n"
                                                 "value: high\n");
  const auto d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.pos == SourcePos{file, 4});
  CHECK(d.field == "value");
  CHECK(d.message == "expected an integer, got 'high'");
}

TEST_CASE("a malformed quantity is an error naming the field and the text") {
  const auto d = input_error_of([] { load_cluster_manifests({fixture("bad/bad-quantity")}); });
  CHECK(d.pos == SourcePos{fixture("bad/bad-quantity/cq.yaml"), 15});
  CHECK(d.field == "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota");
  CHECK(contains(d.message, "'64GB'"));
}

TEST_CASE("an unknown enum value is an error listing the accepted values") {
  const auto d = input_error_of([] { load_cluster_manifests({fixture("bad/bad-enum")}); });
  CHECK(d.pos == SourcePos{fixture("bad/bad-enum/cq.yaml"), 6});
  CHECK(d.field == "spec.queueingStrategy");
  CHECK(d.message == "unknown value 'Fifo'; expected one of BestEffortFIFO, StrictFIFO");
}

TEST_CASE("a missing required field is an error at the object that lacks it") {
  const auto d = input_error_of([] { load_cluster_manifests({fixture("bad/missing-required")}); });
  CHECK(d.pos == SourcePos{fixture("bad/missing-required/prc.yaml"), 10});
  CHECK(d.field == "spec.provisioningClassName");
  CHECK(contains(d.message, "required"));
}

// metav1.Condition requires lastTransitionTime, and kmc orders workloads by it
// (an eviction's, a reservation's): read as 0, a hand-written condition without
// it would put its workload first in every order.
TEST_CASE("a Workload condition without lastTransitionTime is an error at the condition") {
  const std::string file = kmc::test::write_temp("wl.yaml",
                                                 "apiVersion: kueue.x-k8s.io/v1beta2\n"
                                                 "kind: Workload\n"
                                                 "metadata: {name: a, namespace: ns}\n"
                                                 "spec:\n"
                                                 "  queueName: lq\n"
                                                 "  podSets: [{name: main, count: 1, template: "
                                                 "{spec: {containers: [{name: c}]}}}]\n"
                                                 "status:\n"
                                                 "  conditions:\n"
                                                 "  - {type: Evicted, status: \"True\", reason: "
                                                 "PodsReadyTimeout}\n");
  const auto d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.pos == SourcePos{file, 9});
  CHECK(d.field == "status.conditions[0].lastTransitionTime");
  CHECK(contains(d.message, "required"));
}

TEST_CASE("two objects of one kind and name are an error naming both places") {
  const auto d = input_error_of([] { load_cluster_manifests({fixture("bad/duplicate-name")}); });
  CHECK(d.pos == SourcePos{fixture("bad/duplicate-name/b.yaml"), 6});
  CHECK(d.field == "metadata.name");
  CHECK(contains(d.message, "duplicate ResourceFlavor 'h100'"));
  CHECK(contains(d.message, fixture("bad/duplicate-name/a.yaml") + ":1"));
}

TEST_CASE("a YAML syntax error is an InputError with file and line") {
  const auto d = input_error_of([] { load_cluster_manifests({fixture("bad/yaml-syntax")}); });
  CHECK(d.pos.file == fixture("bad/yaml-syntax/cq.yaml"));
  CHECK(d.pos.line >= 6);
  CHECK(contains(d.message, "YAML syntax error"));
}

TEST_CASE("kueue.x-k8s.io versions other than v1beta1 and v1beta2 are rejected") {
  const auto d = input_error_of([] { load_cluster_manifests({fixture("bad/old-version")}); });
  CHECK(d.pos == SourcePos{fixture("bad/old-version/cq.yaml"), 1});
  CHECK(d.field == "apiVersion");
  CHECK(contains(d.message, "v1alpha1"));
}

TEST_CASE("a priority class that does not exist is an error at the reference") {
  const auto d =
      input_error_of([] { load_cluster_manifests({fixture("bad/unknown-priority-class")}); });
  CHECK(d.pos == SourcePos{fixture("bad/unknown-priority-class/wl.yaml"), 8});
  CHECK(d.field == "metadata.labels[\"kueue.x-k8s.io/priority-class\"]");
  CHECK(contains(d.message, "WorkloadPriorityClass 'urgent' not found"));
}

TEST_CASE("a Job naming a LocalQueue that does not exist fails reference validation") {
  const auto m = load_cluster_manifests({fixture("bad/unknown-local-queue")});
  Warnings warnings;
  const auto d = input_error_of([&] { validate_cluster_references(m, warnings); });
  CHECK(d.pos == SourcePos{fixture("bad/unknown-local-queue/objects.yaml"), 16});
  CHECK(d.field == "metadata.labels[\"kueue.x-k8s.io/queue-name\"]");
  CHECK(d.message == "LocalQueue 'team-b' not found in namespace 'research'");
}

TEST_CASE("a missing path is an input error naming it") {
  const auto d = input_error_of([] { load_cluster_manifests({fixture("no-such-folder")}); });
  CHECK(d.pos.file == fixture("no-such-folder"));
}

TEST_CASE(
    "reference validation names the missing ClusterQueue, flavor and ProvisioningRequestConfig") {
  const std::string header = "apiVersion: kueue.x-k8s.io/v1beta2\n";
  Warnings warnings;
  const std::string lq = kmc::test::write_temp(
      "lq.yaml",
      header +
          "kind: LocalQueue\nmetadata: {name: q, namespace: ns}\nspec: {clusterQueue: nope}\n");
  auto d =
      input_error_of([&] { validate_cluster_references(load_cluster_manifests({lq}), warnings); });
  CHECK(d.pos == SourcePos{lq, 1});
  CHECK(d.field == "spec.clusterQueue");
  CHECK(d.message == "ClusterQueue 'nope' not found");

  const std::string cq = kmc::test::write_temp(
      "cq.yaml", header +
                     "kind: ClusterQueue\nmetadata: {name: gpu}\nspec:\n  resourceGroups:\n"
                     "  - coveredResources: [cpu]\n    flavors: [{name: ghost, resources: [{name: "
                     "cpu, nominalQuota: 1}]}]\n");
  d = input_error_of([&] { validate_cluster_references(load_cluster_manifests({cq}), warnings); });
  CHECK(d.field == "spec.resourceGroups[0].flavors[0].name");
  CHECK(d.message == "ResourceFlavor 'ghost' not found");

  const std::string ac =
      kmc::test::write_temp("ac.yaml", header +
                                           "kind: AdmissionCheck\nmetadata: {name: dws}\nspec:\n"
                                           "  controllerName: kueue.x-k8s.io/provisioning-request\n"
                                           "  parameters: {apiGroup: kueue.x-k8s.io, kind: "
                                           "ProvisioningRequestConfig, name: missing}\n");
  d = input_error_of([&] { validate_cluster_references(load_cluster_manifests({ac}), warnings); });
  CHECK(d.field == "spec.parameters.name");
  CHECK(d.message == "ProvisioningRequestConfig 'missing' not found");

  // The ClusterQueue webhook's validateLendingLimit (a Cohort's may exceed it).
  const std::string lend = kmc::test::write_temp(
      "lend.yaml", header +
                       "kind: ClusterQueue\nmetadata: {name: gpu}\nspec:\n  cohortName: pool\n"
                       "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors: [{name: "
                       "default, resources: [{name: cpu, nominalQuota: 1, lendingLimit: 2}]}]\n");
  d = input_error_of([&] { load_cluster_manifests({lend}); });
  CHECK(d.field == "spec.resourceGroups");
  CHECK(d.message ==
        "flavor 'default' resource 'cpu': lendingLimit 2 must be less than or equal to the "
        "nominalQuota 1");

  // Kueue's CRD: a resource group covers a resource and has a flavor (MinItems=1).
  const std::string empty = kmc::test::write_temp(
      "empty.yaml", header +
                        "kind: ClusterQueue\nmetadata: {name: gpu}\nspec:\n  resourceGroups:\n"
                        "  - coveredResources: [cpu]\n    flavors: [{name: default, resources: "
                        "[{name: cpu, nominalQuota: 1}]}]\n"
                        "  - coveredResources: [memory]\n    flavors: []\n");
  d = input_error_of([&] { load_cluster_manifests({empty}); });
  CHECK(d.pos.line == 9);  // the flavors: [] line
  CHECK(d.field == "spec.resourceGroups[1].flavors");
  CHECK(d.message == "a resource group has at least one flavor");
}

TEST_CASE("objects without a creationTimestamp are ordered by load order") {
  const auto m = load_cluster_manifests({fixture("gpu-fleet/workers/us-central1")});
  // dump.yaml sorts before job.yaml; inside a file, document order.
  CHECK(m.resource_flavors[0].meta.creation_order < m.cluster_queues[0].meta.creation_order);
  CHECK(m.cluster_queues[0].meta.creation_order < m.workloads[0].meta.creation_order);
}

TEST_CASE("a key written twice in one mapping is an error at the second, naming the first") {
  // Two manifests joined without --- : yaml-cpp would keep the Workload's keys and drop the
  // LocalQueue with exit 0.
  const std::string file = kmc::test::write_temp("joined.yaml",
                                                 "apiVersion: kueue.x-k8s.io/v1beta2\n"
                                                 "kind: LocalQueue\n"
                                                 "metadata: {name: q, namespace: team}\n"
                                                 "spec: {clusterQueue: cq}\n"
                                                 "apiVersion: kueue.x-k8s.io/v1beta2\n"
                                                 "kind: Workload\n");
  const auto d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.pos == SourcePos{file, 5});
  CHECK(d.field == "apiVersion");
  CHECK(contains(d.message, "the first is at line 1"));
  // Nested, in flow style too.
  const std::string nested =
      kmc::test::write_temp("nested.yaml",
                            "apiVersion: kueue.x-k8s.io/v1beta2\n"
                            "kind: ResourceFlavor\n"
                            "metadata: {name: a, labels: {x: '1', x: '2'}}\n");
  const auto n = input_error_of([&] { load_cluster_manifests({nested}); });
  CHECK(n.pos == SourcePos{nested, 3});
  CHECK(n.field == "x");
  // The same key in sibling mappings, list items and separate documents is fine, and so is an
  // alias (not expanded).
  const std::string fine = kmc::test::write_temp("fine.yaml",
                                                 "apiVersion: kueue.x-k8s.io/v1beta2\n"
                                                 "kind: ResourceFlavor\n"
                                                 "metadata: {name: a, labels: &l {x: '1'}}\n"
                                                 "spec: {nodeLabels: *l}\n"
                                                 "---\n"
                                                 "apiVersion: kueue.x-k8s.io/v1beta2\n"
                                                 "kind: ResourceFlavor\n"
                                                 "metadata: {name: b, labels: {x: '1'}}\n");
  CHECK(load_cluster_manifests({fine}).resource_flavors.size() == 2);
}

TEST_CASE("manageJobsWithoutQueueName: true is not modelled, and may change the answer") {
  const auto m = load_cluster_manifests(
      {kmc::test::write_temp("config.yaml",
                             "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                             "manageJobsWithoutQueueName: true\n")});
  auto it = std::find_if(m.warnings.begin(), m.warnings.end(), [](const Diagnostic& d) {
    return d.field == "manageJobsWithoutQueueName";
  });
  REQUIRE(it != m.warnings.end());
  CHECK(it->may_change_answer);
  CHECK(it->pos.line == 3);
}
