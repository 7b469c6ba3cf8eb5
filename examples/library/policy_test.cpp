// A property-based test of an admission policy, written in a project of its
// own with kmc's RapidCheck generators: random clusters (flavors,
// ClusterQueues with resource groups, LocalQueues, workloads) run through
// kmc's reference admission engine, and after every step no ClusterQueue
// holds more than its nominal quota. The ClusterQueues are in no cohort, so
// they cannot borrow and the nominal quota is the whole bound.
//
//   policy_test            the claim above: holds (exit 0)
//   policy_test --half     a wrong claim, "never more than half": fails (exit 1)
#include <rapidcheck.h>

#include <cstring>
#include <kmc/kmc.hpp>
#include <kmc/rapidcheck/kueue.hpp>
#include <map>
#include <utility>

#include "engine/engine.hpp"

namespace {

using FlavorResource = std::pair<std::string, std::string>;

// What the workloads holding quota in ClusterQueue `cq` use, per flavor and resource.
std::map<FlavorResource, kmc::model::Quantity> usage(const kmc::engine::Engine& e, int cq) {
  std::map<FlavorResource, kmc::model::Quantity> used;
  for (const auto& w : e.workloads) {
    if (w.cluster_queue != cq || !w.counts_in_cache() || !w.obj.admission) continue;
    for (const auto& psa : w.obj.admission->pod_set_assignments)
      for (const auto& [resource, quantity] : psa.resource_usage)
        used[{psa.flavors.at(resource), resource}] =
            used[{psa.flavors.at(resource), resource}] + quantity;
  }
  return used;
}

void never_over_admits(const kmc::engine::Engine& e, bool half) {
  for (int cq = 0; cq < static_cast<int>(e.cluster_queues.size()); ++cq) {
    const auto used = usage(e, cq);
    for (const auto& group : e.cluster_queues[static_cast<std::size_t>(cq)].spec.resource_groups)
      for (const auto& flavor : group.flavors)
        for (const auto& quota : flavor.resources) {
          const auto it = used.find({flavor.name, quota.name});
          const std::int64_t held = it == used.end() ? 0 : it->second.milli;
          const std::int64_t bound =
              half ? quota.nominal_quota.milli / 2 : quota.nominal_quota.milli;
          RC_ASSERT(held <= bound);
        }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool half = argc > 1 && std::strcmp(argv[1], "--half") == 0;
  kmc::gen::Shape shape;
  shape.cohorts_max = 0;  // no cohorts: nothing to borrow
  const bool ok = rc::check("my policy never over-admits", [&] {
    kmc::engine::Engine e(*kmc::gen::cluster(shape));
    for (int step = 0; step < 100 && e.step(); ++step) never_over_admits(e, half);
    never_over_admits(e, half);
  });
  return ok ? 0 : 1;
}
