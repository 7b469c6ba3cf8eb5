// Controllers of Pods Kueue has no integration for (a DaemonSet, a bare
// ReplicaSet, a Deployment or StatefulSet whose integration is not listed):
// Kueue leaves them alone, but the pod webhook queues the Pods they create
// from now on where the template names a queue or the namespace has a
// LocalQueue 'default' (pod_webhook.go Default). kmc counts only the Pods the
// input has, so it says that the answer may differ.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::write_temp;

namespace {

std::string config(const std::string& frameworks) {
  return fmt::format(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "integrations: {{frameworks: [{}]}}\n---\n",
      frameworks);
}

// An apps/v1 `kind` whose pod template carries `template_labels`; `spec_extra` goes in its spec.
std::string controller(const std::string& kind, const std::string& name,
                       const std::string& template_labels, const std::string& spec_extra = "",
                       const std::string& metadata_extra = "") {
  return fmt::format(
      "apiVersion: apps/v1\nkind: {}\nmetadata:\n  name: {}\n  namespace: ns\n{}spec:\n{}"
      "  selector: {{matchLabels: {{app: a}}}}\n  template:\n    metadata:\n      labels: "
      "{{app: a{}}}\n    spec:\n      containers: [{{name: c}}]\n---\n",
      kind, name, metadata_extra, spec_extra, template_labels);
}

const std::string kQueued = ", kueue.x-k8s.io/queue-name: lq";

// The answer-changing warnings about the Pods a controller will make.
int warned(const ClusterManifests& m, const std::string& kind) {
  int n = 0;
  for (const auto& w : m.warnings)
    if (w.may_change_answer && contains(w.message, fmt::format("Kueue leaves this {} alone", kind)))
      ++n;
  return n;
}

ClusterManifests load(const std::string& text) {
  return load_cluster_manifests({write_temp("controllers.yaml", text)});
}

}  // namespace

TEST_CASE("a DaemonSet whose Pods name a queue: the pod webhook queues them") {
  const std::string ds = controller("DaemonSet", "agents", kQueued);
  const auto m = load(config("batch/job, pod") + ds);
  CHECK(warned(m, "DaemonSet") == 1);
  bool says = false;
  for (const auto& w : m.warnings)
    if (contains(w.message, "get queue 'lq' (its pod template names it)")) {
      says = true;
      // At the template's label: the DaemonSet's 10th line, after the Configuration's 4.
      CHECK(w.field == "spec.template.metadata.labels[\"kueue.x-k8s.io/queue-name\"]");
      CHECK(w.pos.line == 14);
    }
  CHECK(says);
  // Without the pod integration no webhook touches them.
  CHECK(warned(load(config("batch/job") + ds), "DaemonSet") == 0);
  // Without a queue name in the template, and no LocalQueue default, neither.
  CHECK(warned(load(config("batch/job, pod") + controller("DaemonSet", "agents", "")),
               "DaemonSet") == 0);
}

TEST_CASE("LocalQueue defaulting queues a DaemonSet's Pods that name no queue") {
  const std::string lq =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: default, "
      "namespace: ns}\nspec: {clusterQueue: cq}\n---\n";
  const auto m = load(config("batch/job, pod") + lq + controller("DaemonSet", "agents", ""));
  CHECK(warned(m, "DaemonSet") == 1);
}

TEST_CASE("only the implicit pod integration: those Pods are gated and never run") {
  const auto m =
      load(config("batch/job, statefulset") + controller("DaemonSet", "agents", kQueued));
  bool never = false;
  for (const auto& w : m.warnings)
    if (contains(w.message, "Kueue leaves this DaemonSet alone"))
      never = w.may_change_answer && contains(w.message, "those Pods never run");
  CHECK(never);
}

TEST_CASE("Deployments and StatefulSets: their own integration's, when listed") {
  const std::string deploy = controller("Deployment", "web", kQueued);
  CHECK(warned(load(config("batch/job, pod") + deploy), "Deployment") == 1);
  CHECK(warned(load(config("batch/job, pod, deployment") + deploy), "Deployment") == 0);
  const std::string sts = controller("StatefulSet", "db", kQueued);
  CHECK(warned(load(config("batch/job, pod") + sts), "StatefulSet") == 1);
  CHECK(warned(load(config("batch/job, pod, statefulset") + sts), "StatefulSet") == 0);
}

TEST_CASE("a Deployment's ReplicaSet is told through the Deployment; scaled to 0, nothing") {
  const std::string rs =
      controller("ReplicaSet", "web-5d4f", kQueued, "",
                 "  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u1, "
                 "controller: true}]\n");
  const auto both = load(config("batch/job, pod") + controller("Deployment", "web", kQueued) + rs);
  CHECK(warned(both, "Deployment") == 1);
  CHECK(warned(both, "ReplicaSet") == 0);
  // Without its Deployment in the input, the ReplicaSet tells it.
  CHECK(warned(load(config("batch/job, pod") + rs), "ReplicaSet") == 1);
  CHECK(warned(load(config("batch/job, pod") +
                    controller("Deployment", "web", kQueued, "  replicas: 0\n")),
               "Deployment") == 0);
}

TEST_CASE("Pods a parent suspends are its integration's, not the pod webhook's alone") {
  // A LeaderWorkerSet's StatefulSets carry pod-suspending-parent in their template.
  const std::string sts = fmt::format(
      "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: lws-0, namespace: ns}}\nspec:\n"
      "  selector: {{matchLabels: {{app: a}}}}\n  template:\n    metadata:\n      labels: {{app: "
      "a{}}}\n      annotations: {{kueue.x-k8s.io/pod-suspending-parent: leaderworkerset}}\n"
      "    spec:\n      containers: [{{name: c}}]\n---\n",
      kQueued);
  CHECK(warned(load(config("batch/job, pod") + sts), "StatefulSet") == 0);
}

TEST_CASE("a Job made with generateName: its Pods' warning names no missing owner") {
  // The Job is in the input: the walk from its Pods passes it, unqueued, and
  // finds nothing above; no owner is missing.
  const std::string lq =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: default, "
      "namespace: ns}\nspec: {clusterQueue: cq}\n---\n";
  const auto m = load(config("pod") + lq +
                      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: sample-\n"
                      "  namespace: ns\nspec:\n  template:\n    spec:\n      containers: [{name: "
                      "c}]\n---\n");
  CHECK(warned(m, "Job") == 1);
  for (const auto& w : m.warnings) CHECK_FALSE(contains(w.message, "unless an owner above"));
}
