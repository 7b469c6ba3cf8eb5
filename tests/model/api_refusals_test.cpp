// Input Kueue's API refuses, so that no cluster holds it: the Workload CRD's
// schema and CEL rules (apis/kueue/v1beta2/workload_types.go) and the job
// webhooks' ValidateJobOnCreate (jobframework/validation.go). Each is exit 3 at
// the field, where Kubernetes would have said no.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::input_error_of;
using kmc::test::write_temp;

namespace {

std::string workload(const std::string& spec_extra, const std::string& pod_sets) {
  return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: "
         "ns}\nspec:\n  queueName: lq\n" +
         spec_extra + "  podSets:\n" + pod_sets;
}

// Built with fmt, not `"literal" + std::string&&`: GCC 12 at -O3 (the Release
// build) warns -Wrestrict, falsely, inside libstdc++'s operator+ (GCC bugs
// 105329, 105651).
std::string pod_set(const std::string& name) {
  return fmt::format("  - {}count: 1\n    template: {{spec: {{containers: [{{name: c}}]}}}}\n",
                     name.empty() ? std::string() : fmt::format("name: {}\n    ", name));
}

std::string job(const std::string& labels) {
  return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: ns\n  labels: {" +
         labels + "}\nspec:\n  template:\n    spec:\n      containers: [{name: c}]\n";
}

Diagnostic refusal(const std::string& text) {
  const auto file = write_temp("refused.yaml", text);
  return input_error_of([&] { load_cluster_manifests({file}); });
}

}  // namespace

TEST_CASE("a Workload's pod sets: a map of at most 18, named main by default") {
  std::string many;
  for (int i = 0; i < 19; ++i) many += pod_set(fmt::format("p{}", i));
  auto d = refusal(workload("", many));
  CHECK(d.field == "spec.podSets");
  CHECK(contains(d.message, "19 pod sets; a Workload holds at most 18"));
  d = refusal(workload("", pod_set("a") + pod_set("a")));
  CHECK(d.field == "spec.podSets[1].name");
  CHECK(contains(d.message, "a second pod set named 'a'"));
  const auto m = load_cluster_manifests({write_temp("w.yaml", workload("", pod_set("")))});
  CHECK(m.workloads.at(0).pod_sets.at(0).name == "main");
  std::string eighteen;
  for (int i = 0; i < 18; ++i) eighteen += pod_set(fmt::format("p{}", i));
  CHECK(load_cluster_manifests({write_temp("w.yaml", workload("", eighteen))})
            .workloads.at(0)
            .pod_sets.size() == 18);
}

TEST_CASE("a Workload's priorityClassRef: a known group, its kind, and a name") {
  const auto ref = [](const std::string& fields) {
    return workload("  priority: 1\n  priorityClassRef: {" + fields + "}\n", pod_set("main"));
  };
  auto d = refusal(ref("group: scheduling.k8s.io, kind: WorkloadPriorityClass, name: x"));
  CHECK(d.field == "spec.priorityClassRef.kind");
  CHECK(contains(d.message, "only the PriorityClass kind is allowed for the scheduling.k8s.io"));
  d = refusal(ref("group: example.com, kind: PriorityClass, name: x"));
  CHECK(d.field == "spec.priorityClassRef.group");
  d = refusal(ref("group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: ''"));
  CHECK(d.field == "spec.priorityClassRef.name");
  CHECK(contains(d.message, "an empty name"));
}

TEST_CASE("a job's queue-name label must name a LocalQueue Kubernetes could have") {
  // "" is no queue name: with no LocalQueue "default" to give it, refused too.
  const auto empty = refusal(job("kueue.x-k8s.io/queue-name: ''"));
  CHECK(empty.field == "metadata.labels[\"kueue.x-k8s.io/queue-name\"]");
  CHECK(contains(empty.message, "an empty queue name, and no LocalQueue 'default'"));
  for (const std::string bad : {"Team-A", "-a", "a..b", "a_b"}) {
    INFO(bad);
    const auto d = refusal(job("kueue.x-k8s.io/queue-name: " + bad));
    CHECK(d.field == "metadata.labels[\"kueue.x-k8s.io/queue-name\"]");
    CHECK(contains(d.message, "is not a valid LocalQueue name"));
  }
  for (const std::string good : {"lq", "team-a.gpu", "0a"}) {
    INFO(good);
    const auto m =
        load_cluster_manifests({write_temp("job.yaml", job("kueue.x-k8s.io/queue-name: " + good))});
    CHECK(m.workloads.at(0).queue_name == good);
  }
}

TEST_CASE("a job's max-exec-time-seconds label: refused unless above 0, and not modelled") {
  for (const std::string bad : {"'0'", "'-5'", "'1h'", "''"}) {
    INFO(bad);
    const auto d =
        refusal(job("kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/max-exec-time-seconds: " + bad));
    CHECK(contains(d.message, "is not a whole number of seconds above 0"));
  }
  const auto m = load_cluster_manifests({write_temp(
      "job.yaml",
      job("kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/max-exec-time-seconds: '60'"))});
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].may_change_answer);
  CHECK(contains(m.warnings[0].message, "MaximumExecutionTimeExceeded"));
}

namespace {

std::string cluster_queue(const std::string& spec) {
  return fmt::format(
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {{name: cq}}\nspec:\n{}"
      "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default\n"
      "      resources: [{{name: cpu, nominalQuota: 1}}]\n",
      spec);
}

}  // namespace

// The ClusterQueue CRD's CEL rules (clusterqueue_types.go), on the defaulted values.
TEST_CASE("a ClusterQueue's flavorFungibility.preference needs TryNextFlavor for both") {
  // whenCanBorrow defaults to MayStopSearch: the preference alone is refused.
  auto d = refusal(cluster_queue("  flavorFungibility: {preference: PreemptionOverBorrowing}\n"));
  CHECK(d.field == "spec.flavorFungibility.preference");
  CHECK(d.pos.line == 5);
  CHECK(contains(d.message, "both whenCanBorrow and whenCanPreempt are TryNextFlavor"));
  d = refusal(cluster_queue(
      "  flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: MayStopSearch, "
      "preference: BorrowingOverPreemption}\n"));
  CHECK(d.field == "spec.flavorFungibility.preference");
  // whenCanPreempt defaults to TryNextFlavor.
  const auto ok = write_temp("preference.yaml",
                             cluster_queue("  flavorFungibility: {whenCanBorrow: TryNextFlavor, "
                                           "preference: BorrowingOverPreemption}\n"));
  CHECK(load_cluster_manifests({ok}).cluster_queues.at(0).flavor_fungibility.preference ==
        FungibilityPreference::BorrowingOverPreemption);
}

TEST_CASE("a ClusterQueue's borrowWithinCohort needs reclaimWithinCohort other than Never") {
  const auto d =
      refusal(cluster_queue("  preemption:\n    borrowWithinCohort: {policy: LowerPriority}\n"));
  CHECK(d.field == "spec.preemption.borrowWithinCohort.policy");
  CHECK(contains(d.message, "needs reclaimWithinCohort other than Never"));
}
