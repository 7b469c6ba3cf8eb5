// Whether a path still violates a property: decided here, once, for
// everything that asks after the search (a replay token, the shrinker, the
// fix matrix, the corpus), with one fairness rule, the search's own.
//
//  - Always: the path's last state fails the predicate (Shape::Reached).
//  - StuckFree: the subject should move in the last state and no state
//    reachable from it changes the subject's key (Shape::Stuck); a bounded
//    search that says "unknown" rather than guess.
//  - LeadsTo, RecurrenceFree: the path is a lasso whose loop starts at the
//    first state equal to the last (a stutter at the last state when none
//    is); for leads-to some premise state is never followed by a goal state
//    in the infinite behaviour the lasso stands for; for a recurrence the
//    premise holds on every loop state and the step is some loop edge; and
//    the loop is fair as checker/liveness.cpp judges a component (Shape::Loop,
//    or Shape::Stutter for a behaviour that stops).
//  - Sometimes has no path: only a search decides it. Neither has a Vacuous
//    liveness property, which is no violation at all (result.hpp).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_set>
#include <vector>

#include "checker/liveness.hpp"
#include "checker/replay.hpp"
#include "checker/result.hpp"
#include "model/protocol.hpp"

namespace kmc::checker {

// The fairness a search assumed (CheckOptions' fields): per action family,
// or per action instance.
struct FairnessPlan {
  std::vector<Fairness> fairness;
  bool per_instance = false;
};

// The unit fairness is stated per: the action's instance or its family.
template <class P>
int fairness_unit(const P& p, const typename P::Action& a, bool per_instance) {
  if constexpr (requires { p.instance(a); })
    if (per_instance) return p.instance(a);
  if constexpr (requires { p.family(a); }) return p.family(a);
  return 0;
}

// A cycle's fairness: each weakly fair unit is taken in the cycle or disabled
// in some cycle state; each strongly fair unit is taken or enabled in no
// cycle state. A stutter has one state and takes nothing. `taken`: the units
// of the cycle's actions; `enabled`: per cycle state, bit u for unit u.
bool cycle_is_fair(const std::vector<int>& taken, const std::vector<std::uint64_t>& enabled,
                   const std::vector<Fairness>& fairness);

// Leads-to fails on a lasso of states 0..n-1 whose last state returns to
// `loop`: some premise state is followed by no goal state, on the prefix or
// on any turn of the loop.
bool goal_never_follows(const std::vector<char>& premise, const std::vector<char>& goal,
                        std::size_t loop);

// Where the loop of a lasso's states begins: the first state equal to the
// last (the last itself when none is: a stutter).
template <model::TransitionSystem P>
std::size_t loop_start(const P& p, const std::vector<typename P::State>& states) {
  const auto last = p.fingerprint(states.back());
  for (std::size_t i = 0; i + 1 < states.size(); ++i)
    if (p.fingerprint(states[i]) == last) return i;
  return states.size() - 1;
}

enum class StuckCheck { Stuck, NotStuck, Unknown };

template <model::TransitionSystem P>
StuckCheck confirm_stuck(const P& p, const typename P::State& from,
                         const model::StuckFree<typename P::State>& rule, int subject,
                         std::size_t max_states = 1'000'000) {
  if (!rule.should_move(from, subject)) return StuckCheck::NotStuck;
  const auto key = rule.key(from, subject);
  std::unordered_set<std::uint64_t> seen{
      p.fingerprint(from)};  // local scratch, not part of any state
  std::deque<typename P::State> work{from};
  std::vector<typename P::Action> actions;
  while (!work.empty()) {
    if (seen.size() > max_states) return StuckCheck::Unknown;
    auto s = std::move(work.front());
    work.pop_front();
    actions.clear();
    p.actions(s, actions);
    for (const auto& a : actions) {
      auto t = p.next(s, a);
      if (rule.key(t, subject) != key) return StuckCheck::NotStuck;
      if (seen.insert(p.fingerprint(t)).second) work.push_back(std::move(t));
    }
  }
  return StuckCheck::Stuck;
}

// The lasso's cycle (states loop..last) is fair under f.
template <model::TransitionSystem P>
bool lasso_is_fair(const P& p, const std::vector<typename P::State>& states, std::size_t loop,
                   const FairnessPlan& f, const std::vector<typename P::Action>& taken_actions) {
  std::vector<int> taken;
  std::vector<std::uint64_t> enabled;
  std::vector<typename P::Action> here;
  for (std::size_t i = loop; i == loop || i + 1 < states.size(); ++i) {
    if (i < taken_actions.size())
      taken.push_back(fairness_unit(p, taken_actions[i], f.per_instance));
    here.clear();
    p.actions(states[i], here);
    std::uint64_t mask = 0;
    for (const auto& a : here)
      if (const int u = fairness_unit(p, a, f.per_instance); u < 64) mask |= std::uint64_t{1} << u;
    enabled.push_back(mask);
  }
  return cycle_is_fair(taken, enabled, f.fairness);
}

struct Confirmed {
  Shape shape;
  std::optional<std::size_t> loop;  // lassos: the state the last returns to
};

// The violation `path` shows of `prop` for `subject`, or nullopt when it shows
// none. `expected_loop`, when given, must be where the lasso closes (a
// shrunk lasso keeps each step on its side of the loop). Throws
// std::out_of_range when the path does not fit the protocol.
template <model::TransitionSystem P>
std::optional<Confirmed> confirm_violation(
    const P& p, const model::Property<typename P::State>& prop, int subject, const FairnessPlan& f,
    const Path& path, std::optional<std::size_t> expected_loop = std::nullopt) {
  using model::PropertyKind;
  const auto states = replay(p, path);
  switch (prop.kind()) {
    case PropertyKind::Always:
      if (model::rule<model::Always>(prop).holds(states.back())) return std::nullopt;
      return Confirmed{Shape::Reached, std::nullopt};
    case PropertyKind::StuckFree:
      if (confirm_stuck(p, states.back(), model::rule<model::StuckFree>(prop), subject) !=
          StuckCheck::Stuck)
        return std::nullopt;
      return Confirmed{Shape::Stuck, std::nullopt};
    case PropertyKind::Sometimes:
      return std::nullopt;  // only a search decides it
    case PropertyKind::LeadsTo:
    case PropertyKind::RecurrenceFree:
      break;
  }
  const std::size_t loop = loop_start(p, states);
  if (expected_loop && *expected_loop != loop) return std::nullopt;
  if (prop.kind() == PropertyKind::LeadsTo) {
    const auto& rule = model::rule<model::LeadsTo>(prop);
    std::vector<char> premise, goal;
    for (const auto& s : states)
      premise.push_back(rule.premise(s, subject)), goal.push_back(rule.goal(s, subject));
    if (!goal_never_follows(premise, goal, loop)) return std::nullopt;
  } else {
    const auto& rule = model::rule<model::RecurrenceFree>(prop);
    bool step = false;  // a stutter repeats no step
    for (std::size_t i = loop; i < states.size(); ++i) {
      if (!rule.premise(states[i], subject)) return std::nullopt;
      if (i + 1 < states.size()) step = step || rule.step(states[i], states[i + 1], subject);
    }
    if (!step) return std::nullopt;
  }
  if (!lasso_is_fair(p, states, loop, f, replay_actions(p, path))) return std::nullopt;
  return Confirmed{lasso_shape(loop, path.choices.size()), loop};
}

}  // namespace kmc::checker
