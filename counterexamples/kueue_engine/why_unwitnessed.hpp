// counterexamples/kueue_engine/: what both protocols with a reference engine (multikueue,
// kueue-admission) ask of engine/ beyond replay. Here, because the generic top level of
// counterexamples/ knows neither protocols nor the engine (tests/check_arrows.sh).
// Why a "sometimes" property is never witnessed (some job runs, some workload
// is admitted), in Kueue's words: each cluster's manifests run alone through
// the reference engine (engine/), and what it says of each workload that
// does not end Admitted is the reason a user reads (issue 12, defect f). A
// search decides that no behaviour reaches the property; this only words,
// per cluster, what stops the jobs there.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/kueue_objects.hpp"

namespace kmc::cx {

// One line per workload that the engine does not admit on a cluster: "on CLUSTER: NS/NAME
// stays STATE: MESSAGE". Empty when the engine admits every workload everywhere.
std::vector<std::string> kueue_words(
    const std::vector<std::pair<std::string, model::ClusterManifests>>& clusters);

}  // namespace kmc::cx
