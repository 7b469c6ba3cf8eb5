// Shrinking a counterexample before anyone reads it (QuickCheck's and
// RapidCheck's habit; issue 5, item 2). Shortest-by-BFS is a start: BFS
// takes the fewest steps, but the steps may still wander (a snapshot refresh
// that changes nothing the violation needs) and the scenario may carry jobs
// and workers the bug does not need.
//
//  1. Actions: Zeller's ddmin over the trace's actions, named (indices
//     change when actions go). A candidate is replayed by picking, in each
//     state, the enabled action with that name; it is kept if the property
//     is still violated at its end, decided as the checker decides it
//     (Always: the last state fails; StuckFree: the same subject is stuck
//     there; LeadsTo: the lasso still closes at its first return, the goal
//     fails from a premise state on, and the cycle is fair; RecurrenceFree:
//     the same closing, the premise on every loop state, the step on some
//     cycle edge, and a fair cycle).
//  2. Picks: a step may be swapped for an action of the same kind whose picks
//     the trace already uses (the same cluster as elsewhere), when that leaves
//     fewer distinct picks. MultiKueue's actions choose a job, a cluster and a
//     flavor, never a quantity (requests and capacities are parameters), so
//     "a smaller quantity" has nothing to act on here; a protocol with
//     quantity picks would need its own rule.
//  3. Entities (shrink_multikueue): each job and each worker is left out of
//     the scenario in turn; the reduced scenario is compiled and checked
//     again (BFS gives a shortest trace there); the reduction is kept when
//     the same property is violated the same way (same subject, by name) by a
//     trace no longer than the best so far. Entities the trace does not
//     mention are tried first, so the story stays the one the checker told. Flavors are not dropped: a flavor
//     lives in ClusterQueues on several clusters and in the capacity maps, and
//     every shipped example has one.
//
// The search is not a template (shrink.cpp); only the adapter that replays
// names in a protocol is.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/bfs.hpp"
#include "checker/confirm_stuck.hpp"
#include "checker/liveness.hpp"
#include "checker/result.hpp"
#include "counterexamples/trace.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

// What shrinking did, for the report.
struct ShrinkReport {
  std::size_t steps_before = 0, steps_after = 0;  // the checker's trace, the shrunk one
  std::size_t steps_reduced = 0;  // the checker's trace in the scenario without the jobs and workers left out
  // Of the checker's trace in the final scenario (the reduced one, when jobs
  // or workers were left out), in order; by name, as a multiset.
  std::vector<std::string> dropped_actions;
  std::vector<std::string> changed_picks;    // "A(x, w2) -> A(x, w1)"
  std::vector<std::string> dropped_jobs, dropped_workers;
  bool entities_tried = false;  // jobs and workers were left out in turn
  int replays = 0;   // candidate traces replayed in the model
  int rechecks = 0;  // reduced scenarios checked again
  double seconds = 0;
};

// One paragraph for people: before/after, what went.
std::string describe(const ShrinkReport& r);

// Zeller's ddmin: a 1-minimal subsequence (ascending indices into 0..n-1) for
// which `fails` holds; `fails` of all n must hold. Every subsequence is tested
// at most once.
std::vector<std::size_t> ddmin(std::size_t n, const std::function<bool(const std::vector<std::size_t>&)>& fails);

// Fairness of a lasso's cycle, as checker/liveness.cpp judges a component:
// each weakly fair unit is taken in the cycle or disabled in some cycle
// state; each strongly fair unit is taken or enabled in no cycle state. An
// empty cycle (a stutter) has one state and takes nothing. `taken`: the units
// of the cycle's actions; `enabled`: per cycle state, bit u for unit u.
bool cycle_is_fair(const std::vector<int>& taken, const std::vector<std::uint64_t>& enabled,
                   const std::vector<checker::Fairness>& fairness);

// Leads-to fails on a lasso whose states are 0..n-1 and whose last state
// returns to `loop`: some state has the premise, and the goal fails on every
// state from there on and on every loop state.
bool goal_never_follows(const std::vector<char>& premise, const std::vector<char>& goal, std::size_t loop);

