// Shrinking a counterexample before anyone reads it (QuickCheck's and
// RapidCheck's habit; issue 5, item 2). Shortest-by-BFS is a start: BFS
// takes the fewest steps, but the steps may still wander (a snapshot refresh
// that changes nothing the violation needs) and the scenario may carry jobs
// and workers the bug does not need.
//
//  1. Actions: Zeller's ddmin over the trace's actions, named (indices
//     change when actions go). A candidate is replayed by picking, in each
//     state, the enabled action with that name; it is kept if the property
//     is still violated, as checker/confirm.hpp decides it for every caller
//     (a lasso must also still close where it did).
//  2. Picks: a step may be swapped for an action of the same kind whose picks
//     the trace already uses (the same cluster as elsewhere), when that leaves
//     fewer distinct picks. MultiKueue's actions choose a job, a cluster and a
//     flavor, never a quantity (requests and capacities are parameters), so
//     "a smaller quantity" has nothing to act on here; a protocol with
//     quantity picks would need its own rule.
//  3. Entities: a protocol's own (MultiKueue's jobs and workers:
//     multikueue/shrink_entities.hpp).
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
#include "checker/confirm.hpp"
#include "checker/liveness.hpp"
#include "checker/result.hpp"
#include "counterexamples/shrink_report.hpp"
#include "counterexamples/trace.hpp"

namespace kmc::cx {

// Zeller's ddmin: a 1-minimal subsequence (ascending indices into 0..n-1) for
// which `fails` holds; `fails` of all n must hold. Every subsequence is tested
// at most once.
std::vector<std::size_t> ddmin(std::size_t n,
                               const std::function<bool(const std::vector<std::size_t>&)>& fails);

// The fairness of the run that found a lasso.
using checker::FairnessPlan;

// One step of a path, with the same-kind actions enabled before it (for picks).
struct StepChoice {
  std::string name;
  Pairs picks;
  std::vector<std::pair<std::string, Pairs>> same_kind;  // name, picks; the taken action excluded
};

// The model side of shrinking, type-erased.
struct Replayer {
  // Actions by name from the violation's initial state; nullopt if a name is not enabled where it
  // is needed.
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

template <Describable P>
Replayer replayer(const P& p, const model::Property<typename P::State>& prop,
                  const checker::Violation& v, const FairnessPlan& f) {
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
  // checker/confirm.hpp decides, as it does for replay tokens; a lasso must close where it did.
  r.violates = [&p, &prop, subject = v.subject, f](const checker::Path& path,
                                                   std::optional<std::size_t> loop) {
    return checker::confirm_violation(p, prop, subject, f, path, loop).has_value();
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
      const std::string kind = kind_of(p, taken);
      for (std::size_t c = 0; c < here.size(); ++c)
        if (c != path.choices[i] && kind_of(p, here[c]) == kind)
          step.same_kind.emplace_back(p.action_name(here[c]), p.picks(here[c]));
      out.push_back(std::move(step));
    }
    return out;
  };
  return r;
}

// Drops and swaps actions of v's trace in p (the scenario stays as it is).
template <Describable P>
ActionShrink shrink_actions(const P& p, const model::Property<typename P::State>& prop,
                            const checker::Violation& v, const FairnessPlan& f) {
  return shrink_actions(replayer(p, prop, v, f), v);
}

// shrink_actions, with the violation worded as the checker words it at the
// shrunk trace's end: a shrunk lasso may turn from a loop into a stutter,
// and a stuck job or an endless retry is explained in the property's words.
template <Describable P>
ActionShrink shrink_violation(const P& p, const model::Property<typename P::State>& prop,
                              const checker::Violation& v, const FairnessPlan& f) {
  auto s = shrink_actions(p, prop, v, f);
  auto& out = s.violation;
  if (out.loop) {
    out.shape = checker::lasso_shape(*out.loop, out.path.choices.size());
    out.detail = checker::story(out.shape, prop.kind());
  }
  if (prop.kind() == model::PropertyKind::StuckFree && prop.explains())
    out.detail = prop.explain(checker::replay(p, out.path).back(), v.subject);
  if (prop.kind() == model::PropertyKind::RecurrenceFree && prop.explains() && out.loop)
    out.detail = prop.explain(checker::replay(p, out.path)[*out.loop], v.subject);
  return s;
}

}  // namespace kmc::cx
