// The kube-scheduler baseline (protocols/kube_scheduler/): the gang deadlock
// of seeds 2 and 4, with its exact state count derived by hand.
#include <catch2/catch.hpp>

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
