// The Configuration's resources.transformations and excludeResourcePrefixes,
// applied to each pod's requests as Kueue counts them
// (model/resource_transformations.cpp).
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::fixture;
using kmc::test::input_error_of;

namespace {

const Workload& workload(const ClusterManifests& m, const std::string& name) {
  for (const auto& w : m.workloads)
    if (w.meta.name == name) return w;
  FAIL("no workload " << name);
  return m.workloads.front();
}

Quantity units(std::int64_t n) {
  return Quantity::from_units(n);
}

// A Configuration (of `version`) with `resources` and one Job with `requests`, in one file.
std::string config_and_job(const std::string& name, const std::string& resources,
                           const std::string& requests, const std::string& version = "v1beta2") {
  return kmc::test::write_temp(name, "apiVersion: config.kueue.x-k8s.io/" + version + R"(
kind: Configuration
resources:
)" + resources + R"(
---
apiVersion: batch/v1
kind: Job
metadata:
  name: job
  labels:
    kueue.x-k8s.io/queue-name: q
spec:
  parallelism: 3
  template:
    spec:
      containers:
      - name: main
        resources:
          requests:
)" + requests);
}

}  // namespace

// Kueue's shared-quota pattern: MIG slices of two sizes are all counted as the
// GPU memory they hold. The ClusterQueue has 40 of example.com/gpu-memory; in
// creation order small-a (2 × 5 = 10), small-b (10) and big-a (1 × 20 = 20)
// take all 40, and big-b's 20 does not fit: Kueue admits 3 of the 4 Jobs.
// Counted as raw MIG requests, which the ClusterQueue does not cover, none fit.
TEST_CASE("a Configuration read after the Jobs still transforms their requests") {
  const auto m = load_cluster_manifests({fixture("transformations/shared-quota")});
  REQUIRE(m.workloads.size() == 4);
  const ResourceList small = {{"cpu", units(1)}, {"example.com/gpu-memory", units(10)}};
  const ResourceList big = {{"cpu", units(1)}, {"example.com/gpu-memory", units(20)}};
  CHECK(workload(m, "small-a").pod_sets[0].requests == small);
  CHECK(workload(m, "small-b").pod_sets[0].requests == small);
  CHECK(workload(m, "big-a").pod_sets[0].requests == big);
  CHECK(workload(m, "big-b").pod_sets[0].requests == big);
  Quantity admitted;  // FIFO by creation (load) order, while the 40 last
  int count = 0;
  for (const auto& w : m.workloads) {
    const Quantity need = w.pod_sets[0].requests.at("example.com/gpu-memory");
    if (admitted + need > units(40)) break;
    admitted = admitted + need;
    ++count;
  }
  CHECK(count == 3);
}

TEST_CASE("Retain keeps the input beside its outputs, Replace drops it") {
  const std::string retain = config_and_job("retain.yaml", R"(  transformations:
  - input: cpu
    outputs:
      example.com/credits: "2")",
                                            "            cpu: 500m\n");
  const auto kept = load_cluster_manifests({retain});
  CHECK(kept.workloads[0].pod_sets[0].requests ==
        ResourceList{{"cpu", Quantity{500}}, {"example.com/credits", units(1)}});
  const std::string replace = config_and_job("replace.yaml", R"(  transformations:
  - input: cpu
    strategy: Replace
    outputs:
      example.com/credits: "2")",
                                             "            cpu: 500m\n");
  const auto replaced = load_cluster_manifests({replace});
  CHECK(replaced.workloads[0].pod_sets[0].requests ==
        ResourceList{{"example.com/credits", units(1)}});
  // Per pod: the pod count (parallelism 3) multiplies afterwards, as in Kueue.
  CHECK(replaced.workloads[0].pod_sets[0].count == 3);
}

TEST_CASE("Replace with no outputs makes Kueue ignore the input") {
  const std::string file =
      config_and_job("replace-empty.yaml", R"(  transformations:
  - input: example.com/license
    strategy: Replace)",
                     "            cpu: 1\n            example.com/license: 1\n");
  CHECK(load_cluster_manifests({file}).workloads[0].pod_sets[0].requests ==
        ResourceList{{"cpu", units(1)}});
}

TEST_CASE("excluded prefixes are dropped before transformations see them") {
  // example.com/license is excluded, so its transformation never runs and
  // contributes no credits; cpu's does.
  const std::string file =
      config_and_job("exclude.yaml", R"(  excludeResourcePrefixes: [example.com/lic]
  transformations:
  - input: example.com/license
    outputs:
      example.com/credits: "7"
  - input: cpu
    outputs:
      example.com/credits: "1")",
                     "            cpu: 2\n            example.com/license: 1\n");
  CHECK(load_cluster_manifests({file}).workloads[0].pod_sets[0].requests ==
        ResourceList{{"cpu", units(2)}, {"example.com/credits", units(2)}});
}

