// Stuck-state detection over the explored graph.
//
// A subject is stuck in state s when it should move there and no path from s
// ever changes it. We record, per edge, which subjects it changes, then walk
// backwards from every state that has such an edge (or was never expanded:
// a bound stopped us, so it might move) and call the rest stuck. This is
// sound under bounds: an unexplored future never counts as stuck.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "checker/graph.hpp"

namespace kmc::checker {

struct StuckFinding {
  std::uint32_t state;
  int subject;
};

// The lowest-indexed (so shallowest, in BFS order) stuck state, if any.
std::optional<StuckFinding> find_stuck(const ExploredGraph& g, int subjects);

}  // namespace kmc::checker
