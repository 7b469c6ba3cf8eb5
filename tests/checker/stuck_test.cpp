// Stuck detection (checker/stuck.cpp) on random explored graphs, against
// the definition computed the plain way: per subject, the states from which
// some path reaches an edge changing it, or a state never expanded, by
// fixpoint iteration.
#include "checker/stuck.hpp"

#include <rapidcheck.h>

#include <catch2/catch.hpp>

using kmc::checker::ExploredGraph;

namespace {

std::optional<kmc::checker::StuckFinding> by_definition(const ExploredGraph& g, int subjects) {
  const std::size_t n = g.states();
  for (std::uint32_t s = 0; s < n; ++s)
    for (int i = 0; i < subjects; ++i) {
      if (!(g.should_move[s] >> i & 1)) continue;
      std::vector<char> can(n, 0);
      for (bool changed = true; changed;) {
        changed = false;
        for (std::uint32_t v = 0; v < n; ++v) {
          if (can[v]) continue;
          bool move = !g.expanded[v];
          for (auto e = g.edges_begin(v); e < g.edges_end(v) && !move; ++e)
            move = (g.changes[e] >> i & 1) || can[g.to[e]];
          if (move) can[v] = 1, changed = true;
        }
      }
      if (!can[s]) return kmc::checker::StuckFinding{s, i};
    }
  return std::nullopt;
}

}  // namespace

TEST_CASE("stuck: the first frozen subject, as the definition says",
          "[checker][stuck][rapidcheck]") {
  CHECK(rc::check("find_stuck agrees with fixpoint iteration", [] {
    const auto n = *rc::gen::inRange<std::uint32_t>(1, 40);
    const int subjects = *rc::gen::inRange(1, 5);
    ExploredGraph g;
    g.changes.set_bits(subjects);
    g.should_move.set_bits(subjects);
    for (std::uint32_t s = 0; s < n; ++s) {
      const bool expanded = *rc::gen::inRange(0, 10) > 0;
      g.expanded.push_back(expanded);
      g.should_move.push_back(*rc::gen::inRange<std::uint64_t>(0, 1u << subjects));
      g.open(s);
      if (!expanded) continue;
      for (int k = *rc::gen::inRange(0, 4); k > 0; --k) {
        g.to.push_back(*rc::gen::inRange<std::uint32_t>(0, n));
        // Mostly edges that change nothing, so frozen subjects are common.
        g.changes.push_back(
            *rc::gen::inRange(0, 4) == 0 ? *rc::gen::inRange<std::uint64_t>(0, 1u << subjects) : 0);
      }
    }
    const auto got = kmc::checker::find_stuck(g, subjects);
    const auto want = by_definition(g, subjects);
    RC_ASSERT(got.has_value() == want.has_value());
    if (got) {
      RC_ASSERT(got->state == want->state);
      RC_ASSERT(got->subject == want->subject);
    }
  }));
}
