// v1 Pods with the queue-name label, read as Kueue's pod integration builds
// their Workloads (pkg/controller/jobs/pod): a lone Pod is one, the Pods of a
// group are one for the group, once all of them exist.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::has_warning;
using kmc::test::input_error_of;
using kmc::test::write_temp;

namespace {

// A Pod named `name` asking for `cpu`; `extra` goes into its metadata (labels, annotations).
std::string pod(const std::string& name, const std::string& cpu, const std::string& metadata,
                const std::string& created = "2026-12-05T10:00:00Z") {
  return "apiVersion: v1\n"
         "kind: Pod\n"
         "metadata:\n"
         "  name: " +
         name +
         "\n"
         "  namespace: ns\n"
         "  creationTimestamp: \"" +
         created + "\"\n" + metadata +
         "spec:\n"
         "  containers:\n"
         "  - name: c\n"
         "    image: busybox\n"
         "    resources: {requests: {cpu: \"" +
         cpu + "\"}}\n";
}

const std::string kQueued = "  labels: {kueue.x-k8s.io/queue-name: lq}\n";

std::string member(const std::string& total, const std::string& group = "g") {
  return "  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/pod-group-name: " + group +
         "}\n  annotations: {kueue.x-k8s.io/pod-group-total-count: \"" + total + "\"}\n";
}

// Kueue manages Pods only with the pod integration enabled, as its shipped
// kueue-manager-config does.
ClusterManifests load_pods(std::vector<std::string> files) {
  files.push_back(write_temp("config.yaml",
                             "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
                             "kind: Configuration\n"
                             "integrations: {frameworks: [batch/job, pod]}\n"));
  return load_cluster_manifests(files);
}

// Pods, one document each, in one file.
ClusterManifests load_group(std::initializer_list<std::string> pods) {
  std::string text;
  for (const auto& p : pods) text += p + "---\n";
  return load_pods({write_temp("group.yaml", text)});
}

}  // namespace

TEST_CASE("a lone Pod with a queue name is a Workload of one pod") {
  const auto m = load_pods({write_temp("pod.yaml", pod("p", "2", kQueued))});
  REQUIRE(m.workloads.size() == 1);
  const Workload& wl = m.workloads[0];
  CHECK(wl.source_kind == "Pod");
  CHECK(wl.meta.name == "p");
  CHECK(wl.queue_name == "lq");
  REQUIRE(wl.pod_sets.size() == 1);
  CHECK(wl.pod_sets[0].name == "main");
  CHECK(wl.pod_sets[0].count == 1);
  CHECK(wl.pod_sets[0].requests.at("cpu") == Quantity::from_units(2));
  CHECK_FALSE(wl.meta.annotations.contains("kueue.x-k8s.io/is-group-workload"));
  CHECK_FALSE(has_warning(m.warnings, "does not model kind Pod"));
}

TEST_CASE("Pods are Kueue's only where integrations.frameworks lists pod") {
  // Kueue's default lists batch/job only.
  const auto file = write_temp("pod.yaml", pod("p", "2", kQueued));
  const auto alone = load_cluster_manifests({file});
  CHECK(alone.workloads.empty());
  CHECK(has_warning(alone.warnings, "there is no Configuration, and Kueue's default lists"));
  const auto jobs_only =
      load_cluster_manifests({file, write_temp("jobs-only.yaml",
                                               "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
                                               "kind: Configuration\n"
                                               "integrations: {frameworks: [batch/job]}\n")});
  CHECK(jobs_only.workloads.empty());
  CHECK(has_warning(jobs_only.warnings, "does not list it"));
}

TEST_CASE("a Pod without a queue name is not Kueue's") {
  const auto m = load_pods({write_temp("pod.yaml", pod("p", "2", ""))});
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "no kueue.x-k8s.io/queue-name label"));
}

