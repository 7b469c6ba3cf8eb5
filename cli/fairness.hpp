// Fairness for a run: the protocol's defaults per action family, overridden
// by kmc.yaml's `fairness:` section. Shared by `kmc check` and `kmc matrix`.
#pragma once

#include <vector>

#include "checker/bfs.hpp"
#include "checker/liveness.hpp"
#include "model/fleet.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cli {

// Per family. Throws model::InputError naming kmc.yaml's line for an unknown family.
std::vector<checker::Fairness> fairness_for(const protocols::MultiKueue& mk, const model::Fleet& fleet);

// Sets options.fairness: per action instance (each with its family's kind)
// when the scenario has at most 64 instances, else per family; and the labels
// the report prints.
void plan_fairness(const protocols::MultiKueue& mk, const model::Fleet& fleet, checker::CheckOptions& options);

}  // namespace kmc::cli
