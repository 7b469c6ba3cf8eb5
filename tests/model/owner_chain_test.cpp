// Which job a Job, JobSet or Pod belongs to, as Kueue's job reconciler and
// webhooks decide it (jobframework FindAncestorJobManagedByKueue): the top
// controller owner, up the whole chain of kinds Kueue knows, whose integration
// is enabled and which names a queue. A job with one is that owner's part: no
// Workload of its own.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "fixtures.hpp"
#include "model/scenario.hpp"
#include "owner_chain_fixtures.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::has_warning;
using kmc::test::input_error_of;
using kmc::test::write_temp;

using namespace kmc::test::owners;

TEST_CASE("a queued owner above an owner that names no queue takes the Job") {
  // Kueue's own example: Job (queue) -> JobSet -> AppWrapper (queue) => AppWrapper.
  const std::string frameworks =
      config("batch/job, jobset.x-k8s.io/jobset, workload.codeflare.dev/appwrapper");
  const std::string chain =
      job("j", kQueued + owned_by(kJobSetApi, "JobSet", "js")) +
      jobset("js", "  uid: uid-js\n" + owned_by(kAppWrapperApi, "AppWrapper", "aw"));
  SECTION("the AppWrapper names a queue") {
    const auto m = load(frameworks + chain + object(kAppWrapperApi, "AppWrapper", "aw", kQueued));
    CHECK(m.workloads.empty());
    CHECK(has_warning(m.warnings,
                      "Job owned by JobSet js, owned by AppWrapper aw: Kueue admits "
                      "AppWrapper aw's Workload"));
  }
  SECTION("no owner names a queue: the Job is its own") {
    const auto m = load(frameworks + chain + object(kAppWrapperApi, "AppWrapper", "aw"));
    REQUIRE(m.workloads.size() == 1);
    CHECK(has_job(m, "Job", "j"));
  }
}

TEST_CASE("an owner of a disabled integration is walked through, not managed") {
  // Job (queue) -> JobSet (disabled) -> AppWrapper (queue) => AppWrapper.
  const std::string queued_jobset =
      jobset("js", "  uid: uid-js\n" + kQueued + owned_by(kAppWrapperApi, "AppWrapper", "aw"));
  const std::string queued_job = job("j", kQueued + owned_by(kJobSetApi, "JobSet", "js"));
  SECTION("to a queued owner above it") {
    const auto m = load(config("batch/job, workload.codeflare.dev/appwrapper") + queued_job +
                        queued_jobset + object(kAppWrapperApi, "AppWrapper", "aw", kQueued));
    CHECK(m.workloads.empty());
    CHECK(has_warning(m.warnings, "Job owned by JobSet js, owned by AppWrapper aw"));
  }
  SECTION("a queued owner whose integration is off takes nothing") {
    const auto m = load(config("batch/job") + queued_job + queued_jobset +
                        object(kAppWrapperApi, "AppWrapper", "aw", kQueued));
    REQUIRE(m.workloads.size() == 1);
    CHECK(has_job(m, "Job", "j"));
  }
}

TEST_CASE("a JobSet a queued TrainJob owns is the TrainJob's, not a second Workload") {
  const auto m =
      load(config("batch/job, jobset.x-k8s.io/jobset, trainer.kubeflow.org/trainjob") +
           object("trainer.kubeflow.org/v1alpha1", "TrainJob", "tj", kQueued) +
           jobset("tj", kQueued + owned_by("trainer.kubeflow.org/v1alpha1", "TrainJob", "tj")));
  CHECK_FALSE(has_job(m, "JobSet", "tj"));
  CHECK(has_warning(m.warnings, "JobSet owned by TrainJob tj: Kueue admits TrainJob tj's"));
}

TEST_CASE("an ownerReference to another object of that name (another uid) ends the walk") {
  const std::string stale =
      "  ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: "
      "JobSet, name: js, uid: gone, controller: true}]\n";
  const auto m = load(config("batch/job, jobset.x-k8s.io/jobset") + job("j", kQueued + stale) +
                      jobset("js", "  uid: uid-js\n" + kQueued));
  CHECK(has_job(m, "Job", "j"));
  CHECK(has_job(m, "JobSet", "js"));
}

TEST_CASE("a Pod of a Job that names no queue is the pod integration's") {
  const std::string frameworks = config("batch/job, pod");
  const std::string lone_job = job("j", "  uid: uid-j\n");
  SECTION("the Pod names a queue") {
    const auto m =
        load(frameworks + lone_job + pod("p", kQueued + owned_by("batch/v1", "Job", "j")));
    CHECK(has_job(m, "Pod", "p"));
    CHECK(m.unmanaged_jobs.size() == 1);  // the Job runs without Kueue
  }
  const std::string default_queue =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: default, "
      "namespace: ns}\nspec: {clusterQueue: cq}\n---\n";
  SECTION("the pod webhook gives a Pod LocalQueue default where no owner is queued") {
    const auto m =
        load(frameworks + default_queue + lone_job + pod("p", owned_by("batch/v1", "Job", "j")));
    REQUIRE(has_job(m, "Pod", "p"));
    CHECK(m.workloads[0].queue_name == "default");
  }
  SECTION("where the Job webhook gave the Job LocalQueue default, the Pod is the Job's") {
    const auto m = load(frameworks + default_queue + job("j", "") +
                        pod("p", owned_by("batch/v1", "Job", "j")));
    REQUIRE(m.workloads.size() == 1);
    CHECK(has_job(m, "Job", "j"));
  }
}

