#include "counterexamples/shrink.hpp"

#include <fmt/format.h>
#include <rapidcheck.h>

#include <boost/hana.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "checker/fixtures.hpp"
#include "counterexamples/multikueue/shrink_entities.hpp"
#include "invariants/multikueue_registry.hpp"
#include "kmc/rapidcheck/fleet.hpp"
#include "model/checked.hpp"
#include "protocols/multikueue_levers.hpp"

namespace {

using kmc::checker::Fairness;
using kmc::checker::Path;
using kmc::checker::Shape;
using kmc::checker::Violation;
using kmc::model::PropertyKind;

// Two flags that must both be set, and a noise action that changes neither:
// the violation needs exactly SetA and SetB, in any order.
struct Pair {
  struct State {
    BOOST_HANA_DEFINE_STRUCT(State, (std::int64_t, a), (std::int64_t, b), (std::int64_t, noise));
    bool operator==(const State&) const = default;
  };
  enum Kind { SetA, SetB, Noise };
  struct Action {
    Kind kind;
  };
  std::vector<State> init_states() const { return {State{0, 0, 0}}; }
  void actions(const State& s, std::vector<Action>& out) const {
    if (!s.a) out.push_back({SetA});
    if (!s.b) out.push_back({SetB});
    out.push_back({Noise});
  }
  State next(State s, const Action& a) const {
    if (a.kind == SetA) s.a = 1;
    if (a.kind == SetB) s.b = 1;
    if (a.kind == Noise) s.noise = (s.noise + 1) % 5;
    return s;
  }
  std::string action_name(const Action& a) const {
    static const char* names[] = {"SetA", "SetB", "Noise"};
    return names[a.kind];
  }
  std::uint64_t fingerprint(const State& s) const { return kmc::model::fingerprint(s); }
  std::vector<std::pair<std::string, std::string>> describe(const State&) const { return {}; }
  std::vector<std::pair<std::string, std::string>> picks(const Action&) const { return {}; }
  kmc::model::Property<State> not_both() const {
    return kmc::model::Property<State>::always(
        "not-both", "a and b are never both set",
        {.holds = [](const State& s) { return !(s.a && s.b); }});
  }
};

// Two touches of any clusters break the property: the clusters are picks,
// and a trace that touches one cluster twice tells the same story with fewer.
struct Touch {
  struct State {
    BOOST_HANA_DEFINE_STRUCT(State, (std::int64_t, touches), (std::int64_t, last));
    bool operator==(const State&) const = default;
  };
  struct Action {
    int cluster;
  };
  std::vector<State> init_states() const { return {State{0, -1}}; }
  void actions(const State& s, std::vector<Action>& out) const {
    if (s.touches < 2) out.push_back({0}), out.push_back({1});
  }
  State next(State s, const Action& a) const { return State{s.touches + 1, a.cluster}; }
  std::string action_name(const Action& a) const {
    return a.cluster == 0 ? "Touch(a)" : "Touch(b)";
  }
  std::uint64_t fingerprint(const State& s) const { return kmc::model::fingerprint(s); }
  std::vector<std::pair<std::string, std::string>> describe(const State&) const { return {}; }
  std::vector<std::pair<std::string, std::string>> picks(const Action& a) const {
    return {{"cluster", a.cluster == 0 ? "a" : "b"}};
  }
  kmc::model::Property<State> once() const {
    return kmc::model::Property<State>::always(
        "touched-once", "nothing is touched twice",
        {.holds = [](const State& s) { return s.touches < 2; }});
  }
};

// The checker's toys with describe/picks, so traces can be built from them.
template <class Toy>
struct Described : Toy {
  std::vector<std::pair<std::string, std::string>> describe(const typename Toy::State&) const {
    return {};
  }
  std::vector<std::pair<std::string, std::string>> picks(const typename Toy::Action&) const {
    return {};
  }
};

// The path that takes these actions, by name.
template <class P>
Path path_of(const P& p, const std::vector<std::string>& names) {
  const auto any = kmc::model::Property<typename P::State>::always(
      "any", "", {.holds = [](const auto&) { return true; }});
  auto path = kmc::cx::replayer(p, any, Violation{}, {}).path_of(names);
  REQUIRE(path);
  return *path;
}

template <class P>
std::vector<std::string> names_of(const P& p, const Path& path) {
  std::vector<std::string> out;
  for (const auto& a : kmc::checker::replay_actions(p, path)) out.push_back(p.action_name(a));
  return out;
}

}  // namespace

