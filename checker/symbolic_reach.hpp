// Bounded symbolic reachability over a protocol's own rules.
//
// A state type S<V> (a Hana struct of std::vector<V> fields) is rebound to
// fresh Z3 integers per step; the transition relation is the disjunction,
// over the protocol's candidate actions, of its guard and its update — the
// same template code the explicit engine runs, instantiated at sym::Int.
//
// SymbolicInstance<Spec> is the symbolic instance derived from a protocol's
// definition (model/spec.hpp), as model::Instance is the explicit one: it
// takes the initial state, the candidates, the rules and the fields' value
// ranges from the spec, so a caller (the agreement test, later BMC and
// k-induction) never includes a protocol's internals. symbolic_reachable<S>
// below it is the lower-level search it is built on.
#pragma once

#include <z3++.h>

#include <boost/hana.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "checker/symbolic_value.hpp"
#include "model/assert.hpp"
#include "model/spec.hpp"
#include "model/value.hpp"

namespace kmc::checker {

namespace hana = boost::hana;

// Fresh integer constants shaped like `shape`, named prefix.field[i].
template <template <class> class S>
S<sym::Int> fresh_state(z3::context& ctx, const S<std::int64_t>& shape, const std::string& prefix) {
  S<sym::Int> out;
  hana::for_each(hana::zip(hana::accessors<S<std::int64_t>>(), hana::accessors<S<sym::Int>>()),
                 [&](auto pair) {
                   const auto& src = hana::second(hana::at_c<0>(pair))(shape);
                   auto& dst = hana::second(hana::at_c<1>(pair))(out);
                   const std::string name = hana::to<const char*>(hana::first(hana::at_c<0>(pair)));
                   for (std::size_t i = 0; i < src.size(); ++i)
                     dst.push_back(sym::Int{ctx.int_const(
                         (prefix + "." + name + "[" + std::to_string(i) + "]").c_str())});
                 });
  return out;
}

// Every variable within its cell's declared range (model::Layout::range: the
// field's lo..hi, or the cell's own lo, lo + step, ..., hi), the fields taken
// from `layout` (matched to S's members in order: the names must agree). A
// null layout constrains nothing.
template <template <class> class S>
z3::expr in_ranges(z3::context& ctx, const S<sym::Int>& s, const model::Layout* layout) {
  z3::expr all = ctx.bool_val(true);
  if (!layout) return all;
  const auto& fields = layout->fields;
  std::size_t k = 0;
  hana::for_each(hana::accessors<S<sym::Int>>(), [&](const auto& acc) {
    KMC_ASSERT_MSG(k < fields.size(), "a State member the layout does not declare");
    const model::Field& f = fields[k++];
    KMC_ASSERT_MSG(f.name == hana::to<const char*>(hana::first(acc)),
                   "fields in declaration order");
    KMC_ASSERT_MSG(f.lo <= f.hi, "a declared range is not empty");
    const auto& xs = hana::second(acc)(s);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const model::CellRange r = layout->range(f, i);
      const z3::expr& x = xs[i].term();
      all = all && ctx.int_val(static_cast<int64_t>(r.lo)) <= x &&
            x <= ctx.int_val(static_cast<int64_t>(r.hi));
      if (r.step > 1)
        all = all && z3::mod(x - ctx.int_val(static_cast<int64_t>(r.lo)),
                             ctx.int_val(static_cast<int64_t>(r.step))) == 0;
    }
  });
  KMC_ASSERT_MSG(k == fields.size(), "a layout field the State lacks");
  return all;
}

// The conjunction a == b, field by field; B is sym::Int or std::int64_t.
template <template <class> class S, class B>
z3::expr state_equals(z3::context& ctx, const S<sym::Int>& a, const S<B>& b) {
  z3::expr all = ctx.bool_val(true);
  hana::for_each(hana::zip(hana::accessors<S<sym::Int>>(), hana::accessors<S<B>>()),
                 [&](auto pair) {
                   const auto& x = hana::second(hana::at_c<0>(pair))(a);
                   const auto& y = hana::second(hana::at_c<1>(pair))(b);
                   KMC_ASSERT_MSG(x.size() == y.size(), "states of one shape");
                   for (std::size_t i = 0; i < x.size(); ++i) all = all && (x[i] == y[i]).e;
                 });
  return all;
}

template <template <class> class S>
S<std::int64_t> evaluate_state(const z3::model& m, const S<sym::Int>& s) {
  S<std::int64_t> out;
  hana::for_each(hana::zip(hana::accessors<S<sym::Int>>(), hana::accessors<S<std::int64_t>>()),
                 [&](auto pair) {
                   const auto& src = hana::second(hana::at_c<0>(pair))(s);
                   auto& dst = hana::second(hana::at_c<1>(pair))(out);
                   for (const auto& v : src)
                     dst.push_back(m.eval(v.term(), true).get_numeral_int64());
                 });
  return out;
}

