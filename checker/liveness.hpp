// Liveness over the explored graph: "P leads to Q" (every fair behaviour
// that reaches a P state later reaches a Q state) under fairness per action
// family.
//
// A violation is a lasso: a path to a P-and-not-Q state, then a path that
// stays in not-Q into a fair strongly connected component (or a state where
// nothing is enabled, where the behaviour stutters forever), and a cycle
// there. The behaviour may also stutter forever in any state where no
// weakly or strongly fair family is enabled (a dead end is one such state):
// an unfair environment may simply never act. Fair components are
// checker/fair_scc.hpp's, shared with recurrence (checker/recurrence.hpp).
// Unexpanded states (a bound stopped the search) are never called terminal,
// so a reported lasso is real even when the search was incomplete.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checker/graph.hpp"

namespace kmc::checker {

enum class Fairness { None, Weak, Strong };
const char* to_string(Fairness f);

struct LeadsToQuery {
  int premise_bit, goal_bit;
  std::vector<Fairness> fairness;  // per family
};

struct Lasso {
  std::uint32_t start;                  // a premise-and-not-goal state
  std::vector<std::uint32_t> to_cycle;  // edge indices from start into the cycle
  std::vector<std::uint32_t>
      cycle;  // edge indices of the cycle; empty: stutter where nothing fair is enabled
};

// The lasso from the lowest-indexed (so shallowest) premise state, if any.
std::optional<Lasso> find_lasso(const ExploredGraph& g, const LeadsToQuery& q);

}  // namespace kmc::checker
