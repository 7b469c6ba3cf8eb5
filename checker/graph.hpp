// The explored graph, kept beside the seen-set when a property needs more
// than single states: stuck detection (which subjects each edge changes)
// and liveness (action families, enabled families, premise/goal bits, the
// edges a recurrence's step marks). Only the columns some property needs
// are filled.
//
// Edges are stored by source (CSR): the search expands states in index
// order, so a state's edges are contiguous and need no source column. Every
// column grows in blocks (checker/column.hpp), never by doubling.
#pragma once

#include <cstdint>
#include <vector>

#include "checker/column.hpp"

namespace kmc::checker {

struct ExploredGraph {
  // per edge, grouped by source, sources in index order
  Column<std::uint32_t> to;
  BitsColumn changes;            // stuck: bit i, the edge changes subject i
  Column<std::uint16_t> choice;  // liveness: action index in the source state
  Column<std::uint8_t> family;   // liveness: action family
  // recurrence, sparse because few edges are the step asked about (a retry):
  // the marked edges in order, and per marked edge bit i for subject i.
  std::vector<std::uint32_t> marked_edge;
  std::vector<std::uint64_t> marked_subjects;
  // per state
  Column<std::uint32_t> first_edge;  // where its edges begin; states past the end have none
  BitsColumn should_move;            // stuck: bit i, subject i should move
  Column<std::uint64_t> enabled;     // liveness: bit f, family f enabled
  Column<std::uint64_t> holds;       // liveness: premise/goal bits
  std::vector<bool> expanded;

  std::size_t states() const { return expanded.size(); }
  std::uint32_t edges_begin(std::size_t s) const {
    return s < first_edge.size() ? first_edge[s] : static_cast<std::uint32_t>(to.size());
  }
  std::uint32_t edges_end(std::size_t s) const { return edges_begin(s + 1); }
  // Building a graph by hand (tests): state s's edges come next, in index order. The search
  // sets first_edge per chunk instead (bfs_merge.hpp).
  void open(std::uint32_t s) {
    while (first_edge.size() <= s) first_edge.push_back(static_cast<std::uint32_t>(to.size()));
  }
  // The source of edge e (a binary search: for paths, not for sweeps over every edge).
  std::uint32_t from(std::uint32_t e) const {
    std::size_t lo = 0, hi = first_edge.size();  // the answer lies in [lo, hi)
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (first_edge[mid] <= e ? lo : hi) = mid;
    }
    return static_cast<std::uint32_t>(lo);
  }
};

}  // namespace kmc::checker
