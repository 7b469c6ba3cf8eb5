// A ClusterQueue's namespaceSelector in MultiKueue fleets. Each cluster's
// scheduler reads it (ValidateAdmissibility): a workload from a namespace it
// does not select is never admitted there (NamespaceMismatch); popped, it is
// parked at once, so it holds no head, StrictFIFO or not. On the manager
// the job never runs; on a worker its copy waits there for ever while the
// other workers may admit theirs.
#include <catch2/catch.hpp>
#include <string>

#include "mk_check.hpp"
#include "mk_fixtures.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue.hpp"
#include "protocols/multikueue_spec.hpp"

using kmc::checker::Verdict;
using kmc::protocols::MkParams;
using kmc::protocols::MultiKueue;
using mk_check::check;
using mk_check::Walk;

namespace {

const std::string kJ0 = "team-a/train-0", kJ1 = "team-a/train-1";

// Place w (-1: the manager) leaves job j's namespace out.
void leave_out(MkParams& p, int w, int j) {
  p.namespace_mismatch.resize(static_cast<std::size_t>((p.W() + 1) * p.J()), false);
  p.namespace_mismatch[static_cast<std::size_t>((w + 1) * p.J() + j)] = true;
}

// Workers without a ProvisioningRequest: a copy is Admitted when it reserves quota.
MkParams plain(int workers, int jobs, std::int64_t manager_gpus) {
  auto p = mk_fixtures::fleet(workers, jobs, 8, manager_gpus);
  for (auto& q : p.cqs) q.provisioning = false;
  return p;
}

bool answer_changing(const MkParams& p) {
  for (const auto& w : p.warnings)
    if (w.may_change_answer && w.field == "spec.namespaceSelector") return true;
  return false;
}

bool says(const MkParams& p, const std::string& part) {
  for (const auto& w : p.warnings)
    if (w.message.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("namespaceSelector in a MultiKueue fleet: compiled per cluster and job",
          "[protocols][multikueue][namespaces]") {
  auto sc = kmc::model::load_scenario(KMC_SOURCE_DIR "/examples/three-workers");
  const MkParams base = kmc::protocols::compile_multikueue(sc);
  CHECK(base.namespace_mismatch.empty());
  CHECK_FALSE(answer_changing(base));
  SECTION("not written, it selects no namespace: modelled, so the answer stands") {
    for (auto& cq : sc.workers[1].cluster_queues) cq.namespace_selector = {};
    const MkParams p = kmc::protocols::compile_multikueue(sc);
    CHECK_FALSE(answer_changing(p));
    CHECK(says(p, "is not set, so it selects no namespace, not even namespace 'team-ml'"));
    REQUIRE(p.namespace_mismatch.size() == static_cast<std::size_t>((p.W() + 1) * p.J()));
    for (int j = 0; j < p.J(); ++j) {
      CHECK_FALSE(p.mismatched(-1, j));
      CHECK_FALSE(p.mismatched(0, j));
      CHECK(p.mismatched(1, j));
      CHECK_FALSE(p.mismatched(2, j));
    }
    // A different fleet: its identity (and replay tokens) differ.
    CHECK(kmc::protocols::MkSpec::identity(p) != kmc::protocols::MkSpec::identity(base));
  }
  SECTION("a selector on the manager naming another namespace") {
    for (auto& cq : sc.manager.cluster_queues) {
      cq.namespace_selector = {};
      cq.namespace_selector.present = true;
      cq.namespace_selector.match_labels = {{"kubernetes.io/metadata.name", "team-other"}};
    }
    const MkParams p = kmc::protocols::compile_multikueue(sc);
    CHECK_FALSE(answer_changing(p));
    CHECK(says(p, "does not select namespace 'team-ml'"));
    for (int j = 0; j < p.J(); ++j) CHECK(p.mismatched(-1, j));
  }
  SECTION("one reading labels of a Namespace the input lacks may change the answer") {
    sc.workers[0].namespaces.clear();
    for (auto& cq : sc.workers[0].cluster_queues) {
      cq.namespace_selector = {};
      cq.namespace_selector.present = true;
      cq.namespace_selector.match_labels = {{"team", "ml"}};
    }
    const MkParams p = kmc::protocols::compile_multikueue(sc);
    CHECK(answer_changing(p));
    for (int j = 0; j < p.J(); ++j) CHECK(p.mismatched(0, j));
  }
}

TEST_CASE("MultiKueue: the manager never admits a job its ClusterQueue's namespaces leave out",
          "[protocols][multikueue][namespaces]") {
  auto p = plain(1, 2, 8);
  p.cqs[0].strict_fifo = true;
  leave_out(p, -1, 0);  // the older job
  const MultiKueue mk(p);
  Walk w{mk, mk.init_states().front()};
  CHECK_FALSE(w.enabled("ReserveQuota(" + kJ0 + ")"));
  // Parked, it is no head: the newer job goes first even under StrictFIFO.
  CHECK(w.take("ReserveQuota(" + kJ1 + ")"));
  const auto r = check(mk);
  REQUIRE(r.verdict == Verdict::Violated);
  CHECK(r.violation->property == "no-stuck-job");
  CHECK(r.violation->subject == 0);
  CHECK(r.violation->detail.find("the manager never admits it: its ClusterQueue's "
                                 "namespaceSelector leaves the namespace out") !=
        std::string::npos);
}

TEST_CASE("MultiKueue: a worker whose ClusterQueue leaves the namespace out never admits the copy",
          "[protocols][multikueue][namespaces]") {
  auto p = plain(2, 1, 8);
  const auto full = check(MultiKueue(p));
  CHECK(full.verdict == Verdict::Verified);
  leave_out(p, 0, 0);
  const MultiKueue mk(p);
  Walk w{mk, mk.init_states().front()};
  for (const std::string& step : {"ReserveQuota(" + kJ0 + ")", "Nominate(" + kJ0 + ")",
                                  "CreateRemoteWorkload(" + kJ0 + ", us-central1)",
                                  "CreateRemoteWorkload(" + kJ0 + ", asia-southeast1)"})
    REQUIRE(w.take(step));
  CHECK_FALSE(w.enabled("ReserveQuotaOnWorker(" + kJ0 + ", us-central1)"));
  CHECK(w.enabled("ReserveQuotaOnWorker(" + kJ0 + ", asia-southeast1)"));
  // The other worker runs it: still verified, on fewer states.
  const auto r = check(mk);
  CHECK(r.verdict == Verdict::Verified);
  // Pinned: fewer, as us-central1's copy never holds quota there.
  CHECK(full.stats.states == 17);
  CHECK(r.stats.states == 11);
  SECTION("left out on both workers, the job never runs") {
    leave_out(p, 1, 0);
    const auto both = check(MultiKueue(p));
    REQUIRE(both.verdict == Verdict::Violated);
    // Not stuck: no worker could run it (could_run_on), as the engine's probe of each
    // worker's scheduler finds too.
    for (const auto& prop : both.properties)
      CHECK(prop.verdict == (prop.name == "some-job-runs" ? Verdict::Violated : Verdict::Verified));
  }
}

TEST_CASE("MultiKueue: a copy parked for its namespace blocks no StrictFIFO head on its worker",
          "[protocols][multikueue][namespaces]") {
  auto p = plain(1, 2, 16);
  p.cqs[1].strict_fifo = true;
  leave_out(p, 0, 0);
  const MultiKueue mk(p);
  Walk w{mk, mk.init_states().front()};
  for (const std::string& step :
       {"ReserveQuota(" + kJ0 + ")", "ReserveQuota(" + kJ1 + ")", "Nominate(" + kJ0 + ")",
        "Nominate(" + kJ1 + ")", "CreateRemoteWorkload(" + kJ0 + ", us-central1)",
        "CreateRemoteWorkload(" + kJ1 + ", us-central1)"})
    REQUIRE(w.take(step));
  CHECK_FALSE(w.enabled("ReserveQuotaOnWorker(" + kJ0 + ", us-central1)"));
  CHECK(w.enabled("ReserveQuotaOnWorker(" + kJ1 + ", us-central1)"));
}
