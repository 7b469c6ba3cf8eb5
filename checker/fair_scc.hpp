// Fair strongly connected components of the explored graph, shared by the
// liveness checks (leads-to in liveness.cpp, recurrence in recurrence.cpp):
// the same components and the same fair cycles, written once.
//
// A component is fair when every weakly fair unit (action family or
// instance) is taken inside it or disabled somewhere in it, and every
// strongly fair unit is taken inside it or never enabled in it; components
// failing a strong condition are refined by dropping the states where that
// unit is enabled (the Streett emptiness check).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "checker/graph.hpp"
#include "checker/liveness.hpp"

namespace kmc::checker::scc {

constexpr std::uint32_t kNone = UINT32_MAX;

struct Adjacency {
  std::vector<std::uint32_t> start, edges;  // CSR: out-edges by source
};

// The edges whose both ends are marked `in`, grouped by source.
Adjacency out_edges(const ExploredGraph& g, const std::vector<char>& in);

// Per state, an id shared by the states of one fair component inside `in`;
// kNone for every other state.
std::vector<std::uint32_t> fair_components(const ExploredGraph& g, std::vector<char> in,
                                           const std::vector<Fairness>& fairness);

// Shortest path of edge indices from `from` to a state accepted by `goal`,
// along the edges of `adj`.
std::optional<std::vector<std::uint32_t>> path_to(const ExploredGraph& g, const Adjacency& adj,
                                                  std::uint32_t from,
                                                  const std::function<bool(std::uint32_t)>& goal);

// A cycle from state c back to c inside c's fair component that meets every
// fairness requirement and, when `must_take` is not empty, takes one of its
// edges (each must lie inside the component).
std::vector<std::uint32_t> fair_cycle(const ExploredGraph& g,
                                      const std::vector<std::uint32_t>& fair, std::uint32_t c,
                                      const std::vector<Fairness>& fairness,
                                      const std::vector<std::uint32_t>& must_take = {});

}  // namespace kmc::checker::scc
