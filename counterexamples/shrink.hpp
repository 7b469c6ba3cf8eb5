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
#include "checker/confirm.hpp"
#include "checker/liveness.hpp"
#include "checker/result.hpp"
#include "counterexamples/shrink_report.hpp"
#include "counterexamples/trace.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

// Zeller's ddmin: a 1-minimal subsequence (ascending indices into 0..n-1) for
// which `fails` holds; `fails` of all n must hold. Every subsequence is tested
// at most once.
std::vector<std::size_t> ddmin(std::size_t n, const std::function<bool(const std::vector<std::size_t>&)>& fails);

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
  // checker/confirm.hpp decides, as it does for replay tokens; a lasso must close where it did.
  r.violates = [&p, &prop, subject = v.subject, f](const checker::Path& path, std::optional<std::size_t> loop) {
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

// shrink_actions, with the violation worded as the checker words it at the
// shrunk trace's end: a shrunk lasso may turn from a loop into a stutter,
// and a stuck job or an endless retry is explained in the property's words.
template <Describable P>
ActionShrink shrink_violation(const P& p, const model::Property<typename P::State>& prop, const checker::Violation& v,
                              const FairnessPlan& f) {
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
