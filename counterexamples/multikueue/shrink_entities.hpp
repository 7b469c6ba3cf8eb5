// Shrinking a MultiKueue counterexample by entities (after actions and
// picks, counterexamples/shrink.hpp): each job and each worker is left out of
// the scenario in turn; the reduced scenario is compiled and checked again
// (BFS gives a shortest trace there); the reduction is kept when the same
// property is violated the same way (same subject, by name) by a trace no
// longer than the best so far. Entities the trace does not mention are tried
// first, so the story stays the one the checker told. Flavors are not
// dropped: a flavor lives in ClusterQueues on several clusters and in the
// capacity maps, and every shipped example has one.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "checker/bfs.hpp"
#include "checker/result.hpp"
#include "counterexamples/shrink.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

// Which jobs ("namespace/name") and workers (kmc.yaml names) to leave out.
struct Reduction {
  std::vector<std::string> jobs, workers;
  bool empty() const { return jobs.empty() && workers.empty(); }
};

// The scenario without them: the jobs' Workloads (and Jobs) on the manager;
// the workers' manifests, kmc.yaml entries and snapshots, MultiKueueClusters
// and MultiKueueConfig entries.
model::Scenario reduce(const model::Scenario& sc, const Reduction& r);

// The same reduction as files: copies the scenario folder `from` to `to`
// (which must not exist or be empty) without the workers' folders, and
// rewrites the manifests and kmc.yaml that name what was dropped (untouched
// files are copied byte for byte). Throws model::InputError.
void write_reduced_scenario(const model::Scenario& from, const Reduction& r, const std::string& to);

struct MkShrinkOptions {
  bool drop_entities = false;
  // Parameters of a (reduced) scenario; kmc matrix adds its levers here. Default:
  // compile_multikueue.
  std::function<protocols::MkParams(const model::Scenario&)> compile;
  // Checker options (bounds, fairness planned for that protocol) for a protocol built from a
  // reduced scenario.
  std::function<checker::CheckOptions(const protocols::MultiKueue&)> options;
};

struct MkShrunk {
  Reduction reduction;
  model::Scenario scenario;  // reduced; the input when nothing was dropped
  protocols::MultiKueue protocol;
  checker::Violation violation;  // a path in `protocol`
  ShrinkReport report;
};

// Shrinks v (found in mk, compiled from sc) by actions and picks, then, when
// asked, by entities. A violation without steps comes back as it is.
MkShrunk shrink_multikueue(const model::Scenario& sc, const protocols::MultiKueue& mk,
                           const checker::Violation& v, const MkShrinkOptions& o);

}  // namespace kmc::cx
