// Which namespaces Kueue manages jobs in (Configuration managedJobsNamespaceSelector,
// namespace). Kueue's job reconciler acts only on jobs of the namespaces the
// selector selects (its default: all but kube-system and Kueue's own), and
// Kueue's installs keep its webhooks out of kube-system and its own namespace.
// So a job naming a queue there runs without Kueue, and elsewhere outside the
// selector no Workload ever comes: whether it runs is the install's (Kueue's
// Helm chart gives its webhooks the selector; its kustomize manifests do not,
// and the job webhook suspends it).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::has_warning;
using kmc::test::input_error_of;
using kmc::test::write_temp;

namespace {

std::string configuration(const std::string& fields) {
  return fmt::format(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "integrations: {{frameworks: [batch/job, pod]}}\n{}---\n",
      fields);
}

const std::string kSelectEnabled =
    "managedJobsNamespaceSelector: {matchLabels: {kueue: enabled}}\n";

std::string name_space(const std::string& name, const std::string& labels) {
  return fmt::format(
      "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {}, labels: {{{}}}}}\n---\n", name,
      labels);
}

std::string local_queue(const std::string& ns, const std::string& name = "lq") {
  return fmt::format(
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {{name: {}, namespace: "
      "{}}}\nspec: {{clusterQueue: cq}}\n---\n",
      name, ns);
}

std::string job(const std::string& ns, const std::string& queue = "lq") {
  const std::string labels =
      queue.empty() ? "" : fmt::format("  labels: {{kueue.x-k8s.io/queue-name: {}}}\n", queue);
  return fmt::format(
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: {}\n{}spec:\n"
      "  template:\n    spec:\n      containers: [{{name: c}}]\n---\n",
      ns, labels);
}

std::string pod(const std::string& ns) {
  return fmt::format(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: {}\n"
      "  labels: {{kueue.x-k8s.io/queue-name: lq}}\nspec:\n  containers: [{{name: c}}]\n---\n",
      ns);
}

ClusterManifests load(const std::string& text) {
  return load_cluster_manifests({write_temp("ns.yaml", text)});
}

}  // namespace

TEST_CASE("a job naming a queue in kube-system or Kueue's namespace runs without Kueue") {
  for (const std::string ns : {"kube-system", "kueue-system"}) {
    INFO(ns);
    const auto m = load(local_queue(ns) + job(ns));
    CHECK(m.workloads.empty());
    CHECK(m.unmanaged_jobs.size() == 1);  // not suspended: the plain scheduler runs it
    CHECK(has_warning(m.warnings, fmt::format("Kueue's webhooks skip namespace '{}'", ns)));
  }
}

TEST_CASE("Configuration.namespace moves Kueue's own namespace out of management") {
  const std::string config = configuration("namespace: kueue\n");
  const auto m = load(config + local_queue("kueue") + job("kueue"));
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "Kueue's webhooks skip namespace 'kueue'"));
  // kueue-system is then an ordinary namespace.
  const auto system = load(config + local_queue("kueue-system") + job("kueue-system"));
  CHECK(system.workloads.size() == 1);
}

TEST_CASE("a custom managedJobsNamespaceSelector: a queued Job outside it gets no Workload") {
  const auto m = load(configuration(kSelectEnabled) + name_space("team-a", "kueue: enabled") +
                      name_space("team-b", "") + local_queue("team-a") + local_queue("team-b") +
                      job("team-a") + job("team-b"));
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].meta.namespace_ == "team-a");
  // Never reconciled; suspended by the webhook, where the webhook runs there.
  CHECK(m.unmanaged_jobs.empty());
  CHECK(has_warning(m.warnings,
                    "does not select namespace 'team-b', so Kueue's job reconciler "
                    "never creates its Workload"));
  CHECK(has_warning(m.warnings, "Helm chart"));
  for (const auto& w : m.warnings) CHECK_FALSE(w.may_change_answer);
}

TEST_CASE("a Pod naming a queue outside the selector runs without Kueue") {
  const auto m = load(configuration(kSelectEnabled) + name_space("team-b", "") +
                      local_queue("team-b") + pod("team-b"));
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "the pod webhook leaves it ungated"));
}

TEST_CASE("a Pod its parent suspended, outside the selector, is gated or not by the install") {
  const std::string suspended =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: team-b\n"
      "  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/managed: \"true\"}\n"
      "  annotations: {kueue.x-k8s.io/pod-suspending-parent: deployment}\n"
      "spec:\n  containers: [{name: c}]\n---\n";
  const auto m = load(configuration(kSelectEnabled) + name_space("team-b", "") +
                      local_queue("team-b") + suspended);
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "the pod webhook gates it, as its parent suspended it"));
}

TEST_CASE("LocalQueue defaulting only where the selector selects") {
  const std::string objects = configuration(kSelectEnabled) +
                              name_space("team-a", "kueue: enabled") + name_space("team-b", "") +
                              local_queue("team-a", "default") + local_queue("team-b", "default");
  const auto a = load(objects + job("team-a", ""));
  REQUIRE(a.workloads.size() == 1);
  CHECK(a.workloads[0].queue_name == "default");
  const auto b = load(objects + job("team-b", ""));
  CHECK(b.workloads.empty());
  CHECK(b.unmanaged_jobs.size() == 1);  // no queue name: not suspended, it runs
}

