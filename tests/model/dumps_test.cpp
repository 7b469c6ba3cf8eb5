// Cluster dumps as kubectl prints them: a Job and the Workload Kueue made for
// it count once, generateName-only objects get stable names, and "-" reads
// standard input.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iostream>
#include <sstream>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::input_error_of;

namespace {

const char* const kJob = R"(apiVersion: batch/v1
kind: Job
metadata:
  name: sample
  namespace: team
  labels:
    kueue.x-k8s.io/queue-name: q
  annotations:
    kmc.dev/runtime-seconds: "60"
spec:
  parallelism: 2
  template:
    spec:
      containers:
      - name: main
        resources:
          requests:
            cpu: "1"
)";

// The Workload Kueue created for it, with its status (admitted).
const char* const kOwnedWorkload = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: job-sample-3f2a1
  namespace: team
  ownerReferences:
  - apiVersion: batch/v1
    kind: Job
    name: sample
    uid: 0b9d
spec:
  queueName: q
  podSets:
  - name: main
    count: 2
    template:
      spec:
        containers:
        - name: main
          resources:
            requests:
              cpu: "1"
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      count: 2
      flavors: {cpu: default}
      resourceUsage: {cpu: "2"}
)";

std::string generated_job(const std::string& name_line) {
  return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  " + name_line +
         "\n  labels:\n    kueue.x-k8s.io/queue-name: q\nspec:\n  template:\n    spec:\n"
         "      containers:\n      - name: main\n";
}

std::vector<std::string> names(const ClusterManifests& m) {
  std::vector<std::string> out;
  for (const auto& w : m.workloads) out.push_back(w.source_kind + "/" + w.meta.name);
  return out;
}

// Loads `text` as standard input; std::cin is restored even when loading throws.
ClusterManifests load_from_stdin(const std::string& text, std::vector<std::string> paths = {"-"}) {
  std::istringstream in(text);
  std::streambuf* saved = std::cin.rdbuf(in.rdbuf());
  struct Restore {
    std::streambuf* buf;
    ~Restore() { std::cin.rdbuf(buf); }
  } restore{saved};
  return load_cluster_manifests(paths);
}

}  // namespace

TEST_CASE("a Workload owned by a Job in the dump stands for it, with its status") {
  const std::string file =
      kmc::test::write_temp("job-and-workload.yaml", std::string(kJob) + "---\n" + kOwnedWorkload);
  const auto m = load_cluster_manifests({file});
  CHECK(names(m) == std::vector<std::string>{"Workload/job-sample-3f2a1"});
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].admission.has_value());
  CHECK(m.workloads[0].runtime_s == 60);  // kmc's annotation, carried over from the Job
  const auto note = std::find_if(m.warnings.begin(), m.warnings.end(), [](const Diagnostic& d) {
    return contains(d.message, "Job team/sample is owned by Workload team/job-sample-3f2a1");
  });
  REQUIRE(note != m.warnings.end());
  CHECK(note->pos == SourcePos{file, 1});
  CHECK_FALSE(note->may_change_answer);
}

TEST_CASE("a Workload whose owner is not in the dump leaves other Jobs alone") {
  std::string other = kJob;
  other.replace(other.find("name: sample\n"), 12, "name: other");
  const std::string file =
      kmc::test::write_temp("job-and-foreign-workload.yaml", other + "---\n" + kOwnedWorkload);
  CHECK(names(load_cluster_manifests({file})) ==
        std::vector<std::string>{"Job/other", "Workload/job-sample-3f2a1"});
}

TEST_CASE("generateName gives a stable name, unique against the names written") {
  // The explicit sample-job-1 comes later in the file, and still keeps its name.
  const std::string file = kmc::test::write_temp(
      "generate-name.yaml", generated_job("generateName: sample-job-") + "---\n" +
                                generated_job("generateName: sample-job-") + "---\n" +
                                generated_job("name: sample-job-1"));
  const auto first = load_cluster_manifests({file});
  CHECK(names(first) ==
        std::vector<std::string>{"Job/sample-job-2", "Job/sample-job-3", "Job/sample-job-1"});
  CHECK(first.workloads[0].meta.generate_name == "sample-job-");
  CHECK(names(load_cluster_manifests({file})) == names(first));
}

TEST_CASE("an object with neither name nor generateName is still refused") {
  const std::string file = kmc::test::write_temp("no-name.yaml", generated_job("namespace: a"));
  const Diagnostic d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.field == "metadata.name");
}

TEST_CASE("'-' reads the manifests from standard input, shown as <stdin>") {
  const auto m = load_from_stdin(std::string(kJob) + "---\n" + kOwnedWorkload);
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].meta.pos == SourcePos{"<stdin>", 20});
  const Diagnostic d = input_error_of([] { load_from_stdin("kind: [\n"); });
  CHECK(d.pos.file == "<stdin>");
}

TEST_CASE("'-' twice is refused: standard input can be read once") {
  const Diagnostic d = input_error_of([] { load_from_stdin("", {"-", "-"}); });
  CHECK(contains(d.message, "only once"));
}

// With no Configuration, kmc reads Kueue's default integrations (batch/job
// only), but the cluster's own, like Kueue's shipped one, may list JobSets.
TEST_CASE("a queued JobSet and no Configuration is an answer-changing warning") {
  const std::string jobset = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: trainer
  namespace: team
  labels:
    kueue.x-k8s.io/queue-name: q
spec: {}
)";
  const std::string alone = kmc::test::write_temp("jobset.yaml", jobset);
  const auto m = load_cluster_manifests({alone});
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].may_change_answer);
  CHECK(m.warnings[0].concept_ == "JobSet with a queue name and no Configuration");
  CHECK(contains(m.warnings[0].message, "add the cluster's Configuration"));

  // With the Workload Kueue made for it, the JobSet is accounted for.
  std::string workload = kOwnedWorkload;
  workload.replace(workload.find("kind: Job\n    name: sample"), 26,
                   "kind: JobSet\n    name: trainer");
  const std::string both =
      kmc::test::write_temp("jobset-and-workload.yaml", jobset + "---\n" + workload);
  const auto covered = load_cluster_manifests({both});
  REQUIRE(covered.warnings.size() == 1);
  CHECK_FALSE(covered.warnings[0].may_change_answer);
  CHECK(contains(covered.warnings[0].message, "its Workload team/job-sample-3f2a1"));
  CHECK(covered.workloads.size() == 1);
}

TEST_CASE("a queued job of another kind with generateName only is flagged too") {
  const std::string file =
      kmc::test::write_temp("jobset-generated.yaml", R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  generateName: sleep-job-
  labels:
    kueue.x-k8s.io/queue-name: q
)");
  const auto m = load_cluster_manifests({file});
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].may_change_answer);
}