// Every state reachable from `init` in at most `depth` steps, by SAT
// enumeration with blocking clauses. The search owns its Z3 context and
// hands it to the protocol as a value context: make_rules(sym::SymbolicValues)
// returns the protocol's Rules<sym::Int>, which must offer
// enabled(S, Action) -> sym::Bool and apply_in_place(S&, Action). Every state
// variable is kept within its field's declared range (see in_ranges);
// SymbolicInstance says why.
template <template <class> class S, class MakeRules, class Action>
std::vector<S<std::int64_t>> symbolic_reachable(const S<std::int64_t>& init,
                                                const MakeRules& make_rules,
                                                const std::vector<Action>& candidates, int depth,
                                                const model::Layout* layout = nullptr) {
  KMC_ASSERT_MSG(depth >= 0, "a depth is a number of steps");
  z3::context ctx;
  const auto rules = make_rules(sym::SymbolicValues{&ctx});
  z3::solver solver(ctx);
  S<sym::Int> cur = fresh_state<S>(ctx, init, "s0");
  solver.add(state_equals<S>(ctx, cur, init));
  solver.add(in_ranges<S>(ctx, cur, layout));
  for (int step = 1; step <= depth; ++step) {
    S<sym::Int> nxt = fresh_state<S>(ctx, init, "s" + std::to_string(step));
    solver.add(in_ranges<S>(ctx, nxt, layout));
    z3::expr any = state_equals<S>(ctx, nxt, cur);  // stutter: "within depth steps"
    for (const auto& a : candidates) {
      S<sym::Int> after = cur;
      rules.apply_in_place(after, a);
      any = any || (rules.enabled(cur, a).e && state_equals<S>(ctx, nxt, after));
    }
    solver.add(any);
    cur = std::move(nxt);
  }
  std::vector<S<std::int64_t>> found;
  while (solver.check() == z3::sat) {
    const auto m = solver.get_model();
    found.push_back(evaluate_state<S>(m, cur));
    z3::expr_vector differ(ctx);
    hana::for_each(hana::zip(hana::accessors<S<sym::Int>>(), hana::accessors<S<std::int64_t>>()),
                   [&](auto pair) {
                     const auto& xs = hana::second(hana::at_c<0>(pair))(cur);
                     const auto& vs = hana::second(hana::at_c<1>(pair))(found.back());
                     for (std::size_t i = 0; i < xs.size(); ++i)
                       differ.push_back(xs[i].term() != ctx.int_val(static_cast<int64_t>(vs[i])));
                   });
    solver.add(z3::mk_or(differ));
  }
  return found;
}

// The symbolic instance of a protocol, derived from its definition: the
// initial state from Spec::initial, the candidates from Spec::candidates, the
// rules as Spec::Rules<sym::Int> over the search's own Z3 context.
//
// Every fresh state variable of field f is constrained to f's declared range
// lo..hi (Layout::fields, in the State's member order, as model::Instance
// asserts). The ranges are the spec's contract: packed states rely on them
// (the Speed issue), and so does k-induction (checker/smt_engines.hpp), where
// an unconstrained variable would let an induction step start from a state
// no layout can hold. Here they cost nothing in agreement: a successor out of
// its range is a bug in the spec, and the range makes the symbolic search
// miss that state, so the agreement test reports it as a difference from
// the explicit engine (which does not clamp) instead of hiding it.
template <model::ProtocolSpec Spec>
class SymbolicInstance {
 public:
  using Params = typename Spec::Params;
  using State = typename Spec::template State<std::int64_t>;

  explicit SymbolicInstance(Params params)
      : p_(std::move(params)), layout_(Spec::layout(p_)), candidates_(Spec::candidates(p_)) {}

  // Every state reachable from the initial state in at most `depth` steps.
  std::vector<State> reachable(int depth) const {
    // The rules keep a reference to the parameters: p_ outlives the search.
    const auto make_rules = [this](sym::SymbolicValues values) {
      return typename Spec::template Rules<sym::Int>(p_, values);
    };
    return symbolic_reachable<Spec::template State>(Spec::initial(p_), make_rules, candidates_,
                                                    depth, &layout_);
  }

  const Params& params() const { return p_; }
  const model::Layout& layout() const { return layout_; }
  const std::vector<typename Spec::Action>& candidates() const { return candidates_; }

 private:
  Params p_;
  model::Layout layout_;
  std::vector<typename Spec::Action> candidates_;
};

// The states a spec's instance reaches within `depth` steps, symbolically.
template <model::ProtocolSpec Spec>
std::vector<typename Spec::template State<std::int64_t>> symbolic_reachable(
    const typename Spec::Params& params, int depth) {
  return SymbolicInstance<Spec>(params).reachable(depth);
}

}  // namespace kmc::checker
