// One definition, two engines: the MultiKueue rules instantiated with Z3
// terms reach exactly the states the explicit engine reaches.
#include <catch2/catch.hpp>

#include <deque>
#include <set>

#include "checker/symbolic_reach.hpp"
#include "mk_fixtures.hpp"
#include "model/fingerprint.hpp"
#include "protocols/multikueue.hpp"
#include "protocols/multikueue_rules.hpp"

using kmc::protocols::MkRules;
using kmc::protocols::MkState;
using kmc::protocols::MultiKueue;

namespace {

std::set<std::uint64_t> explicit_within(const MultiKueue& p, int depth) {
  std::set<std::uint64_t> seen;
  std::deque<std::pair<MultiKueue::State, int>> work;
  for (auto& s : p.init_states()) {
    seen.insert(kmc::model::fingerprint(s));
    work.emplace_back(s, 0);
  }
  std::vector<MultiKueue::Action> actions;
  while (!work.empty()) {
    auto [s, d] = work.front();
    work.pop_front();
    if (d == depth) continue;
    actions.clear();
    p.actions(s, actions);
    for (auto& a : actions) {
      auto t = p.next(s, a);
      if (seen.insert(kmc::model::fingerprint(t)).second) work.emplace_back(std::move(t), d + 1);
    }
  }
  return seen;
}

std::set<std::uint64_t> symbolic_within(const MultiKueue& p, int depth) {
  const auto make_rules = [&](kmc::sym::SymbolicValues values) {
    return MkRules<kmc::sym::Int>(p.params(), values);
  };
  auto states = kmc::checker::symbolic_reachable<MkState>(p.init_states().front(), make_rules,
                                                          p.candidates(), depth);
  std::set<std::uint64_t> out;
  for (auto& s : states) out.insert(kmc::model::fingerprint(s));
  return out;
}

}  // namespace

TEST_CASE("symbolic and explicit engines reach the same states within 4 steps", "[protocols][symbolic]") {
  SECTION("gpu-hunter, capacity-snapshot dispatcher") {
    MultiKueue p(mk_fixtures::gpu_hunter());
    const auto expl = explicit_within(p, 4);
    CHECK(expl.size() == 11);
    CHECK(symbolic_within(p, 4) == expl);
  }
  SECTION("two jobs, AllAtOnce, best-effort-atomic-scaleup") {
    MultiKueue p(mk_fixtures::fleet(2, 2, 8, 16));
    const auto expl = explicit_within(p, 4);
    CHECK(expl.size() == 16);
    CHECK(symbolic_within(p, 4) == expl);
  }
  SECTION("the fixed fleet: check-capacity, timeout, no pinning") {
    MultiKueue p(mk_fixtures::gpu_hunter_fixed());
    CHECK(symbolic_within(p, 4) == explicit_within(p, 4));
  }
}
