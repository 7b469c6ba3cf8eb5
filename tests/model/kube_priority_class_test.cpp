// Kubernetes PriorityClasses (scheduling.k8s.io/v1): a Job's or a Pod's
// priorityClassName gives its Workload's priority when no WorkloadPriorityClass
// label names one, and the globalDefault class does when neither names one
// (jobframework ExtractPriority, priority.GetPriorityFromPriorityClass).
#include <catch2/catch.hpp>
#include <string>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::input_error_of;
using kmc::test::write_temp;

namespace {

std::string kube_class(const std::string& name, int value, bool global_default = false) {
  return "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: " + name +
         "}\nvalue: " + std::to_string(value) +
         (global_default ? "\nglobalDefault: true\n" : "\n") + "description: d\n---\n";
}

std::string job(const std::string& name, const std::string& template_extra,
                const std::string& labels = "kueue.x-k8s.io/queue-name: lq") {
  return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name +
         "\n  namespace: ns\n  labels: {" + labels + "}\nspec:\n  template:\n    spec:\n" +
         template_extra + "      containers: [{name: c, image: i}]\n---\n";
}

const Workload& named(const ClusterManifests& m, const std::string& name) {
  for (const auto& w : m.workloads)
    if (w.meta.name == name) return w;
  FAIL("no workload " << name);
  return m.workloads.front();
}

}  // namespace

TEST_CASE("a Job's priorityClassName gives its priority from the Kubernetes PriorityClass") {
  const auto m = load_cluster_manifests({write_temp(
      "kpc.yaml", kube_class("urgent", 1000) + kube_class("everyday", 5, true) +
                      job("named", "      priorityClassName: urgent\n") + job("unnamed", ""))});
  CHECK(named(m, "named").priority == 1000);
  CHECK(named(m, "named").priority_class_name == "urgent");
  CHECK(named(m, "unnamed").priority == 5);  // the globalDefault class
}

TEST_CASE("a WorkloadPriorityClass label wins over the pods' priorityClassName") {
  const auto m = load_cluster_manifests({write_temp(
      "kpc.yaml",
      kube_class("urgent", 1000) +
          "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: "
          "low}\nvalue: -3\n---\n" +
          job("j", "      priorityClassName: urgent\n",
              "kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: low"))});
  CHECK(named(m, "j").priority == -3);
}

TEST_CASE("a Workload names a Kubernetes PriorityClass in priorityClassRef") {
  const std::string wl =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: ns}\n"
      "spec:\n  queueName: lq\n  priority: 1000\n"
      "  priorityClassRef: {group: scheduling.k8s.io, kind: PriorityClass, name: urgent}\n"
      "  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]\n---\n"
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: plain, namespace: "
      "ns}\nspec:\n  queueName: lq\n"
      "  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]\n";
  const auto m = load_cluster_manifests(
      {write_temp("kpc.yaml", kube_class("urgent", 1000) + kube_class("everyday", 5, true) + wl)});
  CHECK(named(m, "w").priority == 1000);
  // A Workload written as such gets no default class: that is the job reconciler's.
  CHECK(named(m, "plain").priority == 0);
}

// Kueue's CRD (workload_types.go): "priority should not be nil when
// priorityClassRef is set"; v1beta1's says the same of priorityClassName. The
// API server refuses such a Workload, so a dump never holds one: a hand-written
// one is bad input, and the error says which value to write.
TEST_CASE("a Workload naming a priority class without spec.priority is refused as its CRD does") {
  const auto workload = [](const std::string& version, const std::string& class_fields) {
    return "apiVersion: kueue.x-k8s.io/" + version +
           "\nkind: Workload\nmetadata: {name: w, namespace: ns}\nspec:\n  queueName: lq\n" +
           class_fields +
           "  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]\n";
  };
  const std::string wpc =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: "
      "high}\nvalue: 700\n---\n";
  SECTION("a WorkloadPriorityClass in v1beta2's priorityClassRef") {
    const auto file =
        write_temp("kpc.yaml", wpc + workload("v1beta2",
                                              "  priorityClassRef: {group: kueue.x-k8s.io, kind: "
                                              "WorkloadPriorityClass, name: high}\n"));
    const auto d = input_error_of([&] { load_cluster_manifests({file}); });
    CHECK(d.pos.line == 11);
    CHECK(d.field == "spec.priority");
    CHECK(contains(d.message, "priority should not be nil when priorityClassRef is set"));
    CHECK(contains(d.message, "priority: 700"));
  }
  SECTION("a Kubernetes PriorityClass in v1beta1's priorityClassName") {
    const auto file = write_temp(
        "kpc.yaml", kube_class("urgent", 1000) +
                        workload("v1beta1",
                                 "  priorityClassName: urgent\n"
                                 "  priorityClassSource: scheduling.k8s.io/priorityclass\n"));
    const auto d = input_error_of([&] { load_cluster_manifests({file}); });
    CHECK(d.field == "spec.priority");
    CHECK(contains(d.message, "priority should not be nil when priorityClassName is set"));
    CHECK(contains(d.message, "priority: 1000"));
  }
  SECTION("a class that is not in the input either") {
    const auto file =
        write_temp("kpc.yaml", workload("v1beta2",
                                        "  priorityClassRef: {group: scheduling.k8s.io, kind: "
                                        "PriorityClass, name: gone}\n"));
    const auto d = input_error_of([&] { load_cluster_manifests({file}); });
    CHECK(d.field == "spec.priority");
    CHECK(contains(d.message, "PriorityClass 'gone' is not in the input"));
  }
  SECTION("with spec.priority, its value wins over the class's, as Kueue reads it") {
    const auto m = load_cluster_manifests({write_temp(
        "kpc.yaml", wpc + workload("v1beta2",
                                   "  priority: 3\n  priorityClassRef: {group: kueue.x-k8s.io, "
                                   "kind: WorkloadPriorityClass, name: high}\n"))});
    CHECK(named(m, "w").priority == 3);
  }
}

