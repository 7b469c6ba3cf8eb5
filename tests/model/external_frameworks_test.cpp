// integrations.externalFrameworks: kinds whose own controllers make their
// Workloads. Kueue knows them as owners (IntegrationManager.isKnownOwner) and
// takes one that names a queue as the job its children are part of
// (FindAncestorJobManagedByKueue), and its webhooks leave their children's
// queue alone (IsOwnerManagedByKueueForObject).
#include <catch2/catch.hpp>
#include <string>

#include "fixtures.hpp"
#include "model/scenario.hpp"
#include "owner_chain_fixtures.hpp"

using namespace kmc::model;
using namespace kmc::test::owners;
using kmc::test::contains;
using kmc::test::has_warning;
using kmc::test::input_error_of;

namespace {

const std::string kMyJobApi = "example.com/v1";
const std::string kMyJob = "MyJob.v1.example.com";

// A Workload the external controller made for MyJob `name`.
std::string workload_of_my_job(const std::string& name) {
  return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: myjob-" + name +
         "\n  namespace: ns\n" + owned_by(kMyJobApi, "MyJob", name) +
         "spec:\n  queueName: lq\n  podSets:\n  - count: 1\n    template: {spec: {containers: "
         "[{name: c, resources: {requests: {cpu: '1'}}}]}}\n---\n";
}

// Whether a warning containing `part` may change the answer; false if none does.
bool flagged(const ClusterManifests& m, const std::string& part) {
  for (const auto& w : m.warnings)
    if (contains(w.message, part) && w.may_change_answer) return true;
  return false;
}

bool any_flagged(const ClusterManifests& m) {
  for (const auto& w : m.warnings)
    if (w.may_change_answer) return true;
  return false;
}

}  // namespace

TEST_CASE("an external framework's owner is walked through, as Kueue's own test walks it") {
  // reconciler_test: Job -> CronJob (external framework, enabled) ->
  // AppWrapper (queue-name) => AppWrapper.
  const std::string chain =
      job("j", kQueued + owned_by("batch/v1", "CronJob", "cronjob")) +
      object("batch/v1", "CronJob", "cronjob", owned_by(kAppWrapperApi, "AppWrapper", "aw")) +
      object(kAppWrapperApi, "AppWrapper", "aw", kQueued);
  SECTION("listed: the queued AppWrapper takes the Job") {
    const auto m =
        load(config("batch/job, workload.codeflare.dev/appwrapper", "CronJob.v1.batch") + chain);
    CHECK(m.workloads.empty());
    CHECK(has_warning(m.warnings,
                      "Job owned by CronJob cronjob, owned by AppWrapper aw: Kueue admits "
                      "AppWrapper aw's Workload"));
  }
  SECTION("not listed: the walk stops at the CronJob, and the Job is its own") {
    const auto m = load(config("batch/job, workload.codeflare.dev/appwrapper") + chain);
    REQUIRE(m.workloads.size() == 1);
    CHECK(has_job(m, "Job", "j"));
  }
}

TEST_CASE("a queued object of an external framework is the job its children are part of") {
  const std::string frameworks = config("batch/job", kMyJob);
  const std::string child = job("j", kQueued + owned_by(kMyJobApi, "MyJob", "mj"));
  SECTION("with the Workload its controller made, that Workload is counted, once") {
    const auto m = load(frameworks + object(kMyJobApi, "MyJob", "mj", kQueued) + child +
                        workload_of_my_job("mj"));
    REQUIRE(m.workloads.size() == 1);
    CHECK(m.workloads[0].source_kind == "Workload");
    CHECK(has_warning(m.warnings, "Job owned by MyJob mj: Kueue admits MyJob mj's Workload"));
    CHECK_FALSE(any_flagged(m));
  }
  SECTION("without it, the job is counted nowhere: that may change the answer") {
    const auto m = load(frameworks + object(kMyJobApi, "MyJob", "mj", kQueued) + child);
    CHECK(m.workloads.empty());
    CHECK(flagged(m, "Kueue admits the Workload its controller makes for this MyJob"));
  }
  SECTION("missing from the input, it is taken as queued, as an enabled integration's owner") {
    const auto m = load(frameworks + child);
    CHECK(m.workloads.empty());
    CHECK(flagged(m, "MyJob mj, which Kueue admits it as part of, is not in the input"));
  }
  SECTION("one that names no queue takes nothing") {
    const auto m = load(frameworks + object(kMyJobApi, "MyJob", "mj") + child);
    REQUIRE(m.workloads.size() == 1);
    CHECK(has_job(m, "Job", "j"));
    CHECK_FALSE(any_flagged(m));
  }
  SECTION("another version of the kind is not the one listed") {
    const auto m = load(frameworks + job("j", kQueued + owned_by("example.com/v2", "MyJob", "mj")));
    REQUIRE(m.workloads.size() == 1);
    CHECK(has_job(m, "Job", "j"));
  }
}

