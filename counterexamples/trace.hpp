// A counterexample as data: each step's action, its nondeterministic picks
// and the whole state in the protocol's own words. Built from a checker
// path by replaying it; written out as ITF JSON or as a text timeline.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/replay.hpp"
#include "checker/result.hpp"

namespace kmc::cx {

using Pairs = std::vector<std::pair<std::string, std::string>>;

struct Step {
  std::string action;  // "ReserveQuota(team-ml/llm-finetune)"; "init" for the first state
  std::string kind;    // "ReserveQuota"
  Pairs picks;         // the choices the action made: job, cluster, flavor
  Pairs state;         // every variable, in a stable order
};

struct Trace {
  std::string property;
  std::string property_description;
  std::string detail;
  std::vector<Step> steps;
  std::optional<std::size_t> loop;  // lassos (liveness): index the last state returns to
};

template <class P>
concept Describable = model::TransitionSystem<P> && requires(const P& p, const typename P::State& s,
                                                             const typename P::Action& a) {
  { p.describe(s) } -> std::same_as<Pairs>;
  { p.picks(a) } -> std::same_as<Pairs>;
};

template <Describable P>
Trace make_trace(const P& p, const checker::Path& path) {
  Trace t;
  const auto states = checker::replay(p, path);
  const auto actions = checker::replay_actions(p, path);
  t.steps.push_back(Step{"init", "init", {}, p.describe(states.front())});
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const std::string name = p.action_name(actions[i]);
    t.steps.push_back(Step{name, name.substr(0, name.find('(')), p.picks(actions[i]), p.describe(states[i + 1])});
  }
  return t;
}

}  // namespace kmc::cx
