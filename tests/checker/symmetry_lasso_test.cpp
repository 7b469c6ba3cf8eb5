// A reduced lasso whose loop returns to a permutation of where it began:
// two interchangeable processes pass a token back and forth. One orbit holds
// both states, so the reduced graph is one state with a self-loop; the
// protocol's own lasso walks that loop twice before it closes. The checker
// must print the protocol's lasso (checker/bfs.hpp: concrete_lasso), never
// the reduced one, which does not replay.
#include <boost/hana.hpp>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "checker/bfs.hpp"
#include "checker/confirm.hpp"
#include "model/checked.hpp"
#include "model/fingerprint.hpp"
#include "model/instance.hpp"
#include "model/symmetry.hpp"

namespace token {

struct Params {
  int processes = 2;
};

template <class V>
struct State {
  BOOST_HANA_DEFINE_STRUCT(State, (std::vector<V>, turn));  // [system] who holds the token
  bool operator==(const State&) const = default;
};

struct Action {
  int process = 0;
  int id = 0;
};

template <class V>
class Rules {
 public:
  Rules(const Params&, kmc::model::Values<V> values) : val_(values) {}
  auto enabled(const State<V>& s, const Action& a) const { return s.turn[0] == a.process; }
  void apply_in_place(State<V>& s, const Action& a) const { s.turn[0] = val_.lit(1 - a.process); }

 private:
  kmc::model::Values<V> val_;
};

struct Spec {
  using Params = token::Params;
  template <class V>
  using State = token::State<V>;
  using Action = token::Action;
  template <class V>
  using Rules = token::Rules<V>;
  static constexpr const char* name = "token";

  static Params compile(const kmc::model::Scenario&) { return {}; }
  static kmc::model::Layout layout(const Params&) {
    kmc::model::Layout l;
    l.axes = {{"process", {"p0", "p1"}, -1, {}, 0}, {"system", {"ring"}, -1, {}, 0}};
    kmc::model::Field turn;
    turn.name = "turn", turn.axes = {1}, turn.kind = kmc::model::FieldKind::Index;
    turn.lo = -1, turn.hi = 1, turn.index_axis = 0;
    l.fields = {turn};
    l.families = {{"token", 1}};
    l.actions = {{"Pass", {{"process", 0}}, 0, "process"}};
    return l;
  }
  static std::vector<Action> candidates(const Params&) { return {{0, 0}, {1, 1}}; }
  static State<std::int64_t> initial(const Params&) { return State<std::int64_t>{{0}}; }
  static kmc::model::ActionRef ref(const Params&, const Action& a) { return {0, {a.process}}; }
  static std::uint64_t identity(const Params&) { return 1; }
  static kmc::model::Symmetry symmetry(const Params&) {
    return {{kmc::model::SymmetricClass{0, {0, 1}, {}}}, {}};
  }
};

}  // namespace token

TEST_CASE("symmetry: a lasso closing on a permutation is walked until it closes",
          "[checker][symmetry]") {
  using Instance = kmc::model::Instance<token::Spec>;
  using Property = kmc::model::Property<Instance::State>;
  const Instance p(token::Params{});
  REQUIRE(p.symmetric());
  const auto never =
      Property::leads_to("never", "the ring never stops",
                         {.subjects = 1,
                          .premise = [](const Instance::State&, int) { return true; },
                          .goal = [](const Instance::State&, int) { return false; }})
          .over("system");
  const kmc::model::Checked<Instance> checked{p, {never}};
  kmc::checker::CheckOptions o;
  o.fairness = {kmc::checker::Fairness::Weak};
  auto run = [&](bool symmetry) {
    auto opts = o;
    opts.symmetry = symmetry;
    return kmc::checker::Bfs(checked, opts).run();
  };
  const auto full = run(false), reduced = run(true);
  CHECK(full.stats.states == 2);
  CHECK(reduced.stats.states == 1);
  REQUIRE(reduced.verdict == kmc::checker::Verdict::Violated);
  REQUIRE(reduced.violation->loop.has_value());
  // Pass(p0), Pass(p1), back to the start: the reduced self-loop, walked twice.
  CHECK(reduced.violation->path.choices.size() == 2);
  CHECK(*reduced.violation->loop == 0);
  const auto states = kmc::checker::replay(p, reduced.violation->path);
  CHECK(states.back() == states.front());
  CHECK(kmc::checker::confirm_violation(p, never, 0, o.fairness_plan(), reduced.violation->path,
                                        reduced.violation->loop)
            .has_value());
  // A subject on the permuted axis is refused: the processes are renamed around the loop.
  const auto per_process =
      Property::leads_to("per-process", "each process keeps the token",
                         {.subjects = 2,
                          .premise = [](const Instance::State&, int) { return true; },
                          .goal = [](const Instance::State&, int) { return false; }})
          .over("process");
  const kmc::model::Checked<Instance> refused{p, {per_process}};
  auto opts = o;
  opts.symmetry = true;
  const auto r = kmc::checker::Bfs(refused, opts).run();
  CHECK(r.stats.states == 2);
  REQUIRE(r.reductions.size() == 1);
  CHECK(r.reductions[0].rfind("symmetry not used: per-process follows one process", 0) == 0);
}