TEST_CASE("a Pod its parent suspends without a queue name: never runs, unless a StatefulSet's") {
  const auto suspended_by = [](const std::string& parent,
                               const std::string& frameworks = "batch/job, pod, statefulset") {
    return load_cluster_manifests(
        {write_temp("config.yaml",
                    "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                    "integrations: {frameworks: [" +
                        frameworks + "]}\n"),
         write_temp("pod.yaml", pod("p", "2",
                                    "  annotations: {kueue.x-k8s.io/pod-suspending-parent: " +
                                        parent + "}\n"))});
  };
  const auto deployment = suspended_by("deployment");
  CHECK(deployment.workloads.empty());
  CHECK(has_warning(deployment.warnings, "so it never runs"));
  // The StatefulSet's pod reconciler writes the StatefulSet's queue name into it.
  const auto statefulset = suspended_by("statefulset");
  CHECK(statefulset.workloads.empty());
  CHECK_FALSE(has_warning(statefulset.warnings, "never runs"));
  CHECK(has_warning(statefulset.warnings, "gives it its StatefulSet's"));
  // Without the statefulset integration no such reconciler runs: gated, it never runs.
  CHECK(has_warning(suspended_by("statefulset", "batch/job, pod").warnings, "so it never runs"));
}

TEST_CASE("the Pods of a group are one Workload, a pod set per role") {
  // Two alike workers and a leader: two roles. The group's Workload is created
  // once its last pod exists, so that is its creation.
  const auto m = load_group({pod("leader", "3", member("3"), "2026-12-05T10:00:00Z"),
                             pod("w1", "1", member("3"), "2026-12-05T10:00:05Z"),
                             pod("w2", "1", member("3"), "2026-12-05T10:00:02Z")});
  REQUIRE(m.workloads.size() == 1);
  const Workload& wl = m.workloads[0];
  CHECK(wl.source_kind == "Pod");
  CHECK(wl.meta.name == "g");
  CHECK(wl.meta.namespace_ == "ns");
  CHECK(wl.queue_name == "lq");
  CHECK(wl.meta.annotations.at("kueue.x-k8s.io/is-group-workload") == "true");
  CHECK(wl.meta.creation_order == 1796464805);  // 10:00:05, w1's
  REQUIRE(wl.pod_sets.size() == 2);
  CHECK(wl.pod_sets[0].count == 1);
  CHECK(wl.pod_sets[0].requests.at("cpu") == Quantity::from_units(3));
  CHECK(wl.pod_sets[1].count == 2);
  CHECK(wl.pod_sets[1].requests.at("cpu") == Quantity::from_units(1));
  CHECK(wl.pod_sets[0].name != wl.pod_sets[1].name);
}

TEST_CASE("a group with fewer pods than its total count has no Workload yet") {
  // Failed pods do not count (isPodRunnableOrSucceeded).
  const std::string failed = pod("w2", "1", member("3")) + "status: {phase: Failed}\n";
  const auto m = load_group({pod("leader", "3", member("3")), pod("w1", "1", member("3")), failed});
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "2 of its 3 pods"));
}

TEST_CASE("fast admission builds the group's Workload from its first pod") {
  // Built as soon as the first pod exists: its creation is the queue order's.
  const std::string fast =
      "  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/pod-group-name: g}\n"
      "  annotations: {kueue.x-k8s.io/pod-group-total-count: \"4\", "
      "kueue.x-k8s.io/pod-group-fast-admission: \"true\"}\n";
  const auto m = load_group(
      {pod("w1", "1", fast, "2026-12-05T10:00:00Z"), pod("w2", "1", fast, "2026-12-05T10:00:07Z")});
  REQUIRE(m.workloads.size() == 1);
  REQUIRE(m.workloads[0].pod_sets.size() == 1);
  CHECK(m.workloads[0].pod_sets[0].count == 4);
  CHECK(m.workloads[0].meta.creation_order == 1796464800);  // 10:00:00
}

TEST_CASE("a group's extra pods are removed by Kueue, the oldest kept") {
  const auto m = load_group({pod("a", "2", member("1"), "2026-12-05T10:00:02Z"),
                             pod("b", "1", member("1"), "2026-12-05T10:00:01Z")});
  REQUIRE(m.workloads.size() == 1);
  REQUIRE(m.workloads[0].pod_sets.size() == 1);
  CHECK(m.workloads[0].pod_sets[0].count == 1);
  CHECK(m.workloads[0].pod_sets[0].requests.at("cpu") == Quantity::from_units(1));  // b's
  CHECK(m.workloads[0].meta.creation_order == 1796464801);                          // 10:00:01
  CHECK(has_warning(m.warnings, "1 pod more than"));
}

TEST_CASE("pod group metadata Kueue's webhook rejects is an input error") {
  SECTION("a group name without a total count") {
    const std::string meta =
        "  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/pod-group-name: g}\n";
    const auto file = write_temp("pod.yaml", pod("p", "1", meta));
    const auto d = input_error_of([&] { load_pods({file}); });
    CHECK(d.field == "metadata.annotations[\"kueue.x-k8s.io/pod-group-total-count\"]");
    CHECK(contains(d.message, "required"));
  }
  SECTION("a total count below 1") {
    const auto file = write_temp("pod.yaml", pod("p", "1", member("0")));
    const auto d = input_error_of([&] { load_pods({file}); });
    CHECK(d.field == "metadata.annotations[\"kueue.x-k8s.io/pod-group-total-count\"]");
    CHECK(contains(d.message, "greater than zero"));
  }
  SECTION("a total count without a group name") {
    const std::string meta =
        kQueued + "  annotations: {kueue.x-k8s.io/pod-group-total-count: \"2\"}\n";
    const auto file = write_temp("pod.yaml", pod("p", "1", meta));
    const auto d = input_error_of([&] { load_pods({file}); });
    CHECK(d.field == "metadata.labels[\"kueue.x-k8s.io/pod-group-name\"]");
  }
}

