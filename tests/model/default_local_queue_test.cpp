// LocalQueue defaulting (jobframework ApplyDefaultLocalQueue): the Job and
// JobSet webhooks give a job that names no queue its namespace's LocalQueue
// "default", where one exists, unless another job owns it or Kueue does not
// manage the namespace.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::has_warning;
using kmc::test::write_temp;

namespace {

std::string local_queue(const std::string& ns, const std::string& name) {
  return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: " + name +
         ", namespace: " + ns + "}\nspec: {clusterQueue: cq}\n---\n";
}

std::string job(const std::string& ns, const std::string& metadata_extra = "") {
  return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: " + ns + "\n" +
         metadata_extra + "spec:\n  template:\n    spec:\n      containers: [{name: c}]\n---\n";
}

}  // namespace

TEST_CASE("a Job without a queue name gets its namespace's LocalQueue default") {
  // The LocalQueue may come after the Job in load order.
  const auto m =
      load_cluster_manifests({write_temp("d.yaml", job("ns") + local_queue("ns", "default"))});
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].queue_name == "default");
  CHECK(m.unmanaged_jobs.empty());
  CHECK(has_warning(m.warnings, "Kueue's webhook gives it its namespace's LocalQueue 'default'"));
  CHECK_FALSE(has_warning(m.warnings, "Kueue does not manage it"));
}

TEST_CASE("no LocalQueue default, or a namespace Kueue leaves alone: the Job is not Kueue's") {
  for (const auto& [ns, queue] : {std::pair<std::string, std::string>{"ns", "team"},
                                  {"kube-system", "default"},
                                  {"kueue-system", "default"}}) {
    INFO(ns << " " << queue);
    const auto m = load_cluster_manifests({write_temp("d.yaml", local_queue(ns, queue) + job(ns))});
    CHECK(m.workloads.empty());
    CHECK(m.unmanaged_jobs.size() == 1);
    CHECK(has_warning(m.warnings, "Kueue does not manage it"));
  }
}

TEST_CASE("a JobSet gets the LocalQueue default; its Jobs are its own, not defaulted") {
  const std::string config =
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "integrations: {frameworks: [batch/job, jobset.x-k8s.io/jobset]}\n---\n";
  const std::string jobset =
      "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: train, namespace: "
      "ns}\nspec:\n  replicatedJobs:\n  - name: w\n    template:\n      spec:\n        template:\n"
      "          spec:\n            containers: [{name: c}]\n---\n";
  const std::string owned =
      "  ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: train, "
      "uid: u, controller: true}]\n";
  const auto m = load_cluster_manifests(
      {write_temp("d.yaml", config + local_queue("ns", "default") + jobset + job("ns", owned))});
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].source_kind == "JobSet");
  CHECK(m.workloads[0].queue_name == "default");
  // The child Job runs, as the JobSet's: the plain scheduler still sees it.
  CHECK(m.unmanaged_jobs.size() == 1);
}

TEST_CASE("LocalQueue defaulting happens on create, to a LocalQueue not stopped, by a webhook") {
  const std::string lq = local_queue("ns", "default");
  SECTION("a dumped Job (it has a uid) was created without it") {
    const auto m = load_cluster_manifests({write_temp("d.yaml", lq + job("ns", "  uid: u1\n"))});
    CHECK(m.workloads.empty());
    CHECK(m.unmanaged_jobs.size() == 1);
  }
  SECTION("a stopped LocalQueue is not in Kueue's queue manager") {
    const std::string held =
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: default, "
        "namespace: ns}\nspec: {clusterQueue: cq, stopPolicy: Hold}\n---\n";
    CHECK(load_cluster_manifests({write_temp("d.yaml", held + job("ns"))}).workloads.empty());
  }
  SECTION("without the batch/job integration there is no Job webhook") {
    const std::string config =
        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
        "integrations: {frameworks: [pod]}\n---\n";
    const auto m = load_cluster_manifests({write_temp("d.yaml", config + lq + job("ns"))});
    CHECK(m.workloads.empty());
  }
  SECTION("an empty queue-name label is no queue name") {
    const auto m = load_cluster_manifests(
        {write_temp("d.yaml", lq + job("ns", "  labels: {kueue.x-k8s.io/queue-name: \"\"}\n"))});
    REQUIRE(m.workloads.size() == 1);
    CHECK(m.workloads[0].queue_name == "default");
  }
  SECTION("the pod webhook defaults a Pod, with the pod integration") {
    const std::string config =
        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
        "integrations: {frameworks: [batch/job, pod]}\n---\n";
    const std::string pod =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\n"
        "spec:\n  containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n";
    const auto m = load_cluster_manifests({write_temp("d.yaml", config + lq + pod)});
    REQUIRE(m.workloads.size() == 1);
    CHECK(m.workloads[0].source_kind == "Pod");
    CHECK(m.workloads[0].queue_name == "default");
    // Without it, the Pod is no one's.
    CHECK(load_cluster_manifests({write_temp("d.yaml", lq + pod)}).workloads.empty());
  }
}

namespace {

std::string ray_job(const std::string& ns, const std::string& metadata_extra = "") {
  return fmt::format(
      "apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: r\n  namespace: {}\n{}spec: {{}}\n"
      "---\n",
      ns, metadata_extra);
}

bool answer_changing(const Warnings& warnings, const std::string& part) {
  for (const auto& w : warnings)
    if (w.may_change_answer && contains(w.message, part)) return true;
  return false;
}

}  // namespace

