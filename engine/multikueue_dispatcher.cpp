// Which workers get a remote copy (kueue-semantics.md §6.2 step 9 and the
// Incremental dispatcher): AllAtOnce nominates every connected cluster;
// Incremental appends stepSize clusters in config order every 5 minutes, the
// set only growing; any other dispatcherName is External and its
// nominatedClusterNames are taken as written.
#include <algorithm>

#include "engine/multikueue.hpp"

namespace kmc::engine {

namespace {

std::vector<std::string> incremental_round(Fleet& f, WorkloadInfo& w,
                                           const model::MultiKueueConfig& cfg) {
  auto& nominated = w.obj.nominated_cluster_names;
  auto started = f.round_start_ms.find(w.key);
  const bool round_due = started == f.round_start_ms.end() || nominated.empty() ||
                         f.now() >= started->second + kIncrementalRoundTimeoutMs;
  if (round_due) {
    const auto& gates = f.manager.manifests.configuration.feature_gates;
    // getNextNominatedWorkers: DefaultStepSize (3) without MultiKueueIncrementalDispatcherConfig,
    // and the clusters in name order without MultiKueueIncrementalDispatcherRespectConfigOrder.
    const std::int32_t step =
        gates.enabled("MultiKueueIncrementalDispatcherConfig")
            ? std::max<std::int32_t>(
                  1, f.manager.manifests.configuration.multi_kueue.incremental_step_size)
            : 3;
    std::vector<std::string> clusters = cfg.clusters;
    if (!gates.enabled("MultiKueueIncrementalDispatcherRespectConfigOrder"))
      std::sort(clusters.begin(), clusters.end());
    std::int32_t added = 0;
    for (const auto& c : clusters) {
      if (added == step) break;
      if (std::find(nominated.begin(), nominated.end(), c) != nominated.end()) continue;
      nominated.push_back(c);
      ++added;
    }
    // No clusters left: ErrNoMoreWorkers; the check is never set to Retry for it.
    if (added > 0) {
      f.round_start_ms[w.key] = f.now();
      f.timers.insert(f.now() + kIncrementalRoundTimeoutMs);
    }
  } else {
    f.timers.insert(started->second + kIncrementalRoundTimeoutMs);
  }
  return nominated;
}

}  // namespace

std::vector<std::string> nominate_clusters(Fleet& f, WorkloadInfo& w,
                                           const model::MultiKueueConfig& cfg) {
  const std::string& dispatcher = f.manager.manifests.configuration.multi_kueue.dispatcher_name;
  if (dispatcher == model::kDispatcherAllAtOnce) {
    std::vector<std::string> out;
    for (const auto& c : cfg.clusters) {
      if (f.connected(c)) out.push_back(c);
    }
    std::sort(out.begin(), out.end());
    w.obj.nominated_cluster_names = out;
    return out;
  }
  if (dispatcher == model::kDispatcherIncremental) return incremental_round(f, w, cfg);
  return w.obj.nominated_cluster_names;  // External: set by another controller
}

}  // namespace kmc::engine