TEST_CASE("a group whose members disagree gets no Workload: its pods stay gated") {
  // validatePodGroupMetadata's UnretryableError: Kueue builds nothing, and says so in an event.
  const auto m = load_group({pod("a", "1", member("2")), pod("b", "1", member("3"))});
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "pods a and b have different total counts, 2 and 3"));
}

TEST_CASE("members of a group with different priority classes are an input error") {
  // Kueue takes the class of whichever pod it reconciles.
  const std::string high =
      "  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/pod-group-name: g, "
      "kueue.x-k8s.io/priority-class: high}\n"
      "  annotations: {kueue.x-k8s.io/pod-group-total-count: \"2\"}\n";
  const auto file =
      write_temp("group.yaml", pod("a", "1", member("2")) + "---\n" + pod("b", "1", high));
  const auto d = input_error_of([&] { load_pods({file}); });
  CHECK(d.field == "metadata.labels[\"kueue.x-k8s.io/priority-class\"]");
  CHECK(contains(d.message, "(none) and high"));
}

TEST_CASE("a group named by annotation (WorkloadIdentifierAnnotations) is a group") {
  const std::string meta = kQueued +
                           "  annotations: {kueue.x-k8s.io/pod-group-name: g, "
                           "kueue.x-k8s.io/pod-group-total-count: \"2\"}\n";
  const auto m = load_group({pod("a", "1", meta), pod("b", "1", meta)});
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].meta.name == "g");
  CHECK(m.workloads[0].pod_sets[0].count == 2);
}

TEST_CASE("roles are what Kueue's role hash reads: per container, not summed") {
  // 1 container of 2 cpu and 2 containers of 1 cpu: one pod size, two roles.
  const std::string two =
      pod("b", "1", member("2")) + "  - name: d\n    resources: {requests: {cpu: \"1\"}}\n";
  const auto m = load_group({pod("a", "2", member("2")), two});
  REQUIRE(m.workloads.size() == 1);
  REQUIRE(m.workloads[0].pod_sets.size() == 2);
  CHECK(m.workloads[0].pod_sets[0].requests.at("cpu") == Quantity::from_units(2));
  CHECK(m.workloads[0].pod_sets[1].requests.at("cpu") == Quantity::from_units(2));
}

TEST_CASE("a Pod a job of another integration owns is that job's") {
  const std::string owned = kQueued +
                            "  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, "
                            "uid: u, controller: true}]\n";
  const auto m = load_pods({write_temp("pod.yaml", pod("p", "1", owned))});
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "Pod owned by Job j"));
}

TEST_CASE("Pods that ended or are going hold nothing") {
  // A lone Pod that ended is Finished; one being deleted is finalized.
  const auto lone = load_pods({write_temp(
      "pods.yaml",
      pod("done", "1", kQueued) + "status: {phase: Succeeded}\n---\n" +
          pod("going", "1", kQueued + "  deletionTimestamp: \"2026-12-05T10:01:00Z\"\n"))});
  CHECK(lone.workloads.empty());
  // A group all of whose pods succeeded is Finished.
  const std::string succeeded = "status: {phase: Succeeded}\n";
  const auto group =
      load_group({pod("a", "1", member("2")) + succeeded, pod("b", "1", member("2")) + succeeded});
  CHECK(group.workloads.empty());
  CHECK(has_warning(group.warnings, "all 2 pods succeeded"));
}

TEST_CASE("Pods a dumped Workload owns are dropped: the Workload stands for them") {
  const std::string owned =
      "  labels: {kueue.x-k8s.io/queue-name: lq, "
      "kueue.x-k8s.io/pod-group-name: g}\n"
      "  annotations: {kueue.x-k8s.io/pod-group-total-count: \"1\"}\n"
      "  ownerReferences: [{apiVersion: kueue.x-k8s.io/v1beta2, kind: "
      "Workload, name: g, uid: u}]\n";
  const std::string workload =
      "apiVersion: kueue.x-k8s.io/v1beta2\n"
      "kind: Workload\n"
      "metadata:\n"
      "  name: g\n"
      "  namespace: ns\n"
      "  annotations: {kueue.x-k8s.io/is-group-workload: \"true\"}\n"
      "  ownerReferences: [{apiVersion: v1, kind: Pod, name: a, uid: u}]\n"
      "spec:\n"
      "  queueName: lq\n"
      "  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]\n";
  const auto m = load_group({pod("a", "1", owned), workload});
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].source_kind == "Workload");
  CHECK(has_warning(m.warnings, "the Workload stands for it"));
}