TEST_CASE("ddmin finds the two elements that fail together", "[shrink][ddmin]") {
  int tests = 0;
  const auto kept = kmc::cx::ddmin(8, [&](const std::vector<std::size_t>& c) {
    ++tests;
    return std::count(c.begin(), c.end(), 2) && std::count(c.begin(), c.end(), 5);
  });
  CHECK(kept == std::vector<std::size_t>{2, 5});
  CHECK(tests < 40);
  CHECK(kmc::cx::ddmin(3, [](const auto&) { return true; }).empty());  // nothing at all still fails
  CHECK(kmc::cx::ddmin(1, [](const auto& c) { return c.size() == 1; }) ==
        std::vector<std::size_t>{0});
}

TEST_CASE("dropping actions keeps SetA and SetB and nothing else", "[shrink][actions]") {
  const Pair p;
  const auto prop = p.not_both();
  const Path path = path_of(p, {"Noise", "SetA", "Noise", "Noise", "SetB", "Noise"});
  const Violation v{"not-both", PropertyKind::Always, Shape::Reached, path, "", -1, std::nullopt};
  const auto s = kmc::cx::shrink_actions(p, prop, v, {});
  CHECK(names_of(p, s.violation.path) == std::vector<std::string>{"SetA", "SetB"});
  CHECK(s.report.steps_before == 6);
  CHECK(s.report.steps_after == 2);
  CHECK(s.report.dropped_actions == std::vector<std::string>{"Noise", "Noise", "Noise", "Noise"});
  CHECK(kmc::cx::describe(s.report) ==
        "Shrunk from 6 steps to 2: dropped Noise, Noise, Noise, Noise.\n");
}

TEST_CASE("a minimal trace comes back as it is", "[shrink][actions]") {
  const Pair p;
  const Path path = path_of(p, {"SetB", "SetA"});
  const auto s = kmc::cx::shrink_actions(
      p, p.not_both(),
      Violation{"not-both", PropertyKind::Always, Shape::Reached, path, "", -1, {}}, {});
  CHECK(s.violation.path.choices == path.choices);
  CHECK(s.report.dropped_actions.empty());
  CHECK(kmc::cx::describe(s.report) ==
        "Shrinking kept all 2 steps: the violation needs every one of them.\n");
}

TEST_CASE("a pick moves to a cluster the trace already uses", "[shrink][picks]") {
  const Touch p;
  const Path path = path_of(p, {"Touch(a)", "Touch(b)"});
  const auto s = kmc::cx::shrink_actions(
      p, p.once(),
      Violation{"touched-once", PropertyKind::Always, Shape::Reached, path, "", -1, {}}, {});
  CHECK(names_of(p, s.violation.path) == std::vector<std::string>{"Touch(a)", "Touch(a)"});
  CHECK(s.report.changed_picks == std::vector<std::string>{"Touch(b) -> Touch(a)"});
  CHECK(s.report.steps_after == 2);
  CHECK(kmc::cx::describe(s.report) ==
        "Shrinking kept all 2 steps: changed Touch(b) -> Touch(a).\n");
}

TEST_CASE("a stuck job keeps only the step into the trap", "[shrink][actions][stuck]") {
  const Described<fixtures::Trap> p;
  const auto prop = p.properties()[0];
  const Path path = path_of(p, {"Tick", "Tick", "ToTrap", "Tick"});
  const auto s = kmc::cx::shrink_actions(
      p, prop, Violation{prop.name(), PropertyKind::StuckFree, Shape::Stuck, path, "", 0, {}}, {});
  CHECK(names_of(p, s.violation.path) == std::vector<std::string>{"ToTrap"});
  CHECK(s.violation.subject == 0);
}

