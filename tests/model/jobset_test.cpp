// jobset.x-k8s.io/v1alpha2 JobSets with the queue-name label, read as Kueue's
// jobset integration builds their Workloads (pkg/controller/jobs/jobset): one
// pod set per replicated job, of replicas x the pods one of its Jobs runs at once.
#include <fmt/format.h>

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

// A replicated job of `replicas` Jobs; `job_spec` holds its parallelism and completions.
// Built with fmt, not `"literal" + std::string&&`: GCC 12 at -O3 (the Release
// build) warns -Wrestrict, falsely, inside libstdc++'s operator+ (GCC bugs
// 105329, 105651).
std::string replicated(const std::string& name, const std::string& replicas,
                       const std::string& job_spec, const std::string& cpu,
                       const std::string& pod_extra = "") {
  return fmt::format(
      "  - name: {}\n{}    template:\n      spec:\n{}        template:\n          spec:\n{}"
      "            containers:\n            - name: c\n              image: i\n"
      "              resources: {{requests: {{cpu: \"{}\"}}}}\n",
      name, replicas.empty() ? std::string() : fmt::format("    replicas: {}\n", replicas),
      job_spec, pod_extra, cpu);
}

std::string jobset(const std::string& name, const std::string& replicated_jobs,
                   const std::string& labels = "kueue.x-k8s.io/queue-name: lq") {
  return "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: " + name +
         "\n  namespace: ns\n  labels: {" + labels + "}\nspec:\n  replicatedJobs:\n" +
         replicated_jobs + "---\n";
}

// Kueue manages JobSets only with the jobset integration enabled, as its
// shipped kueue-manager-config does.
ClusterManifests load_jobsets(const std::string& text, const std::string& frameworks =
                                                           "[batch/job, jobset.x-k8s.io/jobset]") {
  return load_cluster_manifests({write_temp("jobsets.yaml",
                                            "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
                                            "kind: Configuration\n"
                                            "integrations: {frameworks: " +
                                                frameworks + "}\n---\n" + text)});
}

}  // namespace

TEST_CASE("a JobSet is one Workload, a pod set per replicated job of replicas x pods at once") {
  const auto m = load_jobsets(jobset(
      "train",
      replicated("driver", "", "", "2") +
          replicated("workers", "3", "        parallelism: 4\n        completions: 2\n", "500m") +
          replicated("evaluators", "2", "        parallelism: 2\n", "1")));
  REQUIRE(m.workloads.size() == 1);
  const Workload& wl = m.workloads[0];
  CHECK(wl.source_kind == "JobSet");
  CHECK(wl.meta.name == "train");
  CHECK(wl.queue_name == "lq");
  REQUIRE(wl.pod_sets.size() == 3);
  CHECK(wl.pod_sets[0].name == "driver");
  CHECK(wl.pod_sets[0].count == 1);  // replicas and parallelism default to 1
  CHECK(wl.pod_sets[1].name == "workers");
  CHECK(wl.pod_sets[1].count == 6);  // 3 Jobs of min(parallelism 4, completions 2)
  CHECK(wl.pod_sets[2].count == 4);
  CHECK(wl.pod_sets[1].requests.at("cpu").kueue_value("cpu") == 500);
  CHECK_FALSE(wl.pod_sets[1].min_count);  // no partial admission for JobSets
}

TEST_CASE("a JobSet's priority: its WorkloadPriorityClass label, else the first pod template's") {
  const std::string classes =
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: urgent}\n"
      "value: 1000\n---\n"
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: low}\n"
      "value: 5\n---\n";
  // An empty name is no name: Kueue looks on to the next pod set.
  const std::string rjs = replicated("a", "", "", "1", "            priorityClassName: \"\"\n") +
                          replicated("b", "", "", "1", "            priorityClassName: urgent\n");
  const auto m = load_jobsets(
      classes + jobset("by-pods", rjs) +
      jobset("by-label", rjs, "kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: low"));
  REQUIRE(m.workloads.size() == 2);
  CHECK(m.workloads[0].priority == 1000);
  CHECK(m.workloads[1].priority == 5);
}

TEST_CASE("a JobSet is Kueue's only where integrations.frameworks lists jobset") {
  const auto m = load_jobsets(jobset("train", replicated("w", "", "", "1")), "[batch/job]");
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings,
                    "Kueue manages a JobSet only with the jobset.x-k8s.io/jobset integration"));
  const auto unlabelled = load_jobsets(jobset("train", replicated("w", "", "", "1"), "team: a"));
  CHECK(unlabelled.workloads.empty());
  CHECK(has_warning(unlabelled.warnings, "JobSet has no kueue.x-k8s.io/queue-name label"));
}