TEST_CASE("a pod integration only implicitly enabled gates Pods it never admits") {
  // Since Kueue 0.15 (#6736) listing deployment, statefulset or leaderworkerset
  // enables the pod integration too: its webhook gates every Pod that names a
  // queue, but its reconciler skips a Pod without pod-suspending-parent.
  const auto with = [](const std::string& frameworks, const std::string& text) {
    return load_cluster_manifests(
        {write_temp("pods.yaml", text),
         write_temp("config.yaml",
                    "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                    "integrations: {frameworks: [" +
                        frameworks + "]}\n")});
  };
  // As a Deployment's template or a StatefulSet's pod reconciler writes it.
  const std::string suspended =
      "  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/managed: \"true\"}\n"
      "  annotations: {kueue.x-k8s.io/pod-suspending-parent: statefulset}\n";
  SECTION("a Pod its StatefulSet suspends is admitted") {
    const auto m = with("statefulset", pod("p", "1", suspended));
    REQUIRE(m.workloads.size() == 1);
    CHECK(m.workloads[0].source_kind == "Pod");
  }
  SECTION("a plain Pod that names a queue stays gated: left out, answer-changing") {
    const auto m = with("statefulset", pod("p", "1", kQueued));
    CHECK(m.workloads.empty());
    bool found = false;
    for (const auto& w : m.warnings)
      if (contains(w.message, "never runs")) found = w.may_change_answer;
    CHECK(found);
  }
  SECTION("so does one LocalQueue defaulting queues") {
    const std::string lq =
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: default, "
        "namespace: ns}\nspec: {clusterQueue: cq}\n---\n";
    const auto m = with("deployment", lq + pod("p", "1", ""));
    CHECK(m.workloads.empty());
    CHECK(has_warning(m.warnings, "never runs"));
  }
  SECTION("listed, the pod integration admits it") {
    const auto m = with("statefulset, pod", pod("p", "1", kQueued));
    REQUIRE(m.workloads.size() == 1);
    CHECK_FALSE(has_warning(m.warnings, "never runs"));
  }
}

TEST_CASE("a Pod its parent suspends is admitted only as its parent marks it") {
  // The pod webhook gates a Pod with pod-suspending-parent at once; Kueue's
  // pod reconciler skips it without kueue.x-k8s.io/managed: "true", which the
  // parent's code writes (Pod.Skip).
  const auto gated_for_ever = [](const ClusterManifests& m) {
    for (const auto& w : m.warnings)
      if (contains(w.message, "never admitted")) return w.may_change_answer;
    return false;
  };
  const std::string queued_by =
      "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
      "  annotations: {kueue.x-k8s.io/pod-suspending-parent: ";
  SECTION("without the managed label it is gated for ever") {
    const auto m = load_pods({write_temp("p.yaml", pod("p", "1", queued_by + "deployment}\n"))});
    CHECK(m.workloads.empty());
    CHECK(gated_for_ever(m));
  }
  SECTION("a StatefulSet's pod reconciler labels the Pods it controls") {
    const auto m = load_pods({write_temp(
        "p.yaml", pod("p", "1",
                      queued_by + "statefulset}\n  ownerReferences: [{apiVersion: apps/v1, kind: "
                                  "StatefulSet, name: s, uid: u, controller: true}]\n"))});
    REQUIRE(m.workloads.size() == 1);
    CHECK_FALSE(gated_for_ever(m));
  }
  SECTION("an empty pod-suspending-parent, with pod implicit only, is skipped") {
    const auto m = load_cluster_manifests(
        {write_temp("p.yaml",
                    pod("p", "1",
                        "  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/managed: "
                        "\"true\"}\n  annotations: {kueue.x-k8s.io/pod-suspending-parent: "
                        "\"\"}\n")),
         write_temp("config.yaml",
                    "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                    "integrations: {frameworks: [deployment]}\n")});
    CHECK(m.workloads.empty());
    CHECK(gated_for_ever(m));
  }
}

TEST_CASE("a Pod the cluster has that the webhook never gated runs without Kueue") {
  // The pod webhook labels kueue.x-k8s.io/managed: "true" every Pod it gates;
  // the reconciler skips a Pod it finds without it (Pod.Skip).
  const auto m = load_pods({write_temp("p.yaml", pod("old", "1", kQueued + "  uid: u1\n"))});
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "it runs without Kueue"));
  const auto labelled = load_pods({write_temp(
      "p.yaml", pod("new", "1",
                    "  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/managed: \"true\"}\n"
                    "  uid: u1\n"))});
  CHECK(labelled.workloads.size() == 1);
}