TEST_CASE("selectors see the name label the API server puts on every Namespace") {
  // No Namespace objects at all: the name label is all a selector on it needs.
  const std::string config = configuration(
      "managedJobsNamespaceSelector:\n  matchExpressions:\n  - {key: kubernetes.io/metadata.name, "
      "operator: In, values: [team-a]}\n");
  const auto m =
      load(config + local_queue("team-a") + local_queue("team-b") + job("team-a") + job("team-b"));
  REQUIRE(m.workloads.size() == 1);
  CHECK(m.workloads[0].meta.namespace_ == "team-a");
  for (const auto& w : m.warnings) CHECK_FALSE(w.may_change_answer);
  const auto ns = load(name_space("team-a", ""));
  REQUIRE(ns.namespaces.size() == 1);
  CHECK(ns.namespaces[0].meta.labels.at("kubernetes.io/metadata.name") == "team-a");
}

TEST_CASE("a selector on labels of a Namespace not in the input may change the answer") {
  const auto m = load(configuration(kSelectEnabled) + local_queue("team-a") + job("team-a"));
  CHECK(m.workloads.empty());
  bool warned = false;
  for (const auto& w : m.warnings)
    warned = warned || (w.may_change_answer && contains(w.message, "Namespace 'team-a'"));
  CHECK(warned);
}

TEST_CASE("Kueue refuses a managedJobsNamespaceSelector that selects its own or kube-system") {
  for (const auto& [selector, refused] :
       {std::pair<std::string, std::string>{"{}", "kube-system"},
        {"{matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: "
         "[kube-system]}]}",
         "kueue-system"},
        {"{matchExpressions: [{key: tier, operator: DoesNotExist}]}", "kube-system"}}) {
    INFO(selector);
    const auto e = input_error_of(
        [&] { load(configuration(fmt::format("managedJobsNamespaceSelector: {}\n", selector))); });
    CHECK(e.field == "managedJobsNamespaceSelector");
    CHECK(contains(e.message, fmt::format("should not match the \"{}\" namespace", refused)));
  }
}

TEST_CASE("a label selector's operators need their values, as the API validates") {
  for (const std::string expression :
       {"{key: a, operator: In, values: []}", "{key: a, operator: NotIn}",
        "{key: a, operator: Exists, values: [x]}"}) {
    INFO(expression);
    const auto e = input_error_of([&] {
      load(configuration(
          fmt::format("managedJobsNamespaceSelector: {{matchExpressions: [{}]}}\n", expression)));
    });
    CHECK(contains(e.field, "values"));
  }
}

TEST_CASE("an empty queue name outside the selector is not Kueue's to refuse") {
  // Where the webhooks run there is the install's: no exit 3.
  const auto m =
      load(configuration(kSelectEnabled) + name_space("team-b", "") + job("team-b", "\"\""));
  CHECK(m.workloads.empty());
  CHECK(has_warning(m.warnings, "Kueue does not manage it"));
}

TEST_CASE("a dumped Workload of a job outside the selector is admitted, its job never started") {
  const std::string workload =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: job-j\n"
      "  namespace: team-b\n  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, uid: "
      "u, controller: true}]\nspec:\n  queueName: lq\n  podSets:\n  - name: main\n"
      "    count: 1\n    template:\n      spec:\n        containers: [{name: c}]\n---\n";
  const auto m = load(configuration(kSelectEnabled) + name_space("team-b", "") +
                      local_queue("team-b") + workload);
  REQUIRE(m.workloads.size() == 1);
  bool warned = false;
  for (const auto& w : m.warnings)
    warned = warned || (w.may_change_answer && contains(w.message,
                                                        "the Job owning this Workload "
                                                        "is never started"));
  CHECK(warned);
}

TEST_CASE("a label selector's keys and values follow Kubernetes' label syntax") {
  for (const std::string selector :
       {"{matchLabels: {\"-bad\": x}}", "{matchLabels: {team: \"a b\"}}",
        "{matchExpressions: [{key: \"a/b/c\", operator: Exists}]}",
        "{matchExpressions: [{key: \"Example.com/x\", operator: Exists}]}",
        "{matchExpressions: [{key: team, operator: In, values: [\"x_\"]}]}"}) {
    INFO(selector);
    const auto e = input_error_of(
        [&] { load(configuration(fmt::format("managedJobsNamespaceSelector: {}\n", selector))); });
    CHECK(contains(e.message, "is not a valid label"));
  }
  // Valid: a prefixed key, an empty value.
  const auto m = load(configuration(
      "managedJobsNamespaceSelector: {matchLabels: {example.com/team: \"\", kueue: on_1.x}}\n"));
  CHECK(m.workloads.empty());
}

TEST_CASE("a queued StatefulSet outside the selector may still be Kueue's") {
  // Kueue's StatefulSet reconciler asks WorkloadShouldBeSuspended, which needs
  // only the queue name: it reads no managedJobsNamespaceSelector.
  const std::string sts =
      "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\n  namespace: team-b\n"
      "  labels: {kueue.x-k8s.io/queue-name: lq}\nspec: {}\n---\n";
  const auto flagged = [&](const std::string& frameworks) {
    const auto m =
        load(fmt::format("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                         "integrations: {{frameworks: [{}]}}\n{}---\n",
                         frameworks, kSelectEnabled) +
             name_space("team-b", "") + sts);
    for (const auto& w : m.warnings)
      if (contains(w.message, "kind StatefulSet")) return w.may_change_answer;
    return false;
  };
  CHECK(flagged("batch/job, pod, statefulset"));
  // Without its integration Kueue reconciles no StatefulSet at all.
  CHECK_FALSE(flagged("batch/job, pod"));
}
