// Evaluating a compiled expression (model/expression.hpp) on a state of
// either engine: V = std::int64_t gives a bool, V = sym::Int a Z3 formula.
// Quantifiers unroll over their axis's entities (concrete), so the formula
// has no quantifiers for the solver to instantiate.
//
// A cell named under a parent that a bound variable chooses (a flavor of
// the ClusterQueue `q` ranges over) may not exist for every value of the
// variable: it then reads 0, as an absent cell does.
#pragma once

#include <algorithm>
#include <boost/hana.hpp>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "model/assert.hpp"
#include "model/expression.hpp"
#include "model/value.hpp"

namespace kmc::model {

template <class V>
class ExprEvaluator {
 public:
  using B = decltype(std::declval<V>() == std::declval<V>());

  // `state` is a protocol's State<V>: its members, in order, are the layout's fields.
  template <class State>
  ExprEvaluator(const Layout& layout, const State& state, Values<V> values, int slots)
      : layout_(layout), val_(values), vars_(static_cast<std::size_t>(slots), -1) {
    // Accessors, not hana::members, which copies the members into a tuple of its own.
    boost::hana::for_each(boost::hana::accessors<State>(), [&](const auto& acc) {
      fields_.push_back(&boost::hana::second(acc)(state));
    });
  }

  void bind(int slot, int entity) { vars_[slot] = entity; }

  B truth(const Expr& e) {
    using Op = Expr::Op;
    switch (e.op) {
      case Op::Not:
        return !truth(e.kids[0]);
      case Op::And:
        return truth(e.kids[0]) && truth(e.kids[1]);
      case Op::Or:
        return truth(e.kids[0]) || truth(e.kids[1]);
      case Op::Implies:
        return !truth(e.kids[0]) || truth(e.kids[1]);
      case Op::Eq:
      case Op::Ne: {
        const V a = operand(e.kids[0], e.kids[1]), b = operand(e.kids[1], e.kids[0]);
        return e.op == Op::Eq ? B(a == b) : B(a != b);
      }
      case Op::Lt:
        return number(e.kids[0]) < number(e.kids[1]);
      case Op::Le:
        return number(e.kids[0]) <= number(e.kids[1]);
      case Op::Gt:
        return number(e.kids[0]) > number(e.kids[1]);
      case Op::Ge:
        return number(e.kids[0]) >= number(e.kids[1]);
      case Op::In: {
        const V x = number(e.kids[0]);
        B any = val_.truth(false);
        for (std::size_t i = 1; i < e.kids.size(); ++i)
          any = any || (x == operand(e.kids[i], e.kids[0]));
        return any;
      }
      case Op::All:
      case Op::Some:
      case Op::No: {
        B acc = val_.truth(e.op == Op::All);
        for (int i = 0; i < layout_.axes[e.axis].extent(); ++i) {
          vars_[e.var] = i;
          acc = e.op == Op::All ? B(acc && truth(e.kids[0])) : B(acc || truth(e.kids[0]));
        }
        return e.op == Op::No ? B(!acc) : acc;
      }
      default:
        KMC_ASSERT_MSG(false, "compile_expression types conditions");
        return val_.truth(false);
    }
  }

  V number(const Expr& e) {
    using Op = Expr::Op;
    switch (e.op) {
      case Op::Int:
        return val_.lit(e.value);
      case Op::Var:
        return val_.lit(vars_[e.var]);
      case Op::Cell: {
        const auto at = cell_at(e);
        if (!at) return val_.lit(0);
        return (*fields_[e.field])[layout_.offset(layout_.fields[e.field], *at)];
      }
      case Op::Add:
        return number(e.kids[0]) + number(e.kids[1]);
      case Op::Sub:
        return number(e.kids[0]) - number(e.kids[1]);
      case Op::Count:
      case Op::Sum: {
        V acc = val_.lit(0);
        for (int i = 0; i < layout_.axes[e.axis].extent(); ++i) {
          vars_[e.var] = i;
          acc = acc + (e.op == Op::Count ? ite(truth(e.kids[0]), val_.lit(1), val_.lit(0))
                                         : number(e.kids[0]));
        }
        return acc;
      }
      default:
        KMC_ASSERT_MSG(false, "compile_expression types numbers");
        return val_.lit(0);
    }
  }

 private:
  // A side of a comparison: a name left for evaluation is resolved against the other side's cell.
  V operand(const Expr& e, const Expr& other) {
    if (e.op != Expr::Op::Name) return number(e);
    KMC_ASSERT_MSG(other.op == Expr::Op::Cell, "a name is compared with a cell");
    const Field& f = layout_.fields[other.field];
    const auto at = cell_at(other);
    const int parent = at && f.index_parent ? f.index_parent(*at) : -1;
    const Axis& axis = layout_.axes[f.index_axis];
    if (parent >= 0 && parent < static_cast<int>(axis.labels_of.size()))
      for (std::size_t i = 0; i < axis.labels_of[parent].size(); ++i)
        if (axis.labels_of[parent][i] == e.name) return val_.lit(static_cast<std::int64_t>(i));
    return val_.lit(-2);  // no such entity there: equal to no value (-1 is none)
  }

  // The per-axis indices a cell names under the current bindings; nothing if it does not exist.
  std::optional<std::vector<int>> cell_at(const Expr& e) const {
    const Field& f = layout_.fields[e.field];
    std::vector<int> at(f.axes.size(), -1);
    for (std::size_t k = 0; k < f.axes.size(); ++k) {
      const CellArg& a = e.args[k];
      if (a.var >= 0) {
        at[k] = vars_[a.var];
      } else if (a.index >= 0) {
        at[k] = a.index;
      } else {
        const Axis& axis = layout_.axes[f.axes[k]];
        int parent = -1;
        for (std::size_t p = 0; p < k; ++p)
          if (f.axes[p] == axis.parent) parent = at[p];
        if (parent < 0 || parent >= static_cast<int>(axis.labels_of.size())) return std::nullopt;
        const auto& labels = axis.labels_of[parent];
        const auto it = std::find(labels.begin(), labels.end(), a.name);
        if (it == labels.end()) return std::nullopt;
        at[k] = static_cast<int>(it - labels.begin());
      }
    }
    if (f.present && !f.present(at)) return std::nullopt;
    return at;
  }

  const Layout& layout_;
  Values<V> val_;
  std::vector<int> vars_;
  std::vector<const std::vector<V>*> fields_;
};

}  // namespace kmc::model
