// A ClusterQueue's namespaceSelector in protocol kueue-admission
// (ValidateAdmissibility): a workload of a namespace it does not select is
// never nominated. The cycle that pops it parks it, whatever the queueing
// strategy (RequeueIfNotPresent: NamespaceMismatch is not immediate even for
// StrictFIFO), so it holds back nothing behind it but that cycle's pop; a
// NoFit StrictFIFO head, by contrast, stays at the head. Parked, it stays
// parked when its tree is requeued (queueInadmissibleWorkloads skips it),
// unless it was in flight in the cycle that freed the quota.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "ka_check.hpp"
#include "model/diagnostics.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka = kmc::protocols::ka;
using kmc::checker::Verdict;
using namespace ka_check::steps;

namespace {

// cq0 {cpu: 1}: w0 (created first) of a namespace cq0 does not select, w1 of one it does.
ka::AdmissionParams mismatched_first(bool strict) {
  auto p = ka_check::queue_of_one(2);
  p.workloads[0].namespace_mismatch = true;
  p.cqs[0].strict_fifo = strict;
  p.finish();
  return p;
}

bool has_message(const kmc::model::Warnings& warnings, const std::string& part, bool changes) {
  for (const auto& w : warnings)
    if (w.message.find(part) != std::string::npos && w.may_change_answer == changes) return true;
  return false;
}

}  // namespace

TEST_CASE("namespaceSelector: the head of another namespace is parked, in either strategy",
          "[admission][namespaces]") {
  for (const bool strict : {false, true}) {
    INFO("StrictFIFO " << strict);
    const auto p = mismatched_first(strict);
    ka_check::Walk step(p);
    step(kSchedule);  // pops w0 alone: the queue's one head this cycle
    CHECK(step.s.phase[0] == ka::kInadmissible);
    CHECK(step.s.phase[1] == ka::kPending);
    step(kSchedule);
    CHECK(step.s.phase[1] == ka::kAdmitted);
    // w1's quota released requeues its tree, but not w0.
    step(finish(1));
    CHECK(step.s.phase[0] == ka::kInadmissible);
    CHECK_FALSE(step.rules.enabled(step.s, kSchedule));
  }
}

TEST_CASE("namespaceSelector: a NoFit StrictFIFO head blocks where a mismatched one does not",
          "[admission][namespaces]") {
  auto p = ka_check::queue_of_one(2);
  p.workloads[0].eligible = {false};  // no flavor it may use: NoFit, immediate in StrictFIFO
  p.cqs[0].strict_fifo = true;
  p.finish();
  ka_check::Walk step(p);
  step(kSchedule);
  step(kSchedule);
  CHECK(step.s.phase[1] == ka::kPending);
}

TEST_CASE("namespaceSelector: exact state counts, and nothing owed to the mismatched",
          "[admission][namespaces][counts]") {
  // By hand: s0 both Pending; s1 w0 parked; s2 w1 Admitted; s3 w1 Finished, w0
  // still parked. Edges s0-s1 s1-s2 s2-s3. The guarantee holds: w0 is owed
  // nothing, w1 is admitted.
  for (const bool strict : {false, true}) {
    INFO("StrictFIFO " << strict);
    const auto o = ka_check::check(mismatched_first(strict));
    CHECK(o.result.verdict == Verdict::Verified);
    CHECK(o.result.stats.states == 4);
    CHECK(o.result.stats.transitions == 3);
  }
}

TEST_CASE("namespaceSelector: a parked mismatched workload parks no equivalent arrival",
          "[admission][namespaces][equivalence]") {
  // w0 and w1 share a scheduling hash (which does not read the namespace); w0,
  // mismatched, is parked by NamespaceMismatch, which bulk-parks no hash, so
  // w1, created now, goes to the heap (PushOrUpdate) and is admitted.
  auto p = ka_check::queue_of_one(2);
  p.workloads[0].namespace_mismatch = true;
  p.workloads[1].arrives = true;
  for (auto& w : p.workloads) w.equivalence = 0;
  p.finish();
  ka_check::Walk step(p);
  step(kSchedule);
  REQUIRE(step.s.phase[0] == ka::kInadmissible);
  step(ka::Action{ka::kArrive, 1});
  CHECK(step.s.phase[1] == ka::kPending);
  step(kSchedule);
  CHECK(step.s.phase[1] == ka::kAdmitted);
}