TEST_CASE("negative outputs cancel other outputs but the sum is floored at zero") {
  // credits: 4 × 1 from gpu, 1 × -10 from the discount: floored to 0, not -6;
  // memory is a request of its own and a negative output never reaches it.
  const std::string file = config_and_job("allowance.yaml", R"(  transformations:
  - input: nvidia.com/gpu
    outputs:
      example.com/credits: "1"
  - input: example.com/discount
    strategy: Replace
    outputs:
      example.com/credits: "-10"
      memory: "-1Gi")",
                                          "            nvidia.com/gpu: 4\n"
                                          "            example.com/discount: 1\n"
                                          "            memory: 2Gi\n");
  const ResourceList r = load_cluster_manifests({file}).workloads[0].pod_sets[0].requests;
  CHECK(r.at("example.com/credits") == Quantity{});
  CHECK(r.at("nvidia.com/gpu") == units(4));
  CHECK(r.at("memory") == Quantity{2LL * 1024 * 1024 * 1024 * 1000});
  CHECK(r.count("example.com/discount") == 0);
}

TEST_CASE("multiplyBy scales the outputs by another request, not the retained input") {
  const std::string file = config_and_job("multiply.yaml", R"(  transformations:
  - input: nvidia.com/gpu
    multiplyBy: example.com/hours
    outputs:
      example.com/gpu-hours: "1")",
                                          "            nvidia.com/gpu: 2\n"
                                          "            example.com/hours: 3\n");
  CHECK(load_cluster_manifests({file}).workloads[0].pod_sets[0].requests ==
        ResourceList{{"nvidia.com/gpu", units(2)},
                     {"example.com/hours", units(3)},
                     {"example.com/gpu-hours", units(6)}});
}

TEST_CASE("a product finer than a milli-unit is refused at the output, not rounded") {
  const std::string file = config_and_job("fine.yaml", R"(  transformations:
  - input: cpu
    outputs:
      example.com/credits: 500m)",
                                          "            cpu: 1m\n");
  const Diagnostic d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.pos == SourcePos{file, 7});
  CHECK(d.field == "resources.transformations[0].outputs[\"example.com/credits\"]");
  CHECK(contains(d.message, "Job default/job pod set main"));
}

TEST_CASE("two transformations of one input are refused as Kueue's validation does") {
  const std::string file = config_and_job("twice.yaml", R"(  transformations:
  - input: cpu
    outputs: {example.com/a: "1"}
  - input: cpu
    outputs: {example.com/b: "1"})",
                                          "            cpu: 1\n");
  const Diagnostic d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.pos == SourcePos{file, 7});
  CHECK(d.field == "resources.transformations[1].input");
}

TEST_CASE("quotaCheckStrategy is a warning that says it may change the answer") {
  const std::string file = config_and_job("strategy.yaml", "  quotaCheckStrategy: IgnoreUndeclared",
                                          "            cpu: 1\n");
  const auto m = load_cluster_manifests({file});
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].may_change_answer);
  CHECK(m.warnings[0].concept_ == "Configuration.resources.quotaCheckStrategy");
}

TEST_CASE("quotaCheckStrategy BlockUndeclared is what kmc models; a bad one is refused") {
  const auto block = load_cluster_manifests({config_and_job(
      "block.yaml", "  quotaCheckStrategy: BlockUndeclared", "            cpu: 1\n")});
  CHECK(block.warnings.empty());
  const Diagnostic bad = input_error_of([&] {
    load_cluster_manifests(
        {config_and_job("bad.yaml", "  quotaCheckStrategy: Ignore", "            cpu: 1\n")});
  });
  CHECK(bad.field == "resources.quotaCheckStrategy");
  const Diagnostic both = input_error_of([&] {
    load_cluster_manifests({config_and_job(
        "both.yaml", "  quotaCheckStrategy: IgnoreUndeclared\n  excludeResourcePrefixes: [x/]",
        "            cpu: 1\n")});
  });
  CHECK(contains(both.message, "excludeResourcePrefixes is not allowed"));
}

TEST_CASE("quotaCheckStrategy is v1beta2's: a v1beta1 Configuration with it does not start") {
  const Diagnostic d = input_error_of([&] {
    load_cluster_manifests({config_and_job("v1beta1.yaml", "  quotaCheckStrategy: BlockUndeclared",
                                           "            cpu: 1\n", "v1beta1")});
  });
  CHECK(d.field == "resources.quotaCheckStrategy");
  CHECK(contains(d.message, "config.kueue.x-k8s.io/v1beta1 has no resources.quotaCheckStrategy"));
}