TEST_CASE("a Pod its parent suspends is gated whatever owns it") {
  const std::string frameworks = config("pod, deployment, statefulset");
  const std::string sts = object("apps/v1", "StatefulSet", "s", kQueued);
  const std::string sts_pod = kQueued + owned_by("apps/v1", "StatefulSet", "s");
  SECTION("with kueue.x-k8s.io/pod-suspending-parent, the pod webhook gates it") {
    const auto m = load(
        frameworks + sts +
        pod("p", sts_pod + "  annotations: {kueue.x-k8s.io/pod-suspending-parent: statefulset}\n"));
    CHECK(has_job(m, "Pod", "p"));
  }
  SECTION("without it, the queued StatefulSet is its ancestor") {
    const auto m = load(frameworks + sts + pod("p", sts_pod));
    CHECK(m.workloads.empty());
    CHECK(has_warning(m.warnings, "Pod owned by StatefulSet s: Kueue admits StatefulSet s's"));
  }
  SECTION("a ReplicaSet is walked through to its Deployment") {
    const auto m =
        load(frameworks + object("apps/v1", "Deployment", "d", kQueued) +
             object("apps/v1", "ReplicaSet", "rs", owned_by("apps/v1", "Deployment", "d")) +
             pod("p", kQueued + owned_by("apps/v1", "ReplicaSet", "rs")));
    CHECK(m.workloads.empty());
    CHECK(has_warning(m.warnings, "Pod owned by ReplicaSet rs, owned by Deployment d"));
  }
}

TEST_CASE("ownership Kueue cannot walk is refused, as its webhooks refuse it") {
  SECTION("a cycle (ErrCyclicOwnership)") {
    const auto d = input_error_of([] {
      load(config("batch/job, jobset.x-k8s.io/jobset") +
           job("a", "  uid: uid-a\n" + kQueued + owned_by(kJobSetApi, "JobSet", "b")) +
           jobset("b", "  uid: uid-b\n" + owned_by("batch/v1", "Job", "a")));
    });
    CHECK(d.field == "metadata.ownerReferences");
    CHECK(contains(d.message, "cycle"));
  }
  SECTION("more than 10 owners up (ErrManagedOwnersChainLimitReached)") {
    const auto d = input_error_of([&] { load(jobset_chain(11, false)); });
    CHECK(contains(d.message, "10"));
    // Ten owners up is still walked.
    const std::string ten = jobset_chain(10, true);
    const auto m = load(ten);
    REQUIRE(m.workloads.size() == 1);
    CHECK(has_job(m, "JobSet", "s10"));
  }
}

TEST_CASE("a queued Pod that controls other Pods is their job") {
  // spark-submit's executors are controlled by the driver Pod.
  const auto m = load(config("pod") +
                      pod("driver",
                          "  uid: uid-driver\n  labels: {kueue.x-k8s.io/queue-name: lq, "
                          "kueue.x-k8s.io/managed: \"true\"}\n") +
                      pod("exec-1", kQueued + owned_by("v1", "Pod", "driver")));
  REQUIRE(m.workloads.size() == 1);
  CHECK(has_job(m, "Pod", "driver"));
  CHECK(has_warning(m.warnings, "Pod owned by Pod driver: Kueue admits Pod driver's Workload"));
}

TEST_CASE("a walk that ends at an owner missing from the input may change the answer") {
  // The Job is known but its integration is off: Kueue reads it from the
  // cluster and walks on to its JobSet, which kmc cannot.
  const auto m = load(config("pod, jobset.x-k8s.io/jobset") + jobset("js", kQueued) +
                      pod("p", kQueued + owned_by("batch/v1", "Job", "js-w-0")));
  CHECK(has_job(m, "Pod", "p"));
  bool flagged = false;
  for (const auto& w : m.warnings)
    if (contains(w.message, "Job js-w-0, which is not in the input")) flagged = w.may_change_answer;
  CHECK(flagged);
}

TEST_CASE("the webhooks refuse an empty queue name on a job another job owns") {
  const auto d = input_error_of([] {
    load(config("batch/job, jobset.x-k8s.io/jobset") + jobset("js", "  uid: uid-js\n" + kQueued) +
         job("j", "  labels: {kueue.x-k8s.io/queue-name: \"\"}\n" +
                      owned_by(kJobSetApi, "JobSet", "js")));
  });
  CHECK(contains(d.message, "an empty queue name"));
}

TEST_CASE("ownership Kueue never walks is not checked") {
  // Without the batch/job integration no webhook or reconciler walks from the Job.
  const auto m = load(config("jobset.x-k8s.io/jobset") +
                      job("a", "  uid: uid-a\n" + kQueued + owned_by(kJobSetApi, "JobSet", "b")) +
                      jobset("b", "  uid: uid-b\n" + owned_by("batch/v1", "Job", "a")));
  CHECK(m.workloads.empty());
}

