// Re-checking one stuck claim from a single state (for replay tokens): the
// subject should move there, and no state reachable from it changes the
// subject's key. Bounded; says "unknown" rather than guess.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_set>
#include <vector>

#include "model/protocol.hpp"

namespace kmc::checker {

enum class StuckCheck { Stuck, NotStuck, Unknown };

template <model::TransitionSystem P>
StuckCheck confirm_stuck(const P& p, const typename P::State& from, const model::Property<typename P::State>& prop,
                         int subject, std::size_t max_states = 1'000'000) {
  if (!prop.should_move(from, subject)) return StuckCheck::NotStuck;
  const auto key = prop.key(from, subject);
  std::unordered_set<std::uint64_t> seen{p.fingerprint(from)};  // local scratch, not part of any state
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
      if (prop.key(t, subject) != key) return StuckCheck::NotStuck;
      if (seen.insert(p.fingerprint(t)).second) work.push_back(std::move(t));
    }
  }
  return StuckCheck::Stuck;
}

}  // namespace kmc::checker
