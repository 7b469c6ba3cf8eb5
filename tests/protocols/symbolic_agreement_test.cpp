// One definition, two engines: the MultiKueue definition's rules,
// instantiated with Z3 terms by the generic symbolic instance, reach exactly
// the states the explicit instance reaches. The test sees only the spec
// (protocols/multikueue_spec.hpp) and the explicit instance, never the rules.
#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <set>

#include "checker/symbolic_reach.hpp"
#include "mk_fixtures.hpp"
#include "model/fingerprint.hpp"
#include "protocols/multikueue.hpp"
#include "protocols/multikueue_spec.hpp"

using kmc::protocols::MkSpec;
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
  const kmc::checker::SymbolicInstance<MkSpec> symbolic(p.params());
  std::set<std::uint64_t> out;
  for (auto& s : symbolic.reachable(depth)) out.insert(kmc::model::fingerprint(s));
  return out;
}

}  // namespace

TEST_CASE("symbolic and explicit engines reach the same states within 4 steps",
          "[protocols][symbolic]") {
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

TEST_CASE("the symbolic instance takes its initial state and candidates from the spec",
          "[protocols][symbolic]") {
  const MultiKueue p(mk_fixtures::gpu_hunter());
  const kmc::checker::SymbolicInstance<MkSpec> symbolic(p.params());
  CHECK(symbolic.candidates().size() == p.candidates().size());
  CHECK(symbolic.layout().fields.size() == p.layout().fields.size());
  // Zero steps: the initial state alone, the same one the explicit instance starts from.
  const auto within0 = kmc::checker::symbolic_reachable<MkSpec>(p.params(), 0);
  REQUIRE(within0.size() == 1);
  CHECK(kmc::model::fingerprint(within0.front()) ==
        kmc::model::fingerprint(p.init_states().front()));
}

TEST_CASE("a declared range too narrow for a reachable value shows up as a difference",
          "[protocols][symbolic]") {
  // The symbolic search keeps every variable within its field's declared
  // range; the explicit engine does not. A spec whose successor leaves its
  // range is therefore caught by the agreement above, not hidden by it.
  const MultiKueue p(mk_fixtures::gpu_hunter());
  auto layout = p.layout();
  for (auto& f : layout.fields)
    if (f.name == "phase") f.hi = f.lo;  // as if no job could leave its first phase
  const auto make_rules = [&](kmc::sym::SymbolicValues values) {
    return MkSpec::Rules<kmc::sym::Int>(p.params(), values);
  };
  const auto narrowed = kmc::checker::symbolic_reachable<MkSpec::State>(
      p.init_states().front(), make_rules, p.candidates(), 4, &layout);
  std::set<std::uint64_t> seen;
  for (const auto& s : narrowed) seen.insert(kmc::model::fingerprint(s));
  const auto expl = explicit_within(p, 4);
  CHECK(std::includes(expl.begin(), expl.end(), seen.begin(), seen.end()));
  CHECK(seen.size() < expl.size());
}