TEST_CASE("a Pod its parent suspended gets no LocalQueue default") {
  // The pod webhook gates it at once, before defaulting: with no queue name
  // Kueue's reconciler then ignores it.
  const std::string lq =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: default, "
      "namespace: ns}\nspec: {clusterQueue: cq}\n---\n";
  const auto m = load(config("pod") + lq +
                      pod("p",
                          "  annotations: {kueue.x-k8s.io/pod-suspending-parent: "
                          "deployment}\n"));
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "the pod webhook gates it, and Kueue's pod reconciler ignores"));
}

TEST_CASE("Pods owning each other, defaulted, are a cycle, not a hang") {
  const std::string lq =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: default, "
      "namespace: ns}\nspec: {clusterQueue: cq}\n---\n";
  const auto d = input_error_of([&] {
    load(config("pod") + lq + pod("a", owned_by("v1", "Pod", "b")) +
         pod("b", owned_by("v1", "Pod", "a")));
  });
  CHECK(contains(d.message, "cycle"));
}

TEST_CASE("an unread job a queued ancestor owns is that ancestor's, not missing") {
  // KubeRay's RayJob makes a RayCluster; Kueue admits the RayJob's Workload.
  const auto m = load(config("ray.io/rayjob, ray.io/raycluster") +
                      object("ray.io/v1", "RayJob", "rj", kQueued) +
                      object("ray.io/v1", "RayCluster", "rc",
                             "  labels: {kueue.x-k8s.io/queue-name: lq}\n" +
                                 owned_by("ray.io/v1", "RayJob", "rj")));
  int clusters = 0;
  for (const auto& w : m.warnings)
    if (contains(w.message, "kind RayCluster")) {
      ++clusters;
      CHECK_FALSE(w.may_change_answer);
      CHECK(contains(w.message, "part of RayJob rj"));
    }
  CHECK(clusters == 1);
  CHECK(has_warning(m.warnings, "Kueue queues this RayJob"));  // its Workload is missing
}

TEST_CASE("owners missing from the input: what changes the answer") {
  SECTION("a controlling Pod, taken as queued") {
    const auto m = load(config("pod") + pod("exec-1", kQueued + owned_by("v1", "Pod", "driver")));
    CHECK(m.workloads.empty());
    bool flagged = false;
    for (const auto& w : m.warnings)
      if (contains(w.message, "Pod driver is not in the input")) flagged = w.may_change_answer;
    CHECK(flagged);
  }
  SECTION("a JobSet, taken as queued: its job is counted nowhere unless its Workload is there") {
    const std::string text = config("batch/job, jobset.x-k8s.io/jobset") +
                             job("j", kQueued + owned_by(kJobSetApi, "JobSet", "js"));
    const auto flagged = [](const ClusterManifests& m) {
      for (const auto& w : m.warnings)
        if (contains(w.message, "JobSet js, which Kueue admits it as part of, is not in the input"))
          return w.may_change_answer;
      return false;
    };
    const auto alone = load(text);
    CHECK(alone.workloads.empty());
    CHECK(flagged(alone));
    const auto with_workload =
        load(text +
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: jobset-js\n"
             "  namespace: ns\n" +
             owned_by(kJobSetApi, "JobSet", "js") +
             "spec:\n  queueName: lq\n  podSets:\n  - count: 1\n    template: {spec: {containers: "
             "[{name: c}]}}\n---\n");
    REQUIRE(with_workload.workloads.size() == 1);
    CHECK_FALSE(flagged(with_workload));
    CHECK(has_warning(with_workload.warnings, "Job owned by JobSet js"));
  }
  SECTION("a RayJob, taken as queued, above a RayCluster kmc does not read") {
    const auto m = load(
        config("ray.io/rayjob, ray.io/raycluster") +
        object("ray.io/v1", "RayCluster", "rc", kQueued + owned_by("ray.io/v1", "RayJob", "rj")));
    bool flagged = false;
    for (const auto& w : m.warnings)
      if (contains(w.message, "RayJob rj, which Kueue admits it as part of, is not in the input"))
        flagged = w.may_change_answer;
    CHECK(flagged);
  }
  SECTION("a ReplicaSet, without the deployment integration, changes nothing") {
    const auto m =
        load(config("pod") + pod("p", kQueued + owned_by("apps/v1", "ReplicaSet", "rs")));
    CHECK(has_job(m, "Pod", "p"));
    for (const auto& w : m.warnings) CHECK_FALSE(w.may_change_answer);
  }
}

TEST_CASE("two objects of one kind and name in a namespace are refused") {
  const auto d = input_error_of([] {
    load(config("batch/job, ray.io/rayjob") + object("ray.io/v1", "RayJob", "rj", kQueued) +
         object("ray.io/v1", "RayJob", "rj"));
  });
  CHECK(d.field == "metadata.name");
  CHECK(contains(d.message, "duplicate RayJob 'ns/rj'"));
}