// The fairness of the run that found a lasso (checker::CheckOptions').
struct FairnessPlan {
  std::vector<checker::Fairness> fairness;
  bool per_instance = false;
};

// One step of a path, with the same-kind actions enabled before it (for picks).
struct StepChoice {
  std::string name;
  Pairs picks;
  std::vector<std::pair<std::string, Pairs>> same_kind;  // name, picks; the taken action excluded
};

// The model side of shrinking, type-erased.
struct Replayer {
  // Actions by name from the violation's initial state; nullopt if a name is not enabled where it is needed.
  std::function<std::optional<checker::Path>(const std::vector<std::string>&)> path_of;
  // Still violated, the way the original was (lasso: the state the last returns to).
  std::function<bool(const checker::Path&, std::optional<std::size_t>)> violates;
  std::function<std::vector<StepChoice>(const checker::Path&)> steps;
};

struct ActionShrink {
  checker::Violation violation;
  ShrinkReport report;
};

ActionShrink shrink_actions(const Replayer& r, const checker::Violation& v);

// The unit fairness is stated per: the action's instance or its family (checker::Bfs's rule).
template <class P>
int fairness_unit(const P& p, const typename P::Action& a, bool per_instance) {
  if constexpr (requires { p.instance(a); })
    if (per_instance) return p.instance(a);
  if constexpr (requires { p.family(a); }) return p.family(a);
  return 0;
}

// The lasso's cycle (states loop..last) is fair under f; a stutter when loop is the last state.
template <Describable P>
bool lasso_is_fair(const P& p, const std::vector<typename P::State>& states, std::size_t loop, const FairnessPlan& f,
                   const std::vector<typename P::Action>& actions) {
  std::vector<int> taken;
  std::vector<std::uint64_t> enabled;
  std::vector<typename P::Action> here;
  for (std::size_t i = loop; i == loop || i + 1 < states.size(); ++i) {
    if (i < actions.size()) taken.push_back(fairness_unit(p, actions[i], f.per_instance));
    here.clear();
    p.actions(states[i], here);
    std::uint64_t mask = 0;
    for (const auto& a : here)
      if (const int u = fairness_unit(p, a, f.per_instance); u < 64) mask |= std::uint64_t{1} << u;
    enabled.push_back(mask);
  }
  return cycle_is_fair(taken, enabled, f.fairness);
}

template <Describable P>
bool violates(const P& p, const model::Property<typename P::State>& prop, int subject, const FairnessPlan& f,
              const checker::Path& path, std::optional<std::size_t> loop) {
  using model::PropertyKind;
  const auto states = checker::replay(p, path);
  if (prop.kind == PropertyKind::Always) return !prop.holds(states.back());
  if (prop.kind == PropertyKind::StuckFree)
    return checker::confirm_stuck(p, states.back(), prop, subject) == checker::StuckCheck::Stuck;
  if (prop.kind != PropertyKind::LeadsTo && prop.kind != PropertyKind::RecurrenceFree) return false;  // Sometimes: no trace
  // The loop starts at the first state equal to the last, as replay tokens and ITF readers find it.
  if (!loop || *loop >= states.size()) return false;
  const auto last = p.fingerprint(states.back());
  for (std::size_t i = 0; i <= *loop; ++i)
    if ((p.fingerprint(states[i]) == last) != (i == *loop)) return false;
  if (prop.kind == PropertyKind::LeadsTo) {
    std::vector<char> premise, goal;
    for (const auto& s : states) premise.push_back(prop.premise(s, subject)), goal.push_back(prop.goal(s, subject));
    if (!goal_never_follows(premise, goal, *loop)) return false;
  } else {  // RecurrenceFree: the premise on every loop state and the step on some cycle edge (never a stutter)
    bool step = false;
    for (std::size_t i = *loop; i + 1 < states.size(); ++i) {
      if (!prop.premise(states[i], subject)) return false;
      step = step || prop.step(states[i], states[i + 1], subject);
    }
    if (!step) return false;
  }
  return lasso_is_fair(p, states, *loop, f, checker::replay_actions(p, path));
}

