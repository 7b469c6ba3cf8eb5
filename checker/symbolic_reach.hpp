// Bounded symbolic reachability over a protocol's own rules.
//
// A state type S<V> (a Hana struct of std::vector<V> fields) is rebound to
// fresh Z3 integers per step; the transition relation is the disjunction,
// over the protocol's candidate actions, of its guard and its update — the
// same template code the explicit engine runs, instantiated at sym::Int.
// Used to show the two engines agree, and later by the symbolic checker.
#pragma once

#include <boost/hana.hpp>
#include <z3++.h>

#include <cstdint>
#include <string>
#include <vector>

#include "checker/symbolic_value.hpp"

namespace kmc::checker {

namespace hana = boost::hana;

// Fresh integer constants shaped like `shape`, named prefix.field[i].
template <template <class> class S>
S<sym::Int> fresh_state(z3::context& ctx, const S<std::int64_t>& shape, const std::string& prefix) {
  S<sym::Int> out;
  hana::for_each(hana::zip(hana::accessors<S<std::int64_t>>(), hana::accessors<S<sym::Int>>()), [&](auto pair) {
    const auto& src = hana::second(hana::at_c<0>(pair))(shape);
    auto& dst = hana::second(hana::at_c<1>(pair))(out);
    const std::string name = hana::to<const char*>(hana::first(hana::at_c<0>(pair)));
    for (std::size_t i = 0; i < src.size(); ++i)
      dst.push_back(sym::Int{ctx.int_const((prefix + "." + name + "[" + std::to_string(i) + "]").c_str())});
  });
  return out;
}

// The conjunction a == b, field by field; B is sym::Int or std::int64_t.
template <template <class> class S, class B>
z3::expr state_equals(z3::context& ctx, const S<sym::Int>& a, const S<B>& b) {
  z3::expr all = ctx.bool_val(true);
  hana::for_each(hana::zip(hana::accessors<S<sym::Int>>(), hana::accessors<S<B>>()), [&](auto pair) {
    const auto& x = hana::second(hana::at_c<0>(pair))(a);
    const auto& y = hana::second(hana::at_c<1>(pair))(b);
    for (std::size_t i = 0; i < x.size(); ++i) all = all && (x[i] == y[i]).e;
  });
  return all;
}

template <template <class> class S>
S<std::int64_t> evaluate_state(const z3::model& m, const S<sym::Int>& s) {
  S<std::int64_t> out;
  hana::for_each(hana::zip(hana::accessors<S<sym::Int>>(), hana::accessors<S<std::int64_t>>()), [&](auto pair) {
    const auto& src = hana::second(hana::at_c<0>(pair))(s);
    auto& dst = hana::second(hana::at_c<1>(pair))(out);
    for (const auto& v : src) dst.push_back(m.eval(v.term(), true).get_numeral_int64());
  });
  return out;
}

// Every state reachable from `init` in at most `depth` steps, by SAT
// enumeration with blocking clauses. The search owns its Z3 context and
// hands it to the protocol as a value context: make_rules(sym::SymbolicValues)
// returns the protocol's Rules<sym::Int>, which must offer
// enabled(S, Action) -> sym::Bool and apply(S, Action) -> S.
template <template <class> class S, class MakeRules, class Action>
std::vector<S<std::int64_t>> symbolic_reachable(const S<std::int64_t>& init,
                                                const MakeRules& make_rules,
                                                const std::vector<Action>& candidates, int depth) {
  z3::context ctx;
  const auto rules = make_rules(sym::SymbolicValues{&ctx});
  z3::solver solver(ctx);
  S<sym::Int> cur = fresh_state<S>(ctx, init, "s0");
  solver.add(state_equals<S>(ctx, cur, init));
  for (int step = 1; step <= depth; ++step) {
    S<sym::Int> nxt = fresh_state<S>(ctx, init, "s" + std::to_string(step));
    z3::expr any = state_equals<S>(ctx, nxt, cur);  // stutter: "within depth steps"
    for (const auto& a : candidates) {
      const auto after = rules.apply(cur, a);
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
    hana::for_each(hana::zip(hana::accessors<S<sym::Int>>(), hana::accessors<S<std::int64_t>>()), [&](auto pair) {
      const auto& xs = hana::second(hana::at_c<0>(pair))(cur);
      const auto& vs = hana::second(hana::at_c<1>(pair))(found.back());
      for (std::size_t i = 0; i < xs.size(); ++i) differ.push_back(xs[i].term() != ctx.int_val(static_cast<int64_t>(vs[i])));
    });
    solver.add(z3::mk_or(differ));
  }
  return found;
}

}  // namespace kmc::checker
