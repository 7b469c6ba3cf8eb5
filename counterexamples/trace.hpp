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
  std::string action;      // "ReserveQuota(team-ml/llm-finetune)"; "init" for the first state
  std::string kind;        // "ReserveQuota"
  std::string controller;  // who took it (the action table's controller group); empty when the
                           // protocol has none
  Pairs picks;             // the choices the action made: job, cluster, flavor
  Pairs state;             // every variable in people's words, in a stable order
  std::vector<model::Cell> cells;  // every variable typed, when the protocol has cells()
  // What the step did, in words, where its name and picks do not say it (which
  // of an operator's edits it applied); empty for most.
  std::string note = {};
};

struct Trace {
  std::string property;
  std::string property_description;
  std::string detail;
  std::vector<Step> steps;
  std::optional<std::size_t> loop;  // lassos (liveness): index the last state returns to
};

template <class P>
concept Describable = model::TransitionSystem<P> &&
    requires(const P& p, const typename P::State& s, const typename P::Action& a) {
  { p.describe(s) } -> std::same_as<Pairs>;
  { p.picks(a) } -> std::same_as<Pairs>;
};

// A protocol whose state reads as typed cells.
template <class P>
concept HasCells = requires(const P& p, const typename P::State& s) {
  { p.cells(s) } -> std::same_as<std::vector<model::Cell>>;
};

// A protocol whose actions are named by kind and taken by a controller (model/instance.hpp).
template <class P>
concept HasActionTable = requires(const P& p, const typename P::Action& a) {
  { p.kind_name(a) } -> std::convertible_to<std::string>;
  { p.controller(a) } -> std::convertible_to<std::string>;
};

// The kind of an action: the action table's, else (the checker's toys) its name up to '('.
template <model::TransitionSystem P>
std::string kind_of(const P& p, const typename P::Action& a) {
  if constexpr (HasActionTable<P>) {
    return p.kind_name(a);
  } else {
    const std::string name = p.action_name(a);
    return name.substr(0, name.find('('));
  }
}

template <Describable P>
Trace make_trace(const P& p, const checker::Path& path) {
  Trace t;
  const auto states = checker::replay(p, path);
  const auto actions = checker::replay_actions(p, path);
  auto cells = [&](const typename P::State& s) {
    if constexpr (HasCells<P>)
      return p.cells(s);
    else
      return std::vector<model::Cell>{};
  };
  t.steps.push_back(
      Step{"init", "init", "", {}, p.describe(states.front()), cells(states.front())});
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const std::string name = p.action_name(actions[i]);
    std::string controller;
    if constexpr (HasActionTable<P>) controller = p.controller(actions[i]);
    std::string note;
    if constexpr (requires { p.step_note(states[i], actions[i]); })
      note = p.step_note(states[i], actions[i]);
    t.steps.push_back(Step{name, kind_of(p, actions[i]), std::move(controller), p.picks(actions[i]),
                           p.describe(states[i + 1]), cells(states[i + 1]), std::move(note)});
  }
  return t;
}

}  // namespace kmc::cx
