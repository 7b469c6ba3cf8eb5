// The narrow interface between models and algorithms (LTSmin's lesson): a
// protocol is a value offering initial states, the actions enabled in a
// state and the next state; properties are named predicates over states.
// checker/ sees only this.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kmc::model {

enum class PropertyKind {
  Always,     // holds in every reachable state (safety)
  Sometimes,  // holds in some reachable state (guards against vacuity)
  StuckFree,  // no reachable state leaves a subject frozen forever while it should move
  LeadsTo,    // under the run's fairness, every behaviour reaching premise later reaches goal
  // Under the run's fairness, no behaviour stays in premise forever while a
  // `step` keeps recurring: not (<>[]premise /\ []<>step). "No job retries
  // forever while some worker could run it". An acceptance condition on
  // steps, not states, so leads-to cannot say it.
  RecurrenceFree,
};

template <class State>
struct Property {
  std::string name;         // printed and used on the command line: "no-job-on-two-workers"
  std::string description;  // one English sentence
  PropertyKind kind = PropertyKind::Always;
  std::function<bool(const State&)> holds;  // Always / Sometimes
  // StuckFree: subjects (e.g. jobs) 0..subjects-1; a subject is stuck in a
  // state when it `should_move` there and no sequence of actions from there
  // ever changes its `key`.
  int subjects = 0;
  std::function<std::uint64_t(const State&, int)> key;
  std::function<bool(const State&, int)> should_move;
  std::function<std::string(const State&, int)> explain;  // why it should move, for the report
  // LeadsTo, per subject: premise(s, i) ~> goal(s, i). "Eventually goal" is a
  // premise that holds initially; "always eventually" one that always holds.
  std::function<bool(const State&, int)> premise, goal;
  // RecurrenceFree, per subject: premise(s, i) as above, and step(from, to, i)
  // a relation on a pair of states (a TLA+ action) that must not recur forever
  // while premise holds.
  std::function<bool(const State&, const State&, int)> step;
};

// The behaviour alone: what replay and simulation need.
template <class P>
concept TransitionSystem = requires(const P& p, const typename P::State& s, const typename P::Action& a,
                                    std::vector<typename P::Action>& out) {
  typename P::State;
  typename P::Action;
  { p.init_states() } -> std::same_as<std::vector<typename P::State>>;
  { p.actions(s, out) } -> std::same_as<void>;
  { p.next(s, a) } -> std::same_as<typename P::State>;
  { p.action_name(a) } -> std::convertible_to<std::string>;
  { p.fingerprint(s) } -> std::same_as<std::uint64_t>;
};

// Behaviour and the properties to check: what the checker takes.
template <class P>
concept Protocol = TransitionSystem<P> && requires(const P& p) {
  { p.properties() } -> std::same_as<std::vector<Property<typename P::State>>>;
};

}  // namespace kmc::model
