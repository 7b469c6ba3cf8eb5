// Rebuilding states from a path of action choices (TLC's trace
// reconstruction): the checker stores no states, only how to reach them.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "checker/result.hpp"
#include "model/assert.hpp"
#include "model/protocol.hpp"

namespace kmc::checker {

// Throws std::out_of_range if the path names an initial state or a choice
// that does not exist (a hand-edited or stale token).
template <model::TransitionSystem P>
std::vector<typename P::State> replay(const P& p, const Path& path) {
  auto inits = p.init_states();
  if (path.init >= inits.size())
    throw std::out_of_range("no initial state " + std::to_string(path.init));
  std::vector<typename P::State> states{std::move(inits[path.init])};
  std::vector<typename P::Action> actions;
  for (std::size_t step = 0; step < path.choices.size(); ++step) {
    actions.clear();
    p.actions(states.back(), actions);
    if (path.choices[step] >= actions.size())
      throw std::out_of_range("step " + std::to_string(step + 1) + " chooses action " +
                              std::to_string(path.choices[step]) + " but only " +
                              std::to_string(actions.size()) + " are enabled");
    states.push_back(p.next(states.back(), actions[path.choices[step]]));
  }
  KMC_ASSERT(states.size() == path.choices.size() + 1);
  return states;
}

// The actions a path takes, as the protocol enumerated them.
template <model::TransitionSystem P>
std::vector<typename P::Action> replay_actions(const P& p, const Path& path) {
  const auto states = replay(p, path);
  std::vector<typename P::Action> taken, actions;
  for (std::size_t step = 0; step < path.choices.size(); ++step) {
    actions.clear();
    p.actions(states[step], actions);
    // replay() checked this choice against the same state: actions() must be deterministic.
    KMC_ASSERT_MSG(path.choices[step] < actions.size(),
                   "actions() enumerates the same actions twice");
    taken.push_back(actions[path.choices[step]]);
  }
  return taken;
}

}  // namespace kmc::checker