template <Describable P>
Replayer replayer(const P& p, const model::Property<typename P::State>& prop, const checker::Violation& v,
                  const FairnessPlan& f) {
  Replayer r;
  const std::uint32_t init = v.path.init;
  r.path_of = [&p, init](const std::vector<std::string>& names) -> std::optional<checker::Path> {
    checker::Path path{init, {}};
    auto s = p.init_states().at(init);
    std::vector<typename P::Action> here;
    for (const auto& name : names) {
      here.clear();
      p.actions(s, here);
      std::size_t c = 0;
      while (c < here.size() && p.action_name(here[c]) != name) ++c;
      if (c == here.size()) return std::nullopt;
      path.choices.push_back(static_cast<std::uint32_t>(c));
      s = p.next(s, here[c]);
    }
    return path;
  };
  r.violates = [&p, &prop, subject = v.subject, f](const checker::Path& path, std::optional<std::size_t> loop) {
    return violates(p, prop, subject, f, path, loop);
  };
  r.steps = [&p](const checker::Path& path) {
    const auto states = checker::replay(p, path);
    std::vector<StepChoice> out;
    std::vector<typename P::Action> here;
    for (std::size_t i = 0; i < path.choices.size(); ++i) {
      here.clear();
      p.actions(states[i], here);
      const auto& taken = here[path.choices[i]];
      StepChoice step{p.action_name(taken), p.picks(taken), {}};
      const std::string kind = step.name.substr(0, step.name.find('('));
      for (std::size_t c = 0; c < here.size(); ++c) {
        const std::string name = p.action_name(here[c]);
        if (c != path.choices[i] && name.substr(0, name.find('(')) == kind) step.same_kind.emplace_back(name, p.picks(here[c]));
      }
      out.push_back(std::move(step));
    }
    return out;
  };
  return r;
}

// Drops and swaps actions of v's trace in p (the scenario stays as it is).
template <Describable P>
ActionShrink shrink_actions(const P& p, const model::Property<typename P::State>& prop, const checker::Violation& v,
                            const FairnessPlan& f) {
  return shrink_actions(replayer(p, prop, v, f), v);
}

// ---- Entities: MultiKueue scenarios ----

// Which jobs ("namespace/name") and workers (kmc.yaml names) to leave out.
struct Reduction {
  std::vector<std::string> jobs, workers;
  bool empty() const { return jobs.empty() && workers.empty(); }
};

// The scenario without them: the jobs' Workloads (and Jobs) on the manager;
// the workers' manifests, kmc.yaml entries and snapshots, MultiKueueClusters
// and MultiKueueConfig entries.
model::Scenario reduce(const model::Scenario& sc, const Reduction& r);

// The same reduction as files: copies the scenario folder `from` to `to`
// (which must not exist or be empty) without the workers' folders, and
// rewrites the manifests and kmc.yaml that name what was dropped (untouched
// files are copied byte for byte). Throws model::InputError.
void write_reduced_scenario(const model::Scenario& from, const Reduction& r, const std::string& to);

struct MkShrinkOptions {
  bool drop_entities = false;
  // Parameters of a (reduced) scenario; kmc matrix adds its levers here. Default: compile_multikueue.
  std::function<protocols::MkParams(const model::Scenario&)> compile;
  // Checker options (bounds, fairness planned for that protocol) for a protocol built from a reduced scenario.
  std::function<checker::CheckOptions(const protocols::MultiKueue&)> options;
};

struct MkShrunk {
  Reduction reduction;
  model::Scenario scenario;  // reduced; the input when nothing was dropped
  protocols::MultiKueue protocol;
  checker::Violation violation;  // a path in `protocol`
  ShrinkReport report;
};

// Shrinks v (found in mk, compiled from sc) by actions and picks, then, when
// asked, by entities. A violation without steps comes back as it is.
MkShrunk shrink_multikueue(const model::Scenario& sc, const protocols::MultiKueue& mk, const checker::Violation& v,
                           const MkShrinkOptions& o);

}  // namespace kmc::cx
