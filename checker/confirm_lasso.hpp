// Re-checking a recurrence lasso from its states (for replay tokens): the
// last state is the loop's first state again, the premise holds in every
// state of the loop, and some step of the loop is the step that must not
// recur. Fairness is the search's to establish and is not re-checked here,
// as for leads-to lassos.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "model/protocol.hpp"

namespace kmc::checker {

// Where the loop of a lasso's states begins: the first state equal to the
// last (the last itself when none is: a stutter).
template <model::TransitionSystem P>
std::size_t loop_start(const P& p, const std::vector<typename P::State>& states) {
  const auto last = p.fingerprint(states.back());
  for (std::size_t i = 0; i + 1 < states.size(); ++i)
    if (p.fingerprint(states[i]) == last) return i;
  return states.size() - 1;
}

template <model::TransitionSystem P>
bool confirm_recurrence(const P& p, const std::vector<typename P::State>& states,
                        const model::Property<typename P::State>& prop, int subject) {
  const std::size_t loop = loop_start(p, states);
  bool recurs = false;
  for (std::size_t i = loop; i < states.size(); ++i) {
    if (!prop.premise(states[i], subject)) return false;
    if (i + 1 < states.size()) recurs = recurs || prop.step(states[i], states[i + 1], subject);
  }
  return recurs;  // a stutter repeats no step
}

}  // namespace kmc::checker
