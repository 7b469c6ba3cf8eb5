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
      "spec:\n  queueName: lq\n"
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