TEST_CASE("a lasso loses a redundant lap and keeps a closed, fair loop", "[shrink][lasso]") {
  Described<fixtures::Spin> p;
  p.run_only_on_even_tick = true;
  const auto prop = p.properties()[0];
  // (0,0) -Tick-> (0,1) -Tick-> (0,0) -Tick-> (0,1) -Tick-> (0,0): two laps of a loop back to state
  // 0.
  const Path path = path_of(p, {"Tick", "Tick", "Tick", "Tick"});
  const Violation v{prop.name(), PropertyKind::LeadsTo, Shape::Loop, path, "", 0, 0};
  const kmc::cx::FairnessPlan weak{{Fairness::Weak, Fairness::Weak}, false};
  const auto violates = [&](const kmc::cx::FairnessPlan& f, std::size_t loop) {
    return kmc::checker::confirm_violation(p, prop, 0, f, path, loop).has_value();
  };
  REQUIRE(violates(weak, 0));
  const auto s = kmc::cx::shrink_actions(p, prop, v, weak);
  CHECK(names_of(p, s.violation.path) == std::vector<std::string>{"Tick", "Tick"});
  CHECK(s.violation.loop == std::size_t{0});
  // Under strong fairness for Run the same loop is unfair: nothing to shrink.
  const kmc::cx::FairnessPlan strong{{Fairness::Strong, Fairness::Weak}, false};
  CHECK_FALSE(violates(strong, 0));
  CHECK_FALSE(violates(weak, 1));  // state 1 is not state 4
  CHECK_FALSE(violates(weak, 2));  // state 0 returns first
}

TEST_CASE("a stutter keeps the step that stops the behaviour", "[shrink][lasso]") {
  Described<fixtures::Spin> p;
  p.dead_end = true;
  const auto prop = p.properties()[0];
  const Path path = path_of(p, {"Tick", "Tick", "Tick", "Park"});
  const kmc::cx::FairnessPlan weak{{Fairness::Weak, Fairness::Weak}, false};
  const auto s = kmc::cx::shrink_actions(
      p, prop, Violation{prop.name(), PropertyKind::LeadsTo, Shape::Stutter, path, "", 0, 4}, weak);
  CHECK(names_of(p, s.violation.path) == std::vector<std::string>{"Park"});
  CHECK(s.violation.loop == std::size_t{1});
}

