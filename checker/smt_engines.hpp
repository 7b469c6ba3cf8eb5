// The SMT engines over a protocol's own definition (the SMT issue):
// incremental bounded model checking and k-induction, for the state
// properties (always, sometimes) whose predicates are written over V.
//
// Bounded model checking unrolls the relation one step at a time from the
// initial state (checker/unrolling.hpp) and asks, at each depth k, whether
// some always property fails (or a sometimes property holds) in s_k. The
// first depth that answers is the shortest violation, the length
// breadth-first search finds. The path is kept simple, so when no path of
// k steps without a repeated state exists, every reachable state has been
// checked: the remaining always properties hold for every depth, and a
// sometimes property never witnessed never holds.
//
// k-induction (Sheeran, Singh and Stålmarck, FMCAD 2000) adds, per always
// property P, a step check on its own solver: a simple path of k + 1
// states in range, P in the first k and not in the last. When that is
// unsatisfiable and bounded model checking found no violation within k - 1
// steps, P holds at every depth. When k reaches its limit the last step
// model is a counterexample to induction: a state where P holds, one step
// from a state where it does not, that no search has shown unreachable,
// and the invariant it lacks is what the user adds.
#pragma once

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/result.hpp"
#include "checker/smt_options.hpp"
#include "checker/unrolling.hpp"
#include "model/property.hpp"

namespace kmc::checker {

// A state property's predicate over symbolic states.
template <model::ProtocolSpec Spec>
struct StatePredicate {
  std::string name;
  model::PropertyKind kind = model::PropertyKind::Always;  // or Sometimes
  std::function<sym::Bool(const typename Spec::template State<sym::Int>&, sym::SymbolicValues)>
      holds;
};

// A path the solver found: its states and, per step, the index of the candidate action taken.
template <class State>
struct SmtPath {
  std::vector<State> states;
  std::vector<std::size_t> candidates;
};

template <class State>
struct SmtOutcome {
  struct PerProperty {
    std::string name;
    model::PropertyKind kind = model::PropertyKind::Always;
    Verdict verdict = Verdict::Incomplete;
    // How the verdict was reached: "bmc" (a violation or witness at depth k), "bmc-complete" (no
    // simple path longer than k - 1 steps), "k-induction" (proven with this k).
    std::string method;
    int k = -1;
  };
  std::vector<PerProperty> properties;
  std::optional<std::pair<std::string, SmtPath<State>>> violation;  // the shortest found
  // k-induction at its limit: the property whose step still fails, and the step's path.
  std::optional<std::pair<std::string, SmtPath<State>>> induction_counterexample;
  int explored_depth = -1;  // every path of up to this many steps checked
  std::string incomplete_reason;
  int solver_calls = 0;
  double seconds = 0;
};

namespace detail {

class SmtClock {
 public:
  explicit SmtClock(const SmtLimits& limits)
      : limits_(limits), start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  // Why to stop now; empty: go on.
  std::string stop_reason() const {
    if (limits_.stop) {
      auto why = limits_.stop();
      if (!why.empty()) return why;
    }
    if (limits_.time_limit_s > 0 && seconds() >= limits_.time_limit_s) return time_limit();
    return {};
  }
  std::string time_limit() const {  // worded as explicit search words it
    return fmt::format("time-limit {}s", static_cast<int>(limits_.time_limit_s));
  }
  bool timed() const { return limits_.time_limit_s > 0; }
  // A solver call bounded by what is left of the time limit; unknown when it runs out.
  z3::check_result check(z3::solver& solver, int& calls, const z3::expr_vector& assumptions) const {
    if (limits_.time_limit_s > 0) {
      const double left = std::max(0.001, limits_.time_limit_s - seconds());
      z3::params ps(solver.ctx());
      ps.set("timeout", static_cast<unsigned>(left * 1000));
      solver.set(ps);
    }
    ++calls;
    return solver.check(assumptions);
  }