TEST_CASE("a child of an external framework's object gets no LocalQueue default") {
  // defaultLocalQueueApplies: not where the owner is managed by Kueue.
  const std::string default_queue =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: default, "
      "namespace: ns}\nspec: {clusterQueue: cq}\n---\n";
  // MyJob names no queue: the Job, not defaulted, is nobody's job.
  const std::string child =
      object(kMyJobApi, "MyJob", "mj") + job("j", owned_by(kMyJobApi, "MyJob", "mj"));
  const auto listed = load(config("batch/job", kMyJob) + default_queue + child);
  CHECK(listed.workloads.empty());
  CHECK(listed.unmanaged_jobs.size() == 1);
  const auto unlisted = load(config("batch/job") + default_queue + child);
  REQUIRE(has_job(unlisted, "Job", "j"));
  CHECK(unlisted.workloads[0].queue_name == "default");
}

TEST_CASE("a queue name on a kind Kueue does not manage changes nothing") {
  // A CronJob is not a job Kueue queues; the Jobs it makes carry their own labels.
  const auto m = load(config("batch/job") + object("batch/v1", "CronJob", "cj", kQueued));
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "kmc does not model kind CronJob"));
  CHECK_FALSE(any_flagged(m));
}

TEST_CASE("externalFrameworks as Kueue's validation refuses it is exit 3") {
  SECTION("not Kind.version.group") {
    const auto d = input_error_of([] { load(config("batch/job", "CronJob.v1")); });
    CHECK(contains(d.field, "externalFrameworks"));
    CHECK(contains(d.message, "Kind.version.group"));
  }
  SECTION("listed twice") {
    const auto d = input_error_of([&] { load(config("batch/job", kMyJob + ", " + kMyJob)); });
    CHECK(contains(d.message, "twice"));
  }
  SECTION("the kind of an integration listed in frameworks") {
    const auto d = input_error_of([] { load(config("batch/job", "Job.v1.batch")); });
    CHECK(contains(d.message, "batch/job"));
  }
}

TEST_CASE("externalFrameworks alone is not a warning") {
  const auto m = load(config("batch/job", kMyJob) + job("j", kQueued));
  CHECK_FALSE(has_warning(m.warnings, "externalFrameworks"));
  REQUIRE(m.workloads.size() == 1);
}

TEST_CASE("objects of kinds of one name in other API groups are not duplicates") {
  // A Volcano Job and a batch/v1 Job of one name: the walk from the Pod
  // reaches the batch Job, which the ownerReference names.
  const auto m = load(config("batch/job, pod") + object("batch.volcano.sh/v1alpha1", "Job", "x") +
                      job("x", kQueued + "  uid: uid-x\n") +
                      pod("p", kQueued + owned_by("batch/v1", "Job", "x")));
  REQUIRE(m.workloads.size() == 1);
  CHECK(has_job(m, "Job", "x"));
  CHECK(has_warning(m.warnings, "Pod owned by Job x: Kueue admits Job x's Workload"));
}

TEST_CASE("two objects of an external framework's kind and name are refused") {
  const std::string twice =
      object(kMyJobApi, "MyJob", "mj", kQueued) + object(kMyJobApi, "MyJob", "mj");
  SECTION("the Configuration first") {
    const auto d = input_error_of([&] { load(config("batch/job", kMyJob) + twice); });
    CHECK(contains(d.message, "duplicate MyJob 'ns/mj'"));
  }
  SECTION("the Configuration last") {
    const auto d = input_error_of([&] { load(twice + config("batch/job", kMyJob)); });
    CHECK(contains(d.message, "duplicate MyJob 'ns/mj'"));
  }
  SECTION("not listed: Kueue never reads them") {
    CHECK_NOTHROW(load(config("batch/job") + twice));
  }
}

TEST_CASE("a built-in kind whose integration is not listed may be an external framework") {
  // validateIntegrations refuses only a kind frameworks lists.
  SECTION("a queued RayJob without its Workload may change the answer") {
    const auto m = load(config("batch/job", "RayJob.v1.ray.io") +
                        object("ray.io/v1", "RayJob", "rj", kQueued));
    CHECK(flagged(m, "Kueue admits the Workload its controller makes for this RayJob"));
  }
  SECTION("a queued Job: its controller's Workload, and its Pods are its part") {
    // With LocalQueue default there, the pod webhook would queue the Job's
    // Pods, but for the walk that finds the queued Job above them.
    const std::string default_queue =
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: default, "
        "namespace: ns}\nspec: {clusterQueue: cq}\n---\n";
    const std::string text = config("pod", "Job.v1.batch") + default_queue +
                             job("j", kQueued + "  uid: uid-j\n") +
                             pod("p",
                                 "  labels: {kueue.x-k8s.io/queue-name: lq, "
                                 "kueue.x-k8s.io/managed: \"true\"}\n" +
                                     owned_by("batch/v1", "Job", "j"));
    const auto m = load(text);
    CHECK(m.workloads.empty());
    CHECK(flagged(m, "Kueue admits the Workload its controller makes for this Job"));
    CHECK_FALSE(has_warning(m.warnings, "Kueue leaves this Job alone"));
    CHECK(has_warning(m.warnings, "Pod owned by Job j: Kueue admits Job j's Workload"));
  }
}