TEST_CASE("a job of a kind kmc does not read, that LocalQueue defaulting queues, may change it") {
  const std::string rayjobs =
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "integrations: {frameworks: [batch/job, ray.io/rayjob]}\n---\n";
  const std::string defaulted = "gives it its namespace's LocalQueue 'default' and queues it";
  SECTION("its integration on, a LocalQueue default: Kueue queues it, kmc cannot") {
    const auto m = load_cluster_manifests(
        {write_temp("d.yaml", rayjobs + local_queue("ns", "default") + ray_job("ns"))});
    CHECK(answer_changing(m.warnings, defaulted));
  }
  SECTION("no LocalQueue default, the integration off, created already, or no webhook there") {
    for (const std::string& text :
         {rayjobs + local_queue("ns", "team") + ray_job("ns"),
          local_queue("ns", "default") + ray_job("ns"),
          rayjobs + local_queue("ns", "default") + ray_job("ns", "  uid: u1\n"),
          rayjobs + local_queue("kube-system", "default") + ray_job("kube-system"),
          // Owned by a job of an enabled integration (IsOwnerManagedByKueueForObject),
          // even one that leaves its parts to the pod integration.
          fmt::format("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                      "integrations: {{frameworks: [batch/job, statefulset, "
                      "leaderworkerset.x-k8s.io/leaderworkerset]}}\n---\n{}"
                      "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\n"
                      "  namespace: ns\n  ownerReferences: [{{apiVersion: "
                      "leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, name: l, uid: u, "
                      "controller: true}}]\nspec: {{}}\n",
                      local_queue("ns", "default"))}) {
      INFO(text);
      const auto m = load_cluster_manifests({write_temp("d.yaml", text)});
      CHECK(has_warning(m.warnings, "kmc does not model kind"));
      CHECK_FALSE(has_warning(m.warnings, defaulted));
    }
  }
  SECTION("one naming a queue where Kueue does not manage jobs is not queued either") {
    const auto m = load_cluster_manifests({write_temp(
        "d.yaml", rayjobs + ray_job("kube-system", "  labels: {kueue.x-k8s.io/queue-name: q}\n"))});
    CHECK(has_warning(m.warnings, "kmc does not model kind RayJob"));
    for (const auto& w : m.warnings) CHECK_FALSE(w.may_change_answer);
  }
}

TEST_CASE("the Pods of a Job Kueue leaves alone may still be Kueue's") {
  // The pod webhook walks from each Pod: the Job names no queue, so no
  // ancestor takes it, and it gets its namespace's LocalQueue default (or
  // the queue its pod template names).
  const auto with = [](const std::string& frameworks, const std::string& text) {
    return load_cluster_manifests(
        {write_temp("d.yaml",
                    "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                    "integrations: {frameworks: [" +
                        frameworks + "]}\n---\n" + text)});
  };
  const auto flagged = [](const ClusterManifests& m, const std::string& part) {
    for (const auto& w : m.warnings)
      if (contains(w.message, part)) return w.may_change_answer;
    return false;
  };
  const std::string lq = local_queue("ns", "default");
  const std::string dumped = job("ns", "  uid: u1\n");
  SECTION("with the pod integration, Kueue admits them one by one") {
    const auto m = with("batch/job, pod", lq + dumped);
    CHECK(m.unmanaged_jobs.size() == 1);
    CHECK(flagged(m, "admits each of them"));
  }
  SECTION("with the pod integration implicit only, they are gated for ever") {
    const auto m = with("batch/job, deployment", lq + dumped);
    CHECK(flagged(m, "never run"));
  }
  SECTION("a finished Job makes no more Pods") {
    const std::string done =
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: ns, uid: u1}\n"
        "spec:\n  template:\n    spec:\n      containers: [{name: c}]\n"
        "status: {conditions: [{type: Complete, status: \"True\"}]}\n";
    const auto m = with("batch/job, pod", lq + done);
    CHECK(m.unmanaged_jobs.size() == 1);
    for (const auto& w : m.warnings) CHECK_FALSE(w.may_change_answer);
  }
  SECTION("nor does a suspended Job, until it is resumed") {
    const std::string held =
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: ns, uid: u1}\n"
        "spec:\n  suspend: true\n  template:\n    spec:\n      containers: [{name: c}]\n";
    for (const auto& w : with("batch/job, pod", lq + held).warnings)
      CHECK_FALSE(w.may_change_answer);
  }
  SECTION("a Job's own queue name is not its Pods': without batch/job, they are the pod's") {
    const auto m = with("pod", lq + job("ns",
                                        "  uid: u1\n  labels: {kueue.x-k8s.io/queue-name: "
                                        "lq}\n"));
    CHECK(m.workloads.empty());
    CHECK(flagged(m, "admits each of them"));
  }
  SECTION("without the pod integration nothing gates them") {
    const auto m = with("batch/job", lq + dumped);
    for (const auto& w : m.warnings) CHECK_FALSE(w.may_change_answer);
  }
  SECTION("a pod template that names a queue queues them, LocalQueue default or not") {
    const std::string templated =
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: ns, uid: u1}\n"
        "spec:\n  template:\n    metadata: {labels: {kueue.x-k8s.io/queue-name: lq}}\n"
        "    spec:\n      containers: [{name: c}]\n";
    CHECK(flagged(with("batch/job, pod", templated), "admits each of them"));
  }
}