TEST_CASE("a PriorityClass that does not exist is an error at the name") {
  const auto file = write_temp("kpc.yaml", job("j", "      priorityClassName: missing\n"));
  const auto d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.field == "spec.template.spec.priorityClassName");
  CHECK(contains(d.message, "PriorityClass 'missing' not found"));
}

TEST_CASE("two globalDefault PriorityClasses are an error, as Kubernetes refuses the second") {
  const auto file =
      write_temp("kpc.yaml", kube_class("a", 1, true) + kube_class("b", 2, true) + job("j", ""));
  const auto d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.field == "globalDefault");
}

TEST_CASE("a Pod's priorityClassName, the globalDefault, and the system classes") {
  const std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n"
      "  labels: {kueue.x-k8s.io/queue-name: lq}\nspec:\n  priorityClassName: urgent\n"
      "  containers: [{name: c, image: i}]\n---\n"
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: q\n  namespace: ns\n"
      "  labels: {kueue.x-k8s.io/queue-name: lq}\nspec:\n  containers: [{name: c, image: i}]\n---\n"
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "integrations: {frameworks: [batch/job, pod]}\n---\n";
  const auto m = load_cluster_manifests({write_temp(
      "kpc.yaml", kube_class("urgent", 1000) + kube_class("everyday", 5, true) + pod +
                      job("critical", "      priorityClassName: system-node-critical\n"))});
  CHECK(named(m, "p").priority == 1000);
  CHECK(named(m, "q").priority == 5);
  CHECK(named(m, "critical").priority == 2000001000);  // in every cluster
}

TEST_CASE("WorkloadPriorityClassDefaulting: a job naming none gets the class named default") {
  const std::string classes =
      kube_class("urgent", 1000) +
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: "
      "default}\nvalue: 7\n---\n";
  const std::string jobs = job("j", "      priorityClassName: urgent\n");
  // The gate is beta and on: the label Kueue's webhook adds beats the pods' class.
  const auto on = load_cluster_manifests({write_temp("kpc.yaml", classes + jobs)});
  CHECK(named(on, "j").priority == 7);
  CHECK(named(on, "j").priority_class_name == "default");
  const auto off = load_cluster_manifests(
      {write_temp("kpc.yaml", classes + jobs +
                                  "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: "
                                  "Configuration\nfeatureGates: "
                                  "{WorkloadPriorityClassDefaulting: false}\n")});
  CHECK(named(off, "j").priority == 1000);
}

TEST_CASE("integrations.frameworks: what Kueue manages, and names it refuses") {
  const std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n"
      "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
      "spec:\n  containers: [{name: c, image: i}]\n---\n";
  const auto config = [](const std::string& integrations) {
    return "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" + integrations;
  };
  // Listed: both. An empty list is Kueue's default, batch/job only.
  auto m = load_cluster_manifests(
      {write_temp("kpc.yaml", pod + job("j", "") + config("integrations: {frameworks: [pod]}\n"))});
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].source_kind == "Pod");
  m = load_cluster_manifests(
      {write_temp("kpc.yaml", pod + job("j", "") + config("integrations: {}\n"))});
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].source_kind == "Job");
  // validateIntegrations: an unknown name, or one twice, and Kueue does not start.
  for (const char* bad : {"[batch/job, pods]", "[pod, pod]"}) {
    const auto file =
        write_temp("kpc.yaml", config("integrations: {frameworks: " + std::string(bad) + "}\n"));
    const auto d = input_error_of([&] { load_cluster_manifests({file}); });
    INFO(bad);
    CHECK(d.field == "integrations.frameworks[1]");
  }
}
