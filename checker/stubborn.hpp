// Partial-order reduction by stubborn sets (Valmari), over the footprints a
// protocol's rules give (model/footprints.hpp).
//
// In a state s with enabled actions E, a stubborn set T is closed under:
//   D1: with an enabled action t, every action t can affect or be affected by
//       (one writes a variable the other reads or writes);
//   D2: with a disabled action t, every action that could enable it: those that
//       write a variable that a conjunct of t's guard false in s reads (the first
//       such conjunct, evaluated on s's values; the whole guard's writers when
//       none could be evaluated).
// Then no sequence of actions outside T can enable, disable or fail to commute
// with the enabled actions of T, so expanding only T ∩ E reaches a state where
// every deadlock, and (with V) every violation of a state property, is still
// found, provided:
//   V: when T ∩ E is not all of E, none of its actions can turn an always
//      property's violation back into a state where it holds, nor a sometimes
//      property's witness into one where it does not (model/footprints.hpp:
//      disturbs). Then an action of T ∩ E, which stays enabled along any path
//      of actions outside T and commutes with them, moves every state the
//      search is looking for to one it still looks for;
//   S: no enabled action is ignored forever: the search expands a state fully
//      when a successor through T is already stored (checker/bfs_level.hpp: in
//      breadth-first order every cycle has such an edge, so every cycle has a
//      fully expanded state).
// The static relations (who affects whom, who enables whom) are computed once;
// per state only the closure runs, from each enabled seed in turn, keeping the
// smallest enabled part.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/footprints.hpp"

namespace kmc::checker {

class StubbornSets {
 public:
  // `properties`: the state properties checked; their reads make actions visible. A property
  // with no footprint (a graph property) is the caller's to refuse.
  StubbornSets(const model::Footprints& f, const std::vector<std::string>& properties);

  // Per worker: marks reused from state to state.
  struct Scratch {
    std::vector<std::uint64_t> mark, enabled_at, chosen_at;  // 64-bit stamps: never wrap around
    std::vector<std::int32_t> chosen;  // per disabled action: its false conjunct, -1: none known
    std::vector<std::uint32_t> stack;
    std::vector<std::int64_t> values;  // formula evaluation
    std::uint64_t epoch = 0, state = 0;
  };
  // Of `enabled` (candidate ids, in the order the protocol lists them), in the state whose
  // variables have the values `state` (flattened as the footprints are), the positions to expand:
  // all of them (returns false), or a stubborn subset (true), in their order.
  bool select(const std::vector<std::uint32_t>& enabled, const std::vector<std::int64_t>& state,
              Scratch& scratch, std::vector<std::uint32_t>& positions) const;

  std::size_t candidates() const { return dep_begin_.size() - 1; }
  std::size_t visible_actions() const;

 private:
  // The enabled actions of the closure from `seed`, or more than `best` (stopped early).
  std::size_t closure(std::uint32_t seed, const std::vector<std::int64_t>& state, Scratch& scratch,
                      std::size_t best, bool& visible) const;
  // The conjunct of disabled action t's guard that is false in `state`, or -1.
  std::int32_t false_conjunct(std::uint32_t t, const std::vector<std::int64_t>& state,
                              Scratch& scratch) const;

  const model::Footprints& f_;
  // Compressed rows: dep_ (who affects whom), nes_ (who may enable whom: the whole guard's
  // writers), conj_ (per conjunct of each guard, numbered from conj_of_[t], its writers).
  std::vector<std::uint32_t> dep_begin_, dep_, nes_begin_, nes_;
  std::vector<std::uint32_t> conj_of_, conj_begin_, conj_;
  std::vector<char> visible_;
};

}  // namespace kmc::checker
