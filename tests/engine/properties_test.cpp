// Random quota trees and workload streams: no admission ever takes a
// ClusterQueue or cohort past what its quotas allow, and the cache's usage is
// always the sum of the requests of the workloads holding quota.
#include <rapidcheck.h>

#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "kmc/rapidcheck/kueue.hpp"

using namespace kmc::engine;

namespace {

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
    // Two flavors, a tree of 1 to 3 cohorts, 1 to 5 ClusterQueues in it with
    // random quotas and limits, up to 24 workloads (kmc::gen::Shape's defaults).
    Engine e(*kmc::gen::cluster());
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
