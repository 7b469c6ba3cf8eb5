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

namespace kmc::checker {

struct StuckGraph {
  std::vector<std::uint32_t> edge_from, edge_to;
  std::vector<std::uint64_t> edge_changes;  // bit i: the edge changes subject i
  std::vector<std::uint64_t> should_move;   // per state, bit i: subject i should move
  std::vector<bool> unexpanded;             // per state

  void add_state(std::uint64_t should_move_mask) {
    should_move.push_back(should_move_mask);
    unexpanded.push_back(true);
  }
  std::size_t bytes() const;
};

struct StuckFinding {
  std::uint32_t state;
  int subject;
};

// The lowest-indexed (so shallowest, in BFS order) stuck state, if any.
std::optional<StuckFinding> find_stuck(const StuckGraph& g, int subjects);

}  // namespace kmc::checker