TEST_CASE("namespaceSelector: a mismatched head in flight when quota is freed is requeued",
          "[admission][namespaces][preemption]") {
  // Cohort "co" over cq0 {cpu: 2} and cq1 {cpu: 0}: w1 (cq1) holds 1 cpu it
  // borrows from cq0. In one cycle w0 (cq0, 2 cpu) reclaims it, and cq1's head
  // w2, mismatched, is popped: the victim's quota is freed during the cycle,
  // and the requeue reaches w2 in flight (queueInadmissibleCycle >= popCycle).
  auto p = ka_check::two_in_cohort(2, 0);
  p.cqs[0].reclaim = ka::Reclaim::Any;
  p.workloads = {ka_check::workload("ns/w0", 0, 0, {2}, -1, 1),
                 ka_check::workload("ns/w1", 1, 0, {1}, 0, 0),
                 ka_check::workload("ns/w2", 1, 0, {1}, -1, 2)};
  p.workloads[2].namespace_mismatch = true;
  p.finish();
  ka_check::Walk step(p);
  step(kSchedule);  // w0 preempts w1 (a Job: its quota goes at once); w2 popped, parked
  CHECK(step.s.phase[1] == ka::kPending);
  CHECK(step.s.phase[2] == ka::kPending);
}

TEST_CASE("namespaceSelector: compiled from the manifests, a nil one selects no namespace",
          "[admission][namespaces]") {
  const auto dir = std::filesystem::temp_directory_path() / "kmc-namespaces" / "cluster";
  std::filesystem::create_directories(dir);
  std::ofstream(dir.parent_path() / "kmc.yaml")
      << "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\nprotocol: kueue-admission\ncluster: cluster\n";
  const auto write = [&](const std::string& selector) {
    std::ofstream(dir / "objects.yaml")
        << "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n"
           "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
           "spec:\n"
        << selector
        << "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors: [{name: default, "
           "resources: [{name: cpu, nominalQuota: 2}]}]\n"
           "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: team-a, labels: {tier: gpu}}\n";
    for (const std::string ns : {"team-a", "team-b"})
      std::ofstream(dir / (ns + ".yaml"))
          << "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, "
             "namespace: "
          << ns
          << "}\nspec: {clusterQueue: cq}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: "
             "Workload\nmetadata: {name: w, namespace: "
          << ns
          << "}\nspec:\n  queueName: lq\n  priority: 0\n  podSets:\n  - name: main\n    count: "
             "1\n    template:\n      spec:\n        containers: [{name: c, resources: "
             "{requests: {cpu: 1}}}]\n";
  };
  const auto compile = [&] {
    return ka::compile_admission(kmc::model::load_scenario(dir.parent_path().string()));
  };
  SECTION("no namespaceSelector: nothing is admitted") {
    write("");
    const auto p = compile();
    REQUIRE(p.W() == 2);
    CHECK(p.workloads[0].namespace_mismatch);
    CHECK(p.workloads[1].namespace_mismatch);
    CHECK(has_message(p.warnings, "is not set, so it selects no namespace", false));
  }
  SECTION("one on the name label, which every Namespace has") {
    write("  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: team-b}}\n");
    const auto p = compile();
    CHECK(p.workloads[0].namespace_mismatch);        // team-a
    CHECK_FALSE(p.workloads[1].namespace_mismatch);  // team-b, not in the input
    CHECK(has_message(p.warnings, "does not select namespace 'team-a'", false));
    CHECK_FALSE(has_message(p.warnings, "is not in the input", true));
  }
  SECTION("one on another label: a Namespace missing from the input may change the answer") {
    write("  namespaceSelector: {matchLabels: {tier: gpu}}\n");
    const auto p = compile();
    CHECK_FALSE(p.workloads[0].namespace_mismatch);
    CHECK(p.workloads[1].namespace_mismatch);
    CHECK(has_message(p.warnings, "Namespace 'team-b', which is not in the input", true));
  }
}
