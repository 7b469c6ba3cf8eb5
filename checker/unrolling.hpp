// A path of a protocol's transition relation unrolled into one Z3 solver:
// s_0 -a_0-> s_1 -a_1-> ... s_k, one step at a time (the SMT issue's
// bounded model checking and k-induction share it).
//
// The relation is the protocol's own Rules<sym::Int> (checker/symbolic_reach.hpp
// says why there is no second encoding). Per step there is one selector a_i,
// the index of the candidate action taken: a_i = c implies c's guard holds in
// s_i, and each variable of s_{i+1} is an ite() chain over the candidates
// whose update changes it, else its value in s_i. A frame that most actions
// leave alone therefore costs nothing per action, and the selector names the
// action a counterexample took, so it becomes a concrete path.
//
// Every state is kept in its fields' declared ranges. That the path is
// simple (no state twice) is asserted under the literal simple(): a check
// that assumes it asks about simple paths only. A shortest counterexample is
// simple, but the k^2 disequalities slow the solver, so bounded model
// checking looks for violations without them and assumes them only to ask
// whether any simple path of k steps exists; when none does, every reachable
// state lies within k - 1 steps (the recurrence diameter: a complete
// answer). k-induction's step assumes them for its completeness.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "checker/symbolic_reach.hpp"
#include "model/spec.hpp"

namespace kmc::checker {

// A symbolic state's variables, flattened in member order.
template <template <class> class S>
std::vector<z3::expr> flatten(const S<sym::Int>& s) {
  std::vector<z3::expr> out;
  hana::for_each(hana::accessors<S<sym::Int>>(), [&](const auto& acc) {
    for (const auto& x : hana::second(acc)(s)) out.push_back(x.term());
  });
  return out;
}

template <model::ProtocolSpec Spec>
class Unrolling {
 public:
  using Params = typename Spec::Params;
  using State = typename Spec::template State<std::int64_t>;
  using SymState = typename Spec::template State<sym::Int>;
  using Rules = typename Spec::template Rules<sym::Int>;
  using Action = typename Spec::Action;

  // from_initial: s_0 is the spec's initial state; otherwise any state in range (an
  // induction step's start). simple: no two states of the path are equal.
  Unrolling(z3::solver& solver, const Params& p, const model::Layout& layout,
            const std::vector<Action>& candidates, std::string prefix, bool from_initial)
      : solver_(solver),
        ctx_(solver.ctx()),
        layout_(layout),
        candidates_(candidates),
        rules_(p, sym::SymbolicValues{&ctx_}),
        shape_(Spec::initial(p)),
        prefix_(std::move(prefix)),
        simple_(solver.ctx().bool_const((prefix_ + "simple").c_str())) {
    states_.push_back(fresh_state<Spec::template State>(ctx_, shape_, prefix_ + "0"));
    flat_.push_back(flatten<Spec::template State>(states_.back()));
    solver_.add(in_ranges<Spec::template State>(ctx_, states_.back(), &layout_));
    if (from_initial) solver_.add(state_equals<Spec::template State>(ctx_, states_.back(), shape_));
  }

  int depth() const { return static_cast<int>(states_.size()) - 1; }
  const SymState& state(int i) const { return states_[i]; }
  // Assumed by a check, the path has no state twice.
  const z3::expr& simple() const { return simple_; }

  // Adds s_{k+1} and the step s_k -> s_{k+1}.
  void extend() {
    const int k = depth();
    const SymState& cur = states_.back();
    const std::vector<z3::expr>& before = flat_.back();
    SymState nxt = fresh_state<Spec::template State>(ctx_, shape_, prefix_ + std::to_string(k + 1));
    solver_.add(in_ranges<Spec::template State>(ctx_, nxt, &layout_));
    const z3::expr act = ctx_.int_const((prefix_ + "action" + std::to_string(k)).c_str());
    solver_.add(act >= 0 && act < static_cast<int>(candidates_.size()));
    std::vector<z3::expr> value = before;
    for (std::size_t c = 0; c < candidates_.size(); ++c) {
      const z3::expr chosen = act == static_cast<int>(c);
      solver_.add(z3::implies(chosen, rules_.enabled(cur, candidates_[c]).e));
      SymState moved = cur;  // the spec's contract is apply_in_place (model::ProtocolSpec)
      rules_.apply_in_place(moved, candidates_[c]);
      const auto after = flatten<Spec::template State>(moved);
      for (std::size_t v = 0; v < value.size(); ++v)
        if (!z3::eq(after[v], before[v])) value[v] = z3::ite(chosen, after[v], value[v]);
    }
    std::vector<z3::expr> next_flat = flatten<Spec::template State>(nxt);
    for (std::size_t v = 0; v < value.size(); ++v) solver_.add(next_flat[v] == value[v]);
    for (const auto& earlier : flat_)
      solver_.add(z3::implies(simple_, differs(earlier, next_flat)));
    states_.push_back(std::move(nxt));
    flat_.push_back(std::move(next_flat));
    actions_.push_back(act);
  }

  // The path a model of the solver gives: its states and, per step, the candidate taken.
  std::vector<State> states_of(const z3::model& m) const {
    std::vector<State> out;
    for (const auto& s : states_) out.push_back(evaluate_state<Spec::template State>(m, s));
    return out;
  }
  std::vector<std::size_t> actions_of(const z3::model& m) const {
    std::vector<std::size_t> out;
    for (const auto& a : actions_)
      out.push_back(static_cast<std::size_t>(m.eval(a, true).get_numeral_int64()));
    return out;
  }

 private:
  z3::expr differs(const std::vector<z3::expr>& a, const std::vector<z3::expr>& b) const {
    z3::expr_vector any(ctx_);
    for (std::size_t v = 0; v < a.size(); ++v) any.push_back(a[v] != b[v]);
    return z3::mk_or(any);
  }

  z3::solver& solver_;
  z3::context& ctx_;
  const model::Layout& layout_;
  const std::vector<Action>& candidates_;
  Rules rules_;
  State shape_;
  std::string prefix_;
  z3::expr simple_;
  std::vector<SymState> states_;
  std::vector<std::vector<z3::expr>> flat_;
  std::vector<z3::expr> actions_;
};

}  // namespace kmc::checker
