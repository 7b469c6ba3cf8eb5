// The kube-scheduler baseline (protocols/kube_scheduler/): the gang deadlock
// of seeds 2 and 4, with its exact state count derived by hand.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "checker/symbolic_reach.hpp"
#include "counterexamples/kube_scheduler/symbolic.hpp"
#include "counterexamples/pipeline_core.hpp"
#include "invariants/kube_scheduler_registry.hpp"
#include "model/scenario.hpp"

namespace ks = kmc::protocols::ks;
using kmc::checker::Verdict;

TEST_CASE("kube-scheduler: two gangs of two 4-GPU pods on two 4-GPU nodes deadlock",
          "[kube-scheduler]") {
  const auto sc =
      kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/plain-scheduler-gang-deadlock");
  const ks::Instance p(ks::compile_kube_scheduler(sc));
  kmc::cx::Hooks hooks;
  const auto o =
      kmc::cx::check_instance(p, kmc::invariants::kube_scheduler_properties(p), sc, {}, hooks);
  CHECK(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->property == "no-gang-deadlock");
  CHECK(o.result.violation->path.choices.size() == 2);  // one pod of each Job, one per node
  // By hand; each node holds one pod at a time. Both Jobs waiting: each node
  // empty or holding a pod of either Job, less the two where one Job holds
  // both (it runs): 7. One Job running, the other unbound: 2. One done, the
  // other waiting with 0 or 1 pod bound (3) or running (1): 8. Both done: 1.
  // 18 states. Edges: 4 binds from the empty cluster; 2 from each of the 4
  // one-pod states; none from the 2 deadlocked ones; 1 finish from each
  // running Job (2 + 2); 2 + 1 + 1 binds after either Job is done (8): 24.
  CHECK(o.result.stats.states == 18);
  CHECK(o.result.stats.transitions == 24);
}

// The same rules at sym::Int (their second instantiation): the symbolic instance reaches exactly
// the 18 states above, and the SMT engines decide the state properties on them.
TEST_CASE("kube-scheduler over Z3: the same 18 states, and the SMT engines decide its properties",
          "[kube-scheduler][smt]") {
  const auto sc =
      kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/plain-scheduler-gang-deadlock");
  const ks::Instance p(ks::compile_kube_scheduler(sc));
  CHECK(kmc::checker::SymbolicInstance<ks::Spec>(p.params()).reachable(8).size() == 18);
  kmc::checker::SmtLimits limits;
  limits.max_depth = 20;
  // Every path without a repeated state is short here: bounded model checking is complete.
  const auto bmc = kmc::cx::check_kube_scheduler_smt(p, {"node-within-allocatable"},
                                                     kmc::checker::SmtEngine::Bmc, limits);
  CHECK(bmc.verdict == Verdict::Verified);
  REQUIRE(bmc.properties.size() == 1);
  CHECK(bmc.properties[0].method == "bmc-complete");
  const auto induction = kmc::cx::check_kube_scheduler_smt(
      p, {"node-within-allocatable", "some-job-runs"}, kmc::checker::SmtEngine::Induction, limits);
  CHECK(induction.verdict == Verdict::Verified);
  REQUIRE(induction.properties.size() == 2);
  CHECK(induction.properties[0].method == "k-induction");
  CHECK(induction.properties[1].method == "bmc");
  CHECK(induction.properties[1].k == 2);  // both pods of one Job bound: two steps
}

namespace {

// A kube-scheduler scenario of one 8-GPU node, a ClusterQueue of 8 GPUs with LocalQueue ns/q,
// a Configuration listing `frameworks`, and `jobs` (YAML documents), written to `name`.
kmc::model::Scenario one_node(const std::string& name, const std::string& frameworks,
                              const std::string& jobs) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir / "cluster");
  std::ofstream(dir / "kmc.yaml") << "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\n"
                                     "protocol: kube-scheduler\ncluster: cluster\n"
                                     "nodes:\n  - {name: n, allocatable: {nvidia.com/gpu: 8}}\n";
  // Appended, not `"literal" + std::string&&`: GCC 12 at -O3 warns -Wrestrict falsely there.
  std::string text =
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "integrations: {frameworks: [";
  text += frameworks;
  text += R"(]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: f
      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: ns}
spec: {clusterQueue: cq}
---
)";
  text += jobs;
  std::ofstream(dir / "cluster" / "jobs.yaml") << text;
  return kmc::model::load_scenario(dir.string());
}

}  // namespace

// A JobSet's Jobs are its pods' only owners: the baseline counts the JobSet's
// Workload once, not again through the child Jobs a dump also holds.
TEST_CASE("kube-scheduler: a JobSet and its dumped child Job are one job", "[kube-scheduler]") {
  const auto sc = one_node("kmc-ks-jobset", "batch/job, jobset.x-k8s.io/jobset",
                           R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ns, uid: u1, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        parallelism: 2
        completions: 2
        template:
          spec:
            containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: js-w-0
  namespace: ns
  ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: js, uid: u1,
                     controller: true}]
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]
)");
  const ks::SchedulerParams p = ks::compile_kube_scheduler(sc);
  REQUIRE(p.jobs.size() == 1);
  CHECK(p.jobs[0].name == "ns/js");
  CHECK(p.jobs[0].pods == 2);
}

// Kueue's pod webhook queues the Pods of a Job that names no queue where they
// name one; without Kueue they are that Job's pods, counted once, through it.
TEST_CASE("kube-scheduler: a Job and the Pods the pod webhook queued of it are one job",
          "[kube-scheduler]") {
  const auto sc = one_node("kmc-ks-job-pods", "batch/job, pod", R"(apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns}
spec:
  parallelism: 2
  completions: 2
  template:
    metadata: {labels: {kueue.x-k8s.io/queue-name: q}}
    spec:
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: j-0
  namespace: ns
  labels: {kueue.x-k8s.io/queue-name: q}
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: u1, controller: true}]
spec:
  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]
)");
  REQUIRE(sc.manager.workloads.size() == 1);  // the Pod, queued by the pod webhook
  const ks::SchedulerParams p = ks::compile_kube_scheduler(sc);
  REQUIRE(p.jobs.size() == 1);
  CHECK(p.jobs[0].name == "ns/j");
  CHECK(p.jobs[0].pods == 2);
}