 private:
  const SmtLimits& limits_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace detail

template <model::ProtocolSpec Spec>
SmtOutcome<typename Spec::template State<std::int64_t>> smt_check(
    const typename Spec::Params& p, const std::vector<StatePredicate<Spec>>& predicates,
    SmtEngine engine, const SmtLimits& limits) {
  using State = typename Spec::template State<std::int64_t>;
  using Out = SmtOutcome<State>;
  Out out;
  const detail::SmtClock clock(limits);
  const model::Layout layout = Spec::layout(p);
  const auto candidates = Spec::candidates(p);
  z3::context ctx;
  const sym::SymbolicValues values{&ctx};
  for (const auto& pred : predicates) {
    auto& prop = out.properties.emplace_back();
    prop.name = pred.name;
    prop.kind = pred.kind;
  }
  const auto open = [&](std::size_t i) { return out.properties[i].verdict == Verdict::Incomplete; };

  // Z3's default solver: on these relations (integers, ites, small ranges) it measured faster
  // than the QF_LIA and QF_FD logics (gpu-hunter-fixed to depth 12: 3.4 s, 13.1 s, 4.0 s).
  z3::solver base(ctx);
  Unrolling<Spec> path(base, p, layout, candidates, "s", true);
  // k-induction's step: one path from any state in range, shared by every always property. Each
  // property's premises (it holds in t_0..t_k) are asserted under its own literal, so a question
  // assumes the premises it may: a property's own, those of properties already proven (then
  // invariants, asserted outright), or, asked jointly, every open property's at once.
  std::unique_ptr<z3::solver> step_solver;
  std::unique_ptr<Unrolling<Spec>> step;
  std::vector<z3::expr> premise;
  std::vector<std::optional<SmtPath<State>>> step_failures(predicates.size());
  if (engine == SmtEngine::Induction) {
    step_solver = std::make_unique<z3::solver>(ctx);
    step = std::make_unique<Unrolling<Spec>>(*step_solver, p, layout, candidates, "t", false);
    for (std::size_t i = 0; i < predicates.size(); ++i)
      premise.push_back(ctx.bool_const(("premise" + std::to_string(i)).c_str()));
  }
  const auto is_always = [&](std::size_t i) {
    return predicates[i].kind == model::PropertyKind::Always;
  };

  const auto unknown = [&](z3::check_result r) {
    if (r != z3::unknown) return false;
    out.incomplete_reason = clock.stop_reason();
    if (out.incomplete_reason.empty())
      out.incomplete_reason = clock.timed() ? clock.time_limit() : "the solver gave up (unknown)";
    return true;
  };
  // A question about depth k, asked under a fresh literal rather than push/pop, which would
  // throw away what the solver learnt about the unrolling so far.
  int questions = 0;
  const auto ask = [&](z3::solver& solver, const z3::expr& what, std::vector<z3::expr> also) {
    const z3::expr lit = ctx.bool_const(("q" + std::to_string(questions++)).c_str());
    solver.add(z3::implies(lit, what));
    z3::expr_vector assumptions(ctx);
    assumptions.push_back(lit);
    for (auto& a : also) assumptions.push_back(a);
    return clock.check(solver, out.solver_calls, assumptions);
  };
  // One question at depth k for the open properties of one kind: can an always property fail, or
  // a sometimes property hold, in s_k? The model says which did. False: the solver gave up.
  const auto decide_at = [&](int k, model::PropertyKind kind) {
    const bool always = kind == model::PropertyKind::Always;
    const auto relevant = [&](std::size_t i) { return open(i) && predicates[i].kind == kind; };
    const auto holds = [&](std::size_t i) { return predicates[i].holds(path.state(k), values).e; };
    z3::expr_vector any(ctx);
    for (std::size_t i = 0; i < predicates.size(); ++i)
      if (relevant(i)) any.push_back(always ? !holds(i) : holds(i));
    if (any.empty()) return true;
    const auto r = ask(base, z3::mk_or(any), {});
    if (unknown(r)) return false;
    if (r == z3::unsat) return true;
    const auto m = base.get_model();
    for (std::size_t i = 0; i < predicates.size(); ++i) {
      if (!relevant(i) || m.eval(holds(i), true).is_true() == always) continue;
      auto& prop = out.properties[i];
      prop.verdict = always ? Verdict::Violated : Verdict::Verified;
      prop.method = "bmc", prop.k = k;
      if (always && !out.violation)
        out.violation.emplace(predicates[i].name,
                              SmtPath<State>{path.states_of(m), path.actions_of(m)});
    }
    return true;
  };
  bool complete = false;
  for (int k = 0;; ++k) {
    KMC_ASSERT_MSG(path.depth() == k, "the last iteration unrolled step k");
    // Some open always property fails in s_k? One question for all of them; the model says which.
    if (!decide_at(k, model::PropertyKind::Always) || !decide_at(k, model::PropertyKind::Sometimes))
      break;
    out.explored_depth = k;
    if (out.violation) break;  // as breadth-first search, the run stops at its first violation
    // Every open always property holds in every state of k steps: say so to the solver. Implied,
    // so sound, and the deeper questions need not rediscover it at each earlier step.
    for (std::size_t i = 0; i < predicates.size(); ++i)
      if (open(i) && predicates[i].kind == model::PropertyKind::Always)
        base.add(predicates[i].holds(path.state(k), values).e);
    // k-induction: with no violation within k steps, a step of k + 1 premise states that ends
    // in a violation is the only way left for a property to fail.
    if (step) {
      auto& solver = *step_solver;
      while (step->depth() <= k) {  // premises t_0..t_k, then the conclusion t_{k+1}
        for (std::size_t i = 0; i < predicates.size(); ++i)
          if (is_always(i))
            solver.add(
                z3::implies(premise[i], predicates[i].holds(step->state(step->depth()), values).e));
        step->extend();
      }
      const auto fails_at_end = [&](std::size_t i) {
        return !predicates[i].holds(step->state(k + 1), values).e;
      };
      const auto proven = [&](std::size_t i) {
        auto& prop = out.properties[i];
        prop.verdict = Verdict::Verified, prop.method = "k-induction", prop.k = k + 1;
        solver.add(premise[i]);  // an invariant now: every later question may assume it
      };
      std::vector<std::size_t> still;
      for (std::size_t i = 0; i < predicates.size(); ++i) {
        if (!open(i) || !is_always(i)) continue;
        const auto r = ask(solver, fails_at_end(i), {step->simple(), premise[i]});
        if (unknown(r)) break;
        if (r == z3::unsat) {
          proven(i);
        } else {
          still.push_back(i);
          const auto m = solver.get_model();
          step_failures[i] = SmtPath<State>{step->states_of(m), step->actions_of(m)};
        }
      }
      // Together they may be inductive where none is alone: assume every open one, ask for any.
      if (out.incomplete_reason.empty() && still.size() > 1) {
        z3::expr_vector any(ctx);
        std::vector<z3::expr> assumed{step->simple()};
        for (auto i : still) any.push_back(fails_at_end(i)), assumed.push_back(premise[i]);
        const auto r = ask(solver, z3::mk_or(any), assumed);
        if (!unknown(r) && r == z3::unsat)
          for (auto i : still) proven(i);
      }
    }
    if (!out.incomplete_reason.empty()) break;
    bool all = true;
    for (std::size_t i = 0; i < predicates.size(); ++i) all = all && !open(i);
    if (all) break;
    // Is there a simple path of k + 1 steps at all? If not, depths 0..k held every reachable state.
    path.extend();
    const auto any = ask(base, ctx.bool_val(true), {path.simple()});
    if (unknown(any)) break;
    if (any == z3::unsat) {
      complete = true;
      break;
    }
    if (k >= limits.max_depth) {
      out.incomplete_reason = fmt::format("max-depth {}", limits.max_depth);
      break;
    }
    if (auto why = clock.stop_reason(); !why.empty()) {
      out.incomplete_reason = why;
      break;
    }
  }
  if (complete)
    for (auto& prop : out.properties) {
      if (prop.verdict != Verdict::Incomplete) continue;
      // Every reachable state checked: an always property holds, a sometimes one never does.
      prop.verdict =
          prop.kind == model::PropertyKind::Always ? Verdict::Verified : Verdict::Violated;
      prop.method = "bmc-complete";
      prop.k = out.explored_depth + 1;
    }
  // The first property still open shows its last failing step: what the user's invariant must rule
  // out.
  for (std::size_t i = 0; i < predicates.size() && !out.induction_counterexample; ++i)
    if (open(i) && step_failures[i])
      out.induction_counterexample.emplace(predicates[i].name, std::move(*step_failures[i]));
  out.seconds = clock.seconds();
  return out;
}

}  // namespace kmc::checker
