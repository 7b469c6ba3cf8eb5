// The narrow interface between models and algorithms (LTSmin's lesson): a
// protocol is a value offering initial states, the actions enabled in a
// state and the next state; properties are named predicates over states
// (model/property.hpp).
// checker/ sees only this.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <vector>

#include "model/property.hpp"

namespace kmc::model {

// The behaviour alone: what replay and simulation need.
template <class P>
concept TransitionSystem = requires(const P& p, const typename P::State& s,
                                    const typename P::Action& a,
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
