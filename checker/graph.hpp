// The explored graph, kept beside the fingerprint store when a property
// needs more than single states: stuck detection (which subjects each edge
// changes) and liveness (action families, enabled families, premise/goal
// bits, the edges a recurrence's step marks). Only the arrays some property
// needs are filled.
#pragma once

#include <cstdint>
#include <vector>

namespace kmc::checker {

struct ExploredGraph {
  // per edge
  std::vector<std::uint32_t> from, to;
  std::vector<std::uint64_t> changes;  // stuck: bit i, the edge changes subject i
  std::vector<std::uint32_t> choice;   // liveness: action index in the source state
  std::vector<std::uint8_t> family;    // liveness: action family
  // recurrence, sparse because few edges are the step asked about (a retry):
  // the marked edges in order, and per marked edge bit i for subject i.
  std::vector<std::uint32_t> marked_edge;
  std::vector<std::uint64_t> marked_subjects;
  // per state
  std::vector<std::uint64_t> should_move;  // stuck: bit i, subject i should move
  std::vector<std::uint64_t> enabled;      // liveness: bit f, family f enabled
  std::vector<std::uint64_t> holds;        // liveness: premise/goal bits
  std::vector<bool> expanded;

  std::size_t bytes() const {
    return from.size() * 8 + changes.size() * 8 + choice.size() * 4 + family.size() +
           marked_edge.size() * 12 + (should_move.size() + enabled.size() + holds.size()) * 8 +
           expanded.size() / 8;
  }
};

}  // namespace kmc::checker