TEST_CASE("a dumped JobSet's Workload stands for it, and its Jobs are the JobSet's") {
  const std::string workload =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n"
      "  name: jobset-train-1a2b3\n  namespace: ns\n"
      "  ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: train, "
      "uid: u, controller: true}]\n"
      "spec:\n  queueName: lq\n"
      "  podSets: [{name: w, count: 1, template: {spec: {containers: [{name: c}]}}}]\n---\n";
  const std::string child_job =
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train-w-0\n  namespace: ns\n"
      "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
      "  ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: train, "
      "uid: u, controller: true}]\n"
      "spec:\n  template:\n    spec:\n      containers: [{name: c, image: i}]\n---\n";
  const auto m = load_jobsets(jobset("train", replicated("w", "", "", "1")) + workload + child_job);
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].meta.name == "jobset-train-1a2b3");
  CHECK(has_warning(m.warnings, "JobSet ns/train is owned by Workload ns/jobset-train-1a2b3"));
  CHECK(has_warning(m.warnings, "Job owned by JobSet train: Kueue admits JobSet train's Workload"));
}

TEST_CASE("JobSets Kueue could never admit are exit 3 at the replicated jobs") {
  SECTION("two replicated jobs of one name") {
    const auto d = input_error_of([] {
      load_jobsets(jobset("t", replicated("w", "", "", "1") + replicated("w", "", "", "1")));
    });
    CHECK(d.field == "spec.replicatedJobs[1].name");
    CHECK(contains(d.message, "a second replicated job named 'w'"));
  }
  SECTION("more replicated jobs than a Workload has pod sets") {
    std::string rjs;
    for (int i = 0; i < 19; ++i) rjs += replicated(fmt::format("r{}", i), "", "", "1");
    const auto d = input_error_of([&] { load_jobsets(jobset("t", rjs)); });
    CHECK(d.field == "spec.replicatedJobs");
    CHECK(contains(d.message, "19 replicated jobs, and a Workload holds at most 18 pod sets"));
  }
  SECTION("none") {
    const auto d = input_error_of([] { load_jobsets(jobset("t", "    []\n")); });
    CHECK(contains(d.message, "at least one replicated job"));
  }
}

// FindAncestorJobManagedByKueue: a Job is its JobSet's only through a
// controller ownerReference, with the jobset integration enabled and the
// JobSet queued; otherwise a Job with its own queue name gets its own Workload.
TEST_CASE("a Job is its JobSet's only where Kueue manages that JobSet") {
  const auto child = [](const std::string& controller) {
    return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train-w-0\n  namespace: ns\n"
           "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
           "  ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: train, "
           "uid: u, controller: " +
           controller + "}]\nspec:\n  template:\n    spec:\n      containers: [{name: c}]\n---\n";
  };
  const std::string queued = jobset("train", replicated("w", "", "", "1"));
  const std::string unqueued = jobset("train", replicated("w", "", "", "1"), "team: a");
  const auto names = [](const ClusterManifests& m) {
    std::vector<std::string> out;
    for (const auto& w : m.workloads) out.push_back(w.meta.name);
    return out;
  };
  CHECK(names(load_jobsets(queued + child("true"))) == std::vector<std::string>{"train"});
  // The JobSet is not queued, so its Job, which is, is admitted on its own.
  CHECK(names(load_jobsets(unqueued + child("true"))) == std::vector<std::string>{"train-w-0"});
  // Not the controller reference: Kueue does not follow it.
  CHECK(names(load_jobsets(queued + child("false"))) ==
        std::vector<std::string>{"train-w-0", "train"});
  // Without the jobset integration Kueue does not know the owner's kind.
  CHECK(names(load_jobsets(queued + child("true"), "[batch/job]")) ==
        std::vector<std::string>{"train-w-0"});
  // Its owner not in the input is read from the cluster: taken as queued.
  CHECK(names(load_jobsets(child("true"))).empty());
  // An owner of another apiVersion is not the integration's (ownerReferenceMatchingGVK).
  std::string v1alpha1 = child("true");
  v1alpha1.replace(v1alpha1.find("v1alpha2"), 8, "v1alpha1");
  CHECK(names(load_jobsets(queued + v1alpha1)) == std::vector<std::string>{"train-w-0", "train"});
}

TEST_CASE("an empty queue name: refused on a JobSet to create, left alone on one the cluster has") {
  const std::string text =
      jobset("train", replicated("workers", "2", "", "1"), "kueue.x-k8s.io/queue-name: ''");
  // Kueue's webhook validates on create (ValidateLabelAsCRDName); with no LocalQueue 'default'
  // to give it, the JobSet is refused.
  const Diagnostic d = input_error_of([&] { load_jobsets(text); });
  CHECK(contains(d.message, "an empty queue name, and no LocalQueue 'default'"));
  // One the cluster has (a uid) was created before: the reconciler ignores it.
  std::string existing = text;
  existing.replace(existing.find("  namespace: ns\n"), 16, "  namespace: ns\n  uid: u-1\n");
  const auto m = load_jobsets(existing);
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "JobSet has an empty kueue.x-k8s.io/queue-name label"));
}
