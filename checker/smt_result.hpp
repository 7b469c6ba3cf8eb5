// An SMT engine's outcome as a checker::Result, in the explicit instance's
// terms: the solver's path becomes a Path of action choices (the index of
// the action taken among those the instance enumerates in each state), so
// the rest of the pipeline (shrinking, the trace, its replay token, engine
// replay) treats it as any search's. Each step is replayed on the explicit
// instance and must reach the solver's next state; if it does not, the two
// engines disagree, and that is an error, never a printed trace.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "checker/result.hpp"
#include "checker/smt_engines.hpp"

namespace kmc::checker {

// Thrown when a solver's path does not replay on the explicit instance.
struct EngineDisagreement : std::logic_error {
  using std::logic_error::logic_error;
};

template <class P>
Path path_of(const P& p, const SmtPath<typename P::State>& sp) {
  Path path;
  auto inits = p.init_states();
  if (inits.size() != 1 || !(inits[0] == sp.states.at(0)))
    throw EngineDisagreement("the solver's path does not start in the initial state");
  typename P::State s = inits[0];
  std::vector<typename P::Action> actions;
  for (std::size_t i = 0; i < sp.candidates.size(); ++i) {
    actions.clear();
    p.actions(s, actions);
    std::size_t choice = actions.size();
    for (std::size_t a = 0; a < actions.size(); ++a)
      if (static_cast<std::size_t>(actions[a].id) == sp.candidates[i]) choice = a;
    if (choice == actions.size())
      throw EngineDisagreement(fmt::format(
          "step {} of the solver's path takes an action the explicit rules do not enable", i + 1));
    s = p.next(s, actions[choice]);
    if (!(s == sp.states.at(i + 1)))
      throw EngineDisagreement(fmt::format(
          "step {} of the solver's path reaches a state the explicit rules do not", i + 1));
    path.choices.push_back(static_cast<std::uint32_t>(choice));
  }
  return path;
}

// "field[entity, ...] = value" for the cells where `s` differs from `base` (all cells when base
// is null): a state in a user's terms, short.
template <class P>
std::vector<std::string> cell_lines(const P& p, const typename P::State& s,
                                    const typename P::State* base) {
  std::vector<std::string> out;
  const auto cells = p.cells(s);
  const auto before = base ? p.cells(*base) : decltype(cells){};
  for (std::size_t i = 0; i < cells.size(); ++i)
    if (!base || i >= before.size() || !(cells[i] == before[i]))
      out.push_back(fmt::format("{} = {}", model::key_text(cells[i].field, cells[i].entity),
                                model::to_string(cells[i].value)));
  return out;
}

template <class P>
Result smt_result(const P& p, const SmtOutcome<typename P::State>& o, SmtEngine engine) {
  Result r;
  bool incomplete = false;
  for (const auto& prop : o.properties) {
    PropertyResult pr{prop.name, prop.kind, prop.verdict};
    pr.engine = to_string(engine);
    pr.method = prop.method;
    pr.k = prop.k;
    incomplete = incomplete || prop.verdict == Verdict::Incomplete;
    r.properties.push_back(pr);
  }
  if (o.violation) {
    r.violation = Violation{o.violation->first,
                            model::PropertyKind::Always,
                            Shape::Reached,
                            path_of(p, o.violation->second),
                            story(Shape::Reached, model::PropertyKind::Always),
                            -1,
                            std::nullopt};
  } else {
    for (const auto& prop : o.properties)
      if (prop.kind == model::PropertyKind::Sometimes && prop.verdict == Verdict::Violated) {
        r.violation = Violation{prop.name,
                                prop.kind,
                                Shape::Unwitnessed,
                                Path{},
                                story(Shape::Unwitnessed, prop.kind),
                                -1,
                                std::nullopt};
        break;
      }
  }
  r.verdict =
      r.violation ? Verdict::Violated : (incomplete ? Verdict::Incomplete : Verdict::Verified);
  if (r.verdict == Verdict::Incomplete) r.incomplete_reason = o.incomplete_reason;
  r.explored_depth = o.explored_depth;
  if (o.induction_counterexample) {
    const auto& [name, sp] = *o.induction_counterexample;
    const std::size_t n = sp.states.size();
    auto& lines = r.induction_counterexample;
    lines.push_back(fmt::format(
        "{} holds in {} consecutive states and fails after one more step; the state before "
        "that step (its cells that differ from the initial state):",
        name, n - 1));
    const auto init = p.init_states().at(0);
    for (auto& line : cell_lines(p, sp.states[n - 2], &init)) lines.push_back("  " + line);
    const auto& candidate = p.candidates().at(sp.candidates.back());
    lines.push_back("the step: " + p.action_name(candidate));
    lines.push_back("what it changes:");
    for (auto& line : cell_lines(p, sp.states[n - 1], &sp.states[n - 2]))
      lines.push_back("  " + line);
  }
  r.stats.depth = std::max(0, o.explored_depth);
  r.stats.seconds = o.seconds;
  return r;
}

}  // namespace kmc::checker
