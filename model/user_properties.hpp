// kmc.yaml's own properties (model/fleet.hpp's UserPropertySpec) as
// properties of a protocol instance: each expression compiled against the
// instance's layout (model/expression.hpp) and evaluated on its states
// (model/expression_eval.hpp). Any protocol gets them; the SMT engines
// evaluate the same compiled expressions over Z3 terms.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "model/diagnostics.hpp"
#include "model/expression.hpp"
#include "model/expression_eval.hpp"
#include "model/fleet.hpp"
#include "model/property.hpp"

namespace kmc::model {

// A user property's condition, compiled: what both engines evaluate.
struct CompiledUserProperty {
  const UserPropertySpec* spec = nullptr;
  Compiled holds, premise, goal;
  int subject_axis = -1;  // leadsTo with each: the axis its subjects range over
};

inline Compiled compile_condition(const ExpressionSpec& e, const std::string& field,
                                  const Layout& layout,
                                  const std::vector<std::pair<std::string, int>>& bound = {}) {
  Compiled c = compile_expression(e.text, {e.pos, e.column}, field, layout, bound);
  if (!c.boolean)
    throw InputError(e.pos, field,
                     fmt::format("column {}: \"{}\" is a number; a property needs a condition "
                                 "(compare it: == != < <= > >=)",
                                 e.column, e.text));
  return c;
}

// Compiles every user property against `layout`. Throws InputError (file, line, column, field)
// for a bad expression, and for a name a protocol property already has (`taken`).
inline std::vector<CompiledUserProperty> compile_user_properties(
    const std::vector<UserPropertySpec>& specs, const Layout& layout,
    const std::vector<std::string>& taken) {
  std::vector<CompiledUserProperty> out;
  for (const auto& spec : specs) {
    if (std::find(taken.begin(), taken.end(), spec.name) != taken.end())
      throw InputError(spec.pos, "properties." + spec.name + ".name",
                       fmt::format("'{}' is already a property of this protocol", spec.name));
    CompiledUserProperty c;
    c.spec = &spec;
    const std::string field = "properties." + spec.name;
    if (spec.kind != UserPropertySpec::Kind::LeadsTo) {
      c.holds = compile_condition(
          spec.holds,
          field + (spec.kind == UserPropertySpec::Kind::Always ? ".always" : ".sometimes"), layout);
    } else {
      std::vector<std::pair<std::string, int>> bound;
      if (!spec.each_axis.empty()) {
        c.subject_axis = layout.axis(spec.each_axis);
        if (c.subject_axis < 0 || layout.axes[c.subject_axis].parent >= 0)
          throw InputError(spec.each_pos, field + ".leadsTo.each",
                           fmt::format("'{}' is not an axis of this protocol that depends on no "
                                       "other",
                                       spec.each_axis));
        bound.emplace_back(spec.each_var, c.subject_axis);
      }
      c.premise = compile_condition(spec.premise, field + ".leadsTo.from", layout, bound);
      c.goal = compile_condition(spec.goal, field + ".leadsTo.to", layout, bound);
    }
    out.push_back(std::move(c));
  }
  return out;
}

// A compiled condition evaluated on a state of either engine, with subject `i` bound to slot 0
// when it has one.
template <class V, class State>
auto evaluate(const Layout& layout, const Compiled& c, const State& s, Values<V> values,
              int subject = -1) {
  ExprEvaluator<V> ev(layout, s, values, c.slots);
  if (subject >= 0) ev.bind(0, subject);
  return ev.truth(*c.root);
}

// `props` with kmc.yaml's own properties appended, for the instance `p`, which outlives them and
// whose parameters hold `specs`.
template <class P>
std::vector<Property<typename P::State>> with_user_properties(
    std::vector<Property<typename P::State>> props, const P& p,
    const std::vector<UserPropertySpec>& specs) {
  using State = typename P::State;
  std::vector<std::string> taken;
  for (const auto& q : props) taken.push_back(q.name());
  const Layout& layout = p.layout();
  for (auto& c : compile_user_properties(specs, layout, taken)) {
    const UserPropertySpec& spec = *c.spec;
    switch (spec.kind) {
      case UserPropertySpec::Kind::Always:
      case UserPropertySpec::Kind::Sometimes: {
        auto holds = [&layout, h = c.holds](const State& s) {
          return evaluate<std::int64_t>(layout, h, s, {});
        };
        props.push_back(spec.kind == UserPropertySpec::Kind::Always
                            ? Property<State>::always(spec.name, spec.description, {holds})
                            : Property<State>::sometimes(spec.name, spec.description, {holds}));
        break;
      }
      case UserPropertySpec::Kind::LeadsTo: {
        const bool each = c.subject_axis >= 0;
        const int subjects = each ? layout.axes[c.subject_axis].extent() : 1;
        LeadsTo<State> rule{subjects,
                            [&layout, pre = c.premise, each](const State& s, int i) {
                              return evaluate<std::int64_t>(layout, pre, s, {}, each ? i : -1);
                            },
                            [&layout, goal = c.goal, each](const State& s, int i) {
                              return evaluate<std::int64_t>(layout, goal, s, {}, each ? i : -1);
                            }};
        auto prop = Property<State>::leads_to(spec.name, spec.description, std::move(rule));
        props.push_back(each ? std::move(prop).over(spec.each_axis) : std::move(prop));
        break;
      }
    }
  }
  return props;
}

}  // namespace kmc::model