namespace {

using kmc::protocols::MultiKueue;

kmc::checker::CheckOptions per_family(const MultiKueue& mk) {
  kmc::checker::CheckOptions o;
  for (int f : mk.default_fairness()) o.fairness.push_back(static_cast<Fairness>(f));
  o.max_states = 300'000;
  o.time_limit_s = 60;
  return o;
}

// A bound that keeps each random case well under a second (a larger fleet
// that needs more states ends Incomplete, and only its earlier violations count).
kmc::checker::CheckOptions small(const MultiKueue& mk) {
  auto o = per_family(mk);
  o.max_states = 20'000;
  return o;
}

// The shrunk trace judged afresh: replayed from the initial state and the
// property evaluated directly, without the shrinker's own check.
bool still_violated(const MultiKueue& mk, const Violation& v, const kmc::checker::CheckOptions& o) {
  const auto props = kmc::invariants::multikueue_properties(mk);
  const auto& prop = *std::find_if(props.begin(), props.end(),
                                   [&](const auto& p) { return p.name() == v.property; });
  const auto states = kmc::checker::replay(mk, v.path);
  using kmc::model::rule;
  if (prop.kind() == PropertyKind::Always)
    return !rule<kmc::model::Always>(prop).holds(states.back());
  if (prop.kind() == PropertyKind::StuckFree)
    return kmc::checker::confirm_stuck(mk, states.back(), rule<kmc::model::StuckFree>(prop),
                                       v.subject) == kmc::checker::StuckCheck::Stuck;
  if (!v.loop) return false;
  const std::size_t loop = *v.loop, last = states.size() - 1;
  if (!(states[loop] == states[last])) return false;
  if (prop.kind() == PropertyKind::LeadsTo) {
    const auto& lt = rule<kmc::model::LeadsTo>(prop);
    bool from_premise = false;  // a premise state after which the goal never holds
    for (std::size_t i = 0; i <= last; ++i) {
      if (lt.goal(states[i], v.subject))
        from_premise = false;
      else if (lt.premise(states[i], v.subject))
        from_premise = true;
    }
    for (std::size_t i = loop; i <= last; ++i)
      from_premise = from_premise && !lt.goal(states[i], v.subject);
    if (!from_premise) return false;
  } else if (prop.kind() == PropertyKind::RecurrenceFree) {
    const auto& rf = rule<kmc::model::RecurrenceFree>(prop);
    if (loop == last) return false;  // a stutter repeats no step
    bool stepped = false;
    for (std::size_t i = loop; i < last; ++i) {
      if (!rf.premise(states[i], v.subject)) return false;
      stepped = stepped || rf.step(states[i], states[i + 1], v.subject);
    }
    if (!stepped) return false;
  } else {
    return false;
  }
  const auto actions = kmc::checker::replay_actions(mk, v.path);
  std::set<int> taken, enabled_somewhere, disabled_somewhere;
  std::set<int> all_families;
  for (std::size_t f = 0; f < mk.families().size(); ++f) all_families.insert(static_cast<int>(f));
  for (std::size_t i = loop; i < std::max(last, loop + 1); ++i) {
    if (i < actions.size()) taken.insert(mk.family(actions[i]));
    std::vector<MultiKueue::Action> here;
    mk.actions(states[i], here);
    std::set<int> on;
    for (const auto& a : here) on.insert(mk.family(a));
    enabled_somewhere.insert(on.begin(), on.end());
    for (int f : all_families)
      if (!on.count(f)) disabled_somewhere.insert(f);
  }
  for (int f : all_families) {
    const auto kind = o.fairness[f];
    if (kind == Fairness::Weak && !taken.count(f) && !disabled_somewhere.count(f)) return false;
    if (kind == Fairness::Strong && !taken.count(f) && enabled_somewhere.count(f)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("shrinking never returns a trace that no longer violates the property",
          "[shrink][rapidcheck]") {
  CHECK(rc::check("random small fleets: the shrunk trace still violates, and is no longer", [] {
    const auto drawn = *kmc::gen::fleet::scenario();
    RC_LOG() << drawn.about << "\n";
    const MultiKueue mk(kmc::protocols::compile_multikueue(drawn.scenario));
    const auto props = kmc::invariants::multikueue_properties(mk);
    auto options = small(mk);
    options.properties = kmc::invariants::default_properties(mk);
    options.properties.push_back(
        *rc::gen::element<std::string>("no-stuck-job", "eventually-runs", "no-endless-retry"));
    const auto result =
        kmc::checker::Bfs(kmc::model::Checked<MultiKueue>{mk, props}, options).run();
    RC_CLASSIFY(result.violation.has_value(), "violated");
    if (!result.violation || (result.violation->path.choices.empty() && !result.violation->loop))
      return;
    const auto& v = *result.violation;
    RC_CLASSIFY(true, v.property);
    kmc::cx::MkShrinkOptions o;
    o.drop_entities = *rc::gen::arbitrary<bool>();
    o.options = small;
    const auto s = kmc::cx::shrink_multikueue(drawn.scenario, mk, v, o);
    RC_CLASSIFY(s.violation.path.choices.size() < v.path.choices.size(), "shorter");
    RC_CLASSIFY(!s.reduction.empty(), "fewer entities");
    RC_ASSERT(s.violation.property == v.property);
    RC_ASSERT(s.violation.path.choices.size() <= v.path.choices.size());
    RC_ASSERT(s.report.steps_after == s.violation.path.choices.size());
    RC_ASSERT(still_violated(s.protocol, s.violation, per_family(s.protocol)));
    // The reduced scenario is what the shrunk trace belongs to.
    RC_ASSERT(MultiKueue(kmc::protocols::compile_multikueue(s.scenario)).identity() ==
              s.protocol.identity());
    if (v.subject >= 0)
      RC_ASSERT(s.protocol.params().jobs[s.violation.subject] == mk.params().jobs[v.subject]);
  }));
}

namespace {

const std::string kSource = KMC_SOURCE_DIR;

std::string slurp_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Example {
  kmc::model::Scenario sc;
  MultiKueue mk;
  kmc::checker::Result result;
};

// cli/fairness.cpp's plan: the protocol's defaults overridden by kmc.yaml's
// fairness:, per action instance up to 64 instances (test_counterexamples
// does not link cli/, so the few lines are repeated here).
std::function<kmc::checker::CheckOptions(const MultiKueue&)> planned(
    const kmc::model::Fleet& fleet) {
  return [fleet](const MultiKueue& mk) {
    auto o = per_family(mk);
    const auto names = mk.families();
    for (const auto& spec : fleet.fairness)
      for (std::size_t f = 0; f < names.size(); ++f)
        if (names[f] == spec.family) o.fairness[f] = static_cast<Fairness>(spec.kind);
    if (mk.candidates().size() > 64) return o;
    const auto fam = o.fairness;
    o.fairness.clear();
    for (const auto& a : mk.candidates()) o.fairness.push_back(fam[mk.family(a)]);
    o.per_instance = true;
    return o;
  };
}

Example check_example(const std::string& name, std::vector<std::string> properties = {}) {
  auto sc = kmc::model::load_scenario(kSource + "/examples/" + name);
  MultiKueue mk(kmc::protocols::compile_multikueue(sc));
  const auto props = kmc::invariants::multikueue_properties(mk);
  auto o = planned(sc.fleet)(mk);  // as kmc check plans it
  o.properties = properties.empty() ? kmc::invariants::default_properties(mk) : properties;
  auto result = kmc::checker::Bfs(kmc::model::Checked<MultiKueue>{mk, props}, o).run();
  return {std::move(sc), std::move(mk), std::move(result)};
}

}  // namespace

TEST_CASE("the GPU Hunter trace is already minimal: 5 steps, both workers and the job needed",
          "[shrink][examples]") {
  const auto c = check_example("gpu-hunter");
  REQUIRE(c.result.violation);
  kmc::cx::MkShrinkOptions o;
  o.drop_entities = true;
  o.options = planned(c.sc.fleet);
  const auto s = kmc::cx::shrink_multikueue(c.sc, c.mk, *c.result.violation, o);
  CHECK(s.violation.path.choices == c.result.violation->path.choices);
  CHECK(s.report.steps_before == 5);
  CHECK(s.report.steps_after == 5);
  CHECK(s.reduction.empty());
  CHECK(s.report.rechecks == 2);  // without either worker, nothing is stuck
  CHECK(s.violation.detail == c.result.violation->detail);
}

TEST_CASE("a reduced scenario written as files loads into the same protocol", "[shrink][files]") {
  const auto sc = kmc::model::load_scenario(kSource + "/examples/gpu-hunter-three-workers");
  const kmc::cx::Reduction r{{}, {"europe-west4"}};
  const std::string to = "/tmp/kmc-shrink-test-" + std::to_string(::getpid());
  std::filesystem::remove_all(to);
  kmc::cx::write_reduced_scenario(sc, r, to);
  const auto again = kmc::model::load_scenario(to);
  CHECK(again.fleet.workers.size() == 2);
  CHECK_FALSE(std::filesystem::exists(to + "/workers/europe-west4"));
  CHECK(MultiKueue(kmc::protocols::compile_multikueue(again)).identity() ==
        MultiKueue(kmc::protocols::compile_multikueue(kmc::cx::reduce(sc, r))).identity());
  // Untouched files are copied byte for byte.
  CHECK(slurp_file(to + "/manager/queues.yaml") ==
        slurp_file(kSource + "/examples/gpu-hunter-three-workers/manager/queues.yaml"));
  CHECK_THROWS_AS(kmc::cx::write_reduced_scenario(sc, r, to),
                  kmc::model::InputError);  // never over a folder with files
  std::filesystem::remove_all(to);
}

namespace {

// Every property kmc matrix makes a column of: the defaults, then the liveness ones.
std::vector<std::string> columns(const MultiKueue& mk) {
  auto names = kmc::invariants::default_properties(mk);
  for (const auto& prop : kmc::invariants::multikueue_properties(mk))
    if (kmc::model::is_liveness(prop.kind())) names.push_back(prop.name());
  return names;
}

void figure(const std::string& what, const kmc::model::Scenario& sc, const MultiKueue& mk,
            const std::string& property, kmc::cx::MkShrinkOptions o) {
  const auto props = kmc::invariants::multikueue_properties(mk);
  auto opts = o.options(mk);
  opts.properties = {property};
  const auto r = kmc::checker::Bfs(kmc::model::Checked<MultiKueue>{mk, props}, opts).run();
  if (!r.violation || (r.violation->path.choices.empty() && !r.violation->loop)) {
    fmt::print("{:<52} {:<18} {}\n", what, property, kmc::checker::to_string(r.verdict));
    return;
  }
  const auto& v = *r.violation;
  o.drop_entities = false;
  const auto a = kmc::cx::shrink_multikueue(sc, mk, v, o);
  o.drop_entities = true;
  const auto e = kmc::cx::shrink_multikueue(sc, mk, v, o);
  fmt::print(
      "{:<52} {:<18} {:>3} -> {:>3} ({:.3f} s), entities -> {:>3} ({:.3f} s, {} re-checks)  {}",
      what, v.property == property ? property : property + "=" + v.property, a.report.steps_before,
      a.report.steps_after, a.report.seconds, e.report.steps_after, e.report.seconds,
      e.report.rechecks, kmc::cx::describe(e.report));
}

}  // namespace

// Not run by default: prints the figures of the closing note
// (test_counterexamples "[.figures]"): per example and per kmc matrix cell,
// the checker's steps, after dropping actions, and after leaving out entities.
TEST_CASE("figures: steps before and after shrinking, per example and matrix cell", "[.figures]") {
  for (const std::string name :
       {"gpu-hunter", "gpu-hunter-fixed", "gpu-hunter-retry", "gpu-hunter-spot-race",
        "gpu-hunter-three-workers", "three-workers"}) {
    const auto sc = kmc::model::load_scenario(kSource + "/examples/" + name);
    const MultiKueue mk(kmc::protocols::compile_multikueue(sc));
    kmc::cx::MkShrinkOptions o;
    o.options = planned(sc.fleet);
    for (const auto& col : columns(mk)) figure(name, sc, mk, col, o);
  }
  for (const std::string name :
       {"gpu-hunter", "gpu-hunter-retry", "gpu-hunter-spot-race", "gpu-hunter-three-workers"}) {
    const auto sc = kmc::model::load_scenario(kSource + "/examples/" + name);
    const auto& levers = sc.fleet.matrix;
    std::vector<std::size_t> pick(levers.size(), 0);
    for (int row = 1;; ++row) {
      kmc::cx::MkShrinkOptions o;
      o.options = planned(sc.fleet);
      o.compile = [&levers, pick](const kmc::model::Scenario& reduced) {
        auto p = kmc::protocols::compile_multikueue(reduced);
        for (std::size_t i = 0; i < levers.size(); ++i)
          kmc::protocols::apply_lever(p, levers[i], levers[i].values[pick[i]]);
        return p;
      };
      const MultiKueue mk(o.compile(sc));
      for (const auto& col : columns(mk))
        figure(fmt::format("matrix {} row{}", name, row), sc, mk, col, o);
      std::size_t i = levers.size();
      while (i-- > 0 && ++pick[i] == levers[i].values.size()) pick[i] = 0;
      if (i == static_cast<std::size_t>(-1)) break;
    }
  }
}