TEST_CASE("a managed Pod of a queued external framework's object is its part") {
  const auto m = load(config("pod", kMyJob) + object(kMyJobApi, "MyJob", "mj", kQueued) +
                      pod("p",
                          "  labels: {kueue.x-k8s.io/queue-name: lq, "
                          "kueue.x-k8s.io/managed: \"true\"}\n" +
                              owned_by(kMyJobApi, "MyJob", "mj")));
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "Pod owned by MyJob mj: Kueue admits MyJob mj's Workload"));
}

TEST_CASE("the pod webhook's walk from a DaemonSet's Pod stops at the DaemonSet") {
  // isKnownOwner: a DaemonSet is no kind Kueue knows, whatever owns it.
  const std::string daemonset =
      "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: ds\n  namespace: ns\n  uid: "
      "uid-ds\n" +
      owned_by(kMyJobApi, "MyJob", "mj") +
      "spec:\n  template:\n    metadata:\n      labels: {kueue.x-k8s.io/queue-name: lq}\n"
      "    spec:\n      containers: [{name: c}]\n---\n";
  const auto m = load(config("batch/job, pod", kMyJob) + object(kMyJobApi, "MyJob", "mj", kQueued) +
                      daemonset);
  CHECK(flagged(m, "Kueue leaves this DaemonSet alone"));
}

TEST_CASE("without a Configuration, a queue name on an unknown kind changes nothing") {
  // Kueue's shipped Configuration lists no external frameworks.
  const auto m = load(object("batch/v1", "CronJob", "cj", kQueued));
  CHECK_FALSE(any_flagged(m));
}

TEST_CASE("a job whose controller Kueue manages gets no default WorkloadPriorityClass") {
  // ApplyDefaultWorkloadPriorityClass skips IsOwnerManagedByKueueForObject.
  const std::string default_class =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: "
      "default}\nvalue: 100\n---\n";
  const std::string child = job("j", kQueued + owned_by(kMyJobApi, "MyJob", "mj"));
  SECTION("an external framework's unqueued object") {
    const auto m = load(config("batch/job", kMyJob) + default_class +
                        object(kMyJobApi, "MyJob", "mj") + child);
    REQUIRE(m.workloads.size() == 1);
    CHECK(m.workloads[0].priority == 0);
  }
  SECTION("an owner Kueue does not manage") {
    const auto m =
        load(config("batch/job") + default_class + object(kMyJobApi, "MyJob", "mj") + child);
    REQUIRE(m.workloads.size() == 1);
    CHECK(m.workloads[0].priority == 100);
  }
}

TEST_CASE("an external framework's Workload outside managedJobsNamespaceSelector still runs") {
  // The selector keeps Kueue's own job reconcilers out of a namespace; an
  // external framework's controller starts its job once the Workload is admitted.
  const std::string selecting_none =
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nintegrations:\n"
      "  frameworks: [batch/job]\n  externalFrameworks: [" +
      kMyJob +
      "]\nmanagedJobsNamespaceSelector: {matchLabels: {kueue: enabled}}\n---\n"
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n---\n";
  const auto external = load(selecting_none + workload_of_my_job("mj"));
  REQUIRE(external.workloads.size() == 1);
  CHECK_FALSE(any_flagged(external));
  const std::string of_a_job =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: job-j\n"
      "  namespace: ns\n" +
      owned_by("batch/v1", "Job", "j") +
      "spec:\n  queueName: lq\n  podSets:\n  - count: 1\n    template: {spec: {containers: "
      "[{name: c}]}}\n---\n";
  CHECK(flagged(load(selecting_none + of_a_job), "never started"));
}

TEST_CASE("an external framework's object may own a batch Job of its name") {
  // A queued Volcano Job x (listed as external) owning a batch Job x is no cycle.
  const std::string volcano = "batch.volcano.sh/v1alpha1";
  const auto m = load(config("batch/job", "Job.v1alpha1.batch.volcano.sh") +
                      object(volcano, "Job", "x", kQueued) +
                      job("x", kQueued + "  uid: uid-batch-x\n" + owned_by(volcano, "Job", "x")));
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "Job owned by Job x: Kueue admits Job x's Workload"));
}

TEST_CASE("a queued JobSet of an external framework, with a Configuration, is told as one") {
  const auto m =
      load(config("batch/job", "JobSet.v1alpha2.jobset.x-k8s.io") + jobset("js", kQueued));
  CHECK(flagged(m, "Kueue admits the Workload its controller makes for this JobSet"));
  CHECK_FALSE(has_warning(m.warnings, "shipped Configuration"));
}
