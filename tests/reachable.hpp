// Every reachable state of a small instance, by a plain breadth-first search
// over its actions: an oracle independent of checker::Bfs (its packing,
// seen-set and reductions), for tests that count or inspect states.
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <vector>

template <class P>
std::vector<typename P::State> reachable_states(const P& p) {
  std::set<std::uint64_t> seen;
  std::vector<typename P::State> out;
  std::deque<typename P::State> work;
  for (auto& s : p.init_states())
    if (seen.insert(p.fingerprint(s)).second) work.push_back(s);
  std::vector<typename P::Action> actions;
  while (!work.empty()) {
    auto s = std::move(work.front());
    work.pop_front();
    actions.clear();
    p.actions(s, actions);
    for (const auto& a : actions) {
      auto t = p.next(s, a);
      if (seen.insert(p.fingerprint(t)).second) work.push_back(std::move(t));
    }
    out.push_back(std::move(s));
  }
  return out;
}
