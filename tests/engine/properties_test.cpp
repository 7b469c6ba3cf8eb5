// Random quota trees and workload streams: no admission ever takes a
// ClusterQueue or cohort past what its quotas allow, and the cache's usage is
// always the sum of the requests of the workloads holding quota.
#include <rapidcheck.h>

#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "fixtures.hpp"

using namespace kmc::engine;
using namespace kmc::engine::testing;

namespace {

Cluster random_cluster() {
  Cluster c;
  c.flavor("f0").flavor("f1");
  const int cohorts = *rc::gen::inRange(1, 4);
  for (int i = 0; i < cohorts; ++i) {
    const std::string parent = i == 0 ? "" : "co" + std::to_string(*rc::gen::inRange(0, i));
    c.cohort("co" + std::to_string(i), parent);
  }
  const int cqs = *rc::gen::inRange(1, 6);
  for (int i = 0; i < cqs; ++i) {
    std::vector<FlavorQuota> fq;
    for (const char* f : {"f0", "f1"}) {
      Quota q{"cpu", *rc::gen::inRange(0, 10)};
      if (*rc::gen::arbitrary<bool>()) q.borrowing_limit = *rc::gen::inRange(0, 10);
      if (*rc::gen::arbitrary<bool>()) q.lending_limit = *rc::gen::inRange(0, 10);
      fq.push_back({f, {q}});
    }
    c.cq("q" + std::to_string(i), "co" + std::to_string(*rc::gen::inRange(0, cohorts)),
         {group({"cpu"}, fq)});
  }
  const int wls = *rc::gen::inRange(0, 25);
  for (int i = 0; i < wls; ++i) {
    auto& w = c.wl("w" + std::to_string(i), "q" + std::to_string(*rc::gen::inRange(0, cqs)),
                   *rc::gen::inRange(0, 3), {{"cpu", *rc::gen::inRange(1, 8)}});
    w.runtime_s = *rc::gen::inRange(0, 4);
  }
  return c;
}

void check_invariants(const Engine& e) {
  // Recompute usage from the workloads holding quota, bottom-up as a fresh cache would.
  QuotaTree rebuilt = e.tree;
  for (int n = 0; n < rebuilt.node_count(); ++n) {
    for (int fr = 0; fr < rebuilt.fr_count(); ++fr) {
      if (rebuilt.node(n).is_cluster_queue) rebuilt.remove_usage(n, fr, rebuilt.usage(n, fr));
    }
  }
  for (const WorkloadInfo& w : e.workloads) {
    if (!w.counts_in_cache()) continue;
    rebuilt.add_usage(e.cluster_queues[static_cast<size_t>(w.cluster_queue)].node, w.usage);
  }
  for (int n = 0; n < e.tree.node_count(); ++n) {
    for (int fr = 0; fr < e.tree.fr_count(); ++fr) {
      RC_ASSERT(rebuilt.usage(n, fr) == e.tree.usage(n, fr));
      if (e.tree.node(n).is_cluster_queue) {
        RC_ASSERT(e.tree.available_raw(n, fr) >= 0);  // never past its quotas
        RC_ASSERT(e.tree.usage(n, fr) <= e.tree.potential_available(n, fr));
      }
    }
  }
}

}  // namespace

TEST_CASE("random quota trees and workload streams respect quota", "[engine][property]") {
  const bool ok = rc::check("usage matches the holders and never exceeds quota", [] {
    Cluster c = random_cluster();
    Engine e(c.m);
    for (int step = 0; step < 200; ++step) {
      e.schedule();
      check_invariants(e);
      if (e.events.empty()) break;
      e.now_ms = std::max(e.now_ms, e.events.next_time());
      while (!e.events.empty() && e.events.next_time() <= e.now_ms) e.handle(e.events.pop().second);
      check_invariants(e);
    }
  });
  REQUIRE(ok);
}
