// The kueue.x-k8s.io/priority-boost annotation (KEP-7990, PriorityBoost gate, alpha and off by
// default): with the gate on, every decision that compares priorities uses the effective one,
// spec.priority plus the annotation (pkg/util/priority/priority.go EffectivePriority; callers in
// the queue heap, the preemption ordering and policies, and fair sharing). The webhook rejects a
// value that is not a signed 32-bit integer, or an empty one (workload_webhook.go).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::input_error_of;
using kmc::test::write_temp;

namespace {

std::string config(bool gate) {
  return std::string("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n") +
         (gate ? "featureGates: {PriorityBoost: true}\n" : "") + "---\n";
}

std::string workload(const std::string& boost, const std::string& priority = "priority: 10") {
  return "apiVersion: kueue.x-k8s.io/v1beta2\n"
         "kind: Workload\n"
         "metadata:\n"
         "  name: w\n"
         "  namespace: team\n"
         "  annotations:\n"
         "    kueue.x-k8s.io/priority-boost: " +
         boost +
         "\n"
         "spec:\n"
         "  queueName: q\n"
         "  " +
         priority +
         "\n"
         "  podSets:\n"
         "  - name: main\n"
         "    count: 1\n"
         "    template:\n"
         "      spec:\n"
         "        containers:\n"
         "        - name: c\n"
         "          resources: {requests: {cpu: '1'}}\n";
}

ClusterManifests load(const std::string& name, const std::string& text) {
  return load_cluster_manifests({write_temp(name, text)});
}

const std::string kField = "metadata.annotations[\"kueue.x-k8s.io/priority-boost\"]";

bool warned(const ClusterManifests& m, const std::string& text) {
  return std::any_of(m.warnings.begin(), m.warnings.end(), [&](const Diagnostic& d) {
    return d.field == kField && contains(d.message, text);
  });
}

}  // namespace

TEST_CASE("with PriorityBoost on, the annotation is added to spec.priority") {
  CHECK(load("boost-up.yaml", config(true) + workload("'150'")).workloads.at(0).priority == 160);
  CHECK(load("boost-down.yaml", config(true) + workload("'-30'")).workloads.at(0).priority == -20);
  // Go's strconv.ParseInt takes a leading '+'.
  CHECK(load("boost-plus.yaml", config(true) + workload("'+5'")).workloads.at(0).priority == 15);
  // The Configuration may come after the Workload in load order.
  const auto m = load("boost-late.yaml", workload("'7'") + "---\n" + config(true));
  CHECK(m.workloads.at(0).priority == 17);
  CHECK_FALSE(warned(m, ""));
}

// A Workload naming a class carries the class's value in spec.priority (its CRD
// refuses it otherwise); the boost adds to that.
TEST_CASE("the boost is added to a WorkloadPriorityClass's value, in 64 bits as Kueue does") {
  const std::string cls =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\n"
      "metadata: {name: top}\nvalue: 2147483647\n---\n";
  const auto m =
      load("boost-class.yaml", config(true) + cls +
                                   workload("'2147483647'",
                                            "priority: 2147483647\n  "
                                            "priorityClassRef: {group: kueue.x-k8s.io, kind: "
                                            "WorkloadPriorityClass, name: top}"));
  CHECK(m.workloads.at(0).priority == std::int64_t{2147483647} * 2);
}

TEST_CASE("with PriorityBoost off (Kueue's default), the annotation is ignored with a warning") {
  const auto m = load("boost-off.yaml", config(false) + workload("'150'"));
  CHECK(m.workloads.at(0).priority == 10);
  CHECK(warned(m, "PriorityBoost feature gate is off"));
}

TEST_CASE("with PriorityBoost on, a value the webhook rejects is an input error at its line") {
  for (const std::string bad : {"'abc'", "''", "'1.5'", "'2147483648'", "' 5'"}) {
    CAPTURE(bad);
    const auto d = input_error_of([&] { load("boost-bad.yaml", config(true) + workload(bad)); });
    CHECK(d.field == kField);
    CHECK(d.pos.line == 11);  // the annotation's line: 4 lines of Configuration, then 7
    CHECK(contains(d.message, "signed 32-bit integer"));
  }
}

TEST_CASE("on a Job the annotation is not read: Kueue reads it on the Workload only") {
  const auto m = load("boost-job.yaml", config(true) +
                                            "apiVersion: batch/v1\nkind: Job\nmetadata:\n"
                                            "  name: j\n  namespace: team\n"
                                            "  labels: {kueue.x-k8s.io/queue-name: q}\n"
                                            "  annotations: {kueue.x-k8s.io/priority-boost: "
                                            "'50'}\n"
                                            "spec:\n  template:\n    spec:\n"
                                            "      containers:\n      - name: c\n"
                                            "        resources: {requests: {cpu: '1'}}\n");
  CHECK(m.workloads.at(0).priority == 0);
  CHECK(warned(m, "Workload"));
}
