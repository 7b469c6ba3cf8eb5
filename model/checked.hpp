// A protocol together with the properties to check: protocols/ defines
// behaviour, invariants/ defines properties, and this joins them into what
// checker/ takes (model::Protocol), without either folder seeing the other's
// reverse arrow.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/protocol.hpp"

namespace kmc::model {

template <class P>
struct Checked {
  using State = typename P::State;
  using Action = typename P::Action;

  const P& protocol;
  std::vector<Property<State>> props;

  std::vector<State> init_states() const { return protocol.init_states(); }
  void actions(const State& s, std::vector<Action>& out) const { protocol.actions(s, out); }
  State next(const State& s, const Action& a) const { return protocol.next(s, a); }
  // Forwarded when the protocol can update a caller's state in place.
  void next_into(const State& s, const Action& a, State& out) const requires requires(const P& p) {
    p.next_into(s, a, out);
  }
  { protocol.next_into(s, a, out); }
  std::string action_name(const Action& a) const { return protocol.action_name(a); }
  std::uint64_t fingerprint(const State& s) const { return protocol.fingerprint(s); }
  std::vector<Property<State>> properties() const { return props; }
  // The packed encoding and the valid end states, when the protocol declares them.
  decltype(auto) packing() const requires requires(const P& p) { p.packing(); }
  { return protocol.packing(); }
  // Symmetry reduction (model/symmetry.hpp), when the protocol declares one.
  bool symmetric() const requires requires(const P& p) { p.symmetric(); }
  { return protocol.symmetric(); }
  std::vector<std::string> symmetry_summary() const requires requires(const P& p) {
    p.symmetry_summary();
  }
  { return protocol.symmetry_summary(); }
  std::vector<std::string> symmetry_notes() const requires requires(const P& p) {
    p.symmetry_notes();
  }
  { return protocol.symmetry_notes(); }
  std::vector<std::string> symmetry_axes() const requires requires(const P& p) {
    p.symmetry_axes();
  }
  { return protocol.symmetry_axes(); }
  void canonicalize(State& s) const requires requires(const P& p, State& x) { p.canonicalize(x); }
  { protocol.canonicalize(s); }
  bool valid_end(const State& s) const requires requires(const P& p) { p.valid_end(s); }
  { return protocol.valid_end(s); }
  // Action families, for fairness, when the protocol has them.
  int family(const Action& a) const requires requires(const P& p) { p.family(a); }
  { return protocol.family(a); }
  int instance(const Action& a) const requires requires(const P& p) { p.instance(a); }
  { return protocol.instance(a); }
  // Every action instance, in instance order (partial-order reduction's footprints follow it).
  decltype(auto) candidates() const requires requires(const P& p) { p.candidates(); }
  { return protocol.candidates(); }
  std::vector<std::string> families() const requires requires(const P& p) { p.families(); }
  { return protocol.families(); }
};

}  // namespace kmc::model
