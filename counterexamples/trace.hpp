// A counterexample as data: each step's action, its nondeterministic picks,
// the whole state in the protocol's own words (for the text timeline) and as
// typed cells (for ITF JSON and every tool that reads a trace back). Built
// from a checker path by replaying it.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/replay.hpp"
#include "checker/result.hpp"
#include "model/cell.hpp"

namespace kmc::cx {

using Pairs = std::vector<std::pair<std::string, std::string>>;

struct Step {
  std::string action;  // "ReserveQuota(team-ml/llm-finetune)"; "init" for the first state
  std::string kind;    // "ReserveQuota"
  Pairs picks;         // the choices the action made: job, cluster, flavor
  Pairs state;         // every variable in people's words, in a stable order
  std::vector<model::Cell> cells;  // every variable typed, when the protocol has cells()
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

// A protocol whose state reads as typed cells.
template <class P>
concept HasCells = requires(const P& p, const typename P::State& s) {
  { p.cells(s) } -> std::same_as<std::vector<model::Cell>>;
};

template <Describable P>
Trace make_trace(const P& p, const checker::Path& path) {
  Trace t;
  const auto states = checker::replay(p, path);
  const auto actions = checker::replay_actions(p, path);
  auto cells = [&](const typename P::State& s) {
    if constexpr (HasCells<P>) return p.cells(s);
    else return std::vector<model::Cell>{};
  };
  t.steps.push_back(Step{"init", "init", {}, p.describe(states.front()), cells(states.front())});
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const std::string name = p.action_name(actions[i]);
    t.steps.push_back(Step{name, name.substr(0, name.find('(')), p.picks(actions[i]),
                           p.describe(states[i + 1]), cells(states[i + 1])});
  }
  return t;
}

}  // namespace kmc::cx
