// Recurrence over the explored graph: "no fair behaviour stays in premise
// forever while a marked step recurs" (not <>[]premise /\ []<>step), under
// fairness per action unit. The acceptance condition is on edges: the
// search records, per edge, the subjects whose step predicate it satisfies.
//
// A violation is a lasso: the BFS path to a fair strongly connected
// component made of premise states that contains a marked edge, then a
// fair cycle there that takes a marked edge. Stuttering never counts (a
// step that stops recurring is what the property asks for), and a cycle
// inside a component is made only of explored edges, so a reported lasso is
// real even when a bound stopped the search.
#pragma once

#include <optional>
#include <vector>

#include "checker/graph.hpp"
#include "checker/liveness.hpp"

namespace kmc::checker {

struct RecurrenceQuery {
  int premise_bit;                 // in ExploredGraph::holds
  int subject_bit;                 // in ExploredGraph::marked_subjects
  std::vector<Fairness> fairness;  // per unit (family or instance)
};

// The lasso into the accepting component with the lowest-indexed (so
// shallowest) state, if any; Lasso::start is that state and to_cycle is empty.
std::optional<Lasso> find_recurrence(const ExploredGraph& g, const RecurrenceQuery& q);

}  // namespace kmc::checker
