// The generic check pipeline over any protocol instance (model/instance.hpp
// derives one from a definition): property selection, the search under the
// scenario's fairness, a replay token re-checked by checker/confirm.hpp,
// shrinking by actions and picks, the trace and its token. A protocol adds
// only what is its own through Hooks: a summary line, shrinking beyond
// actions (leaving entities out of its scenario), and its engine replay.
// counterexamples/pipeline.cpp is MultiKueue's use of it; the toy protocol
// test (tests/counterexamples/toy_protocol_test.cpp) is another.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "checker/bfs.hpp"
#include "checker/confirm.hpp"
#include "checker/fairness_plan.hpp"
#include "counterexamples/engine_merge.hpp"
#include "counterexamples/pipeline.hpp"
#include "counterexamples/scenario_id.hpp"
#include "counterexamples/shrink.hpp"
#include "counterexamples/token.hpp"
#include "counterexamples/trace.hpp"
#include "model/checked.hpp"

namespace kmc::cx {

template <class P>
using PropertiesOf = std::vector<model::Property<typename P::State>>;

struct Hooks {
  std::string summary;  // one line: the protocol and its instance
  // Shrinks o.result.violation beyond actions and picks and attaches its
  // trace and token (the reduced scenario's, when entities were left out).
  // Unset: actions and picks, in the instance checked.
  std::function<void(CheckOutcome&)> shrink;
  // Re-executes o's trace in a reference engine and sets o.engine. Unset:
  // the protocol has no engine, and --replay-engine is a usage error.
  std::function<void(CheckOutcome&)> replay_in_engine;
  // Words, in Kueue's vocabulary, why a "sometimes" property is never witnessed
  // (counterexamples/kueue_engine/why_unwitnessed.hpp). Unset: the report says only that it never
  // holds.
  std::function<std::vector<std::string>()> why_unwitnessed;
  // The SMT engines (--engine bmc|induction): the properties they decide for this protocol, and
  // a run over those a check names (counterexamples/multikueue/symbolic.hpp). Unset: the
  // protocol's rules run on explicit values only; `no_smt` says why, and explicit search decides.
  std::vector<std::string> smt_properties;
  std::function<checker::Result(const std::vector<std::string>&, checker::SmtEngine,
                                const checker::SmtLimits&)>
      smt;
  std::string no_smt = "this protocol's rules run on explicit values only";
  // What each action reads and writes (checker/footprints.hpp), for partial-order reduction.
  // Unset: the protocol's rules run on explicit values only, and no reduction runs.
  std::function<std::shared_ptr<const model::Footprints>()> footprints;
};

// Bounded model checking's last depth, and k-induction's largest k, when neither --max-depth
// nor kmc.yaml's check.maxDepth gives one: a bound is always reported, never silent.
inline constexpr int kDefaultSmtDepth = 20;

template <class P>
checker::CheckOptions options_for(const P& p, const model::Scenario& sc, const CheckRequest& req,
                                  std::vector<std::string> properties) {
  auto o = search_options(req, sc.fleet.check);
  o.stop = req.stop;
  o.properties = std::move(properties);
  checker::plan_fairness(p, sc.fleet, o);
  return o;
}

// A violation's trace and token, in the instance its path belongs to.
template <Describable P>
void attach_trace(CheckOutcome& o, const P& p, const checker::Violation& v) {
  o.trace = make_trace(p, v.path);
  o.trace->property = v.property;
  o.trace->detail = v.detail;
  o.trace->loop = v.loop;
  o.token = format_token(Token{scenario_id(p), v.property, v.subject, v.path});
}

// A token's path re-checked by checker/confirm.hpp, under this scenario's fairness.
template <Describable P>
void replay_token(const P& p, const PropertiesOf<P>& props, const model::Scenario& sc,
                  const CheckRequest& req, CheckOutcome& o) {
  auto fail = [](const std::string& why) { throw model::InputError({}, "--replay", why); };
  std::string why;
  auto token = parse_token(req.replay_token, why);
  if (!token) fail(why);
  if (token->scenario != scenario_id(p))
    fail("the token was made for another scenario (or an older version of this one)");
  auto prop = std::find_if(props.begin(), props.end(),
                           [&](const auto& q) { return q.name() == token->property; });
  if (prop == props.end()) fail("no property " + token->property);
  std::optional<checker::Confirmed> confirmed;
  std::vector<typename P::State> states;
  try {
    states = checker::replay(p, token->path);
    const auto plan = options_for(p, sc, req, {prop->name()}).fairness_plan();
    confirmed = checker::confirm_violation(p, *prop, token->subject, plan, token->path);
  } catch (const std::out_of_range& e) {
    fail(std::string("the token does not fit this scenario: ") + e.what());
  }
  o.token_replayed = true;
  o.result.verdict = confirmed ? checker::Verdict::Violated : checker::Verdict::Verified;
  o.result.properties.push_back({prop->name(), prop->kind(), o.result.verdict});
  o.descriptions = {prop->description()};
  o.trace = make_trace(p, token->path);
  o.trace->property = prop->name();
  if (model::is_liveness(prop->kind())) o.trace->loop = checker::loop_start(p, states);
  if (!confirmed) return;
  auto& v = o.result.violation.emplace(checker::Violation{
      prop->name(), prop->kind(), confirmed->shape, token->path,
      checker::story(confirmed->shape, prop->kind()), token->subject, confirmed->loop});
  if (prop->explains() &&
      token->subject >= 0)  // where the checker words it: the stuck state, the loop's start
    v.detail = prop->explain(states[v.loop.value_or(states.size() - 1)], token->subject);
  o.trace->detail = v.detail;
  o.token = req.replay_token;
}

// The search's violation shrunk (unless the request says not to) and its trace and token attached.
template <Describable P>
void shrink_and_attach(CheckOutcome& o, const P& p, const PropertiesOf<P>& props,
                       const model::Scenario& sc, const CheckRequest& req, const Hooks& hooks) {
  const auto& v = o.result.violation;
  if (req.shrink && hooks.shrink) {
    hooks.shrink(o);
  } else if (req.shrink) {
    const auto& prop = *std::find_if(props.begin(), props.end(),
                                     [&](const auto& q) { return q.name() == v->property; });
    auto s = shrink_violation(p, prop, *v, options_for(p, sc, req, {v->property}).fairness_plan());
    o.result.violation = s.violation;
    o.shrink = s.report;
    attach_trace(o, p, *o.result.violation);
  } else {
    attach_trace(o, p, *v);
  }
}

// Shrinking ran out of memory (it replays and re-checks many paths, and may
// search reduced scenarios): the search's own violation stands, with the
// checker's (shortest-by-BFS) trace, and a warning says so.
template <Describable P>
void unshrunk(CheckOutcome& o, const P& p, const CheckRequest& req,
              const checker::Violation& found) {
  checker::release_reserve();
  o.shrink.reset(), o.replay_dir.clear(), o.trace.reset(), o.token.clear();
  o.result.violation = found;
  attach_trace(o, p, found);
  model::Diagnostic d;
  d.field = "shrink";
  d.message = "out of memory while shrinking; the trace is the checker's own, unshrunk";
  if (req.warn) req.warn({d});
}

// The search a request asks for: explicit, or an SMT engine for what it decides and explicit
// search for the rest (counterexamples/engine_merge.hpp).
template <Describable P>
checker::Result search(const P& p, const PropertiesOf<P>& props, const model::Scenario& sc,
                       const CheckRequest& req, const Hooks& hooks,
                       std::vector<std::string> names) {
  // Footprints cost a symbolic pass over the rules: only for a search that may use them.
  auto with_footprints = [&](checker::CheckOptions o) {
    if (req.por && hooks.footprints) o.footprints = hooks.footprints();
    return o;
  };
  if (!req.smt)
    return checker::Bfs(model::Checked<P>{p, props},
                        with_footprints(options_for(p, sc, req, names)))
        .run();
  const auto split =
      split_engines(names, hooks.smt ? hooks.smt_properties : std::vector<std::string>{});
  checker::Result smt;
  if (!split.smt.empty()) {
    const auto bounds = search_options(req, sc.fleet.check);
    checker::SmtLimits limits;
    limits.max_depth = bounds.max_depth >= 0 ? bounds.max_depth : kDefaultSmtDepth;
    limits.time_limit_s = bounds.time_limit_s;
    limits.stop = req.stop;
    smt = hooks.smt(split.smt, *req.smt, limits);
  }
  std::optional<checker::Result> expl;
  std::vector<checker::PropertyResult> skipped;
  if (!split.fallback.empty() && smt.violation) {
    for (const auto& name : split.fallback)
      for (const auto& q : props)
        if (q.name() == name) skipped.push_back({name, q.kind(), checker::Verdict::Incomplete});
  } else if (!split.fallback.empty()) {
    auto o = with_footprints(options_for(p, sc, req, split.fallback));
    o.time_limit_s = std::max(1.0, o.time_limit_s - smt.stats.seconds);  // one limit for the run
    expl = checker::Bfs(model::Checked<P>{p, props}, std::move(o)).run();
  }
  const std::string why = hooks.smt ? "stuck-freedom and liveness are graph properties, decided "
                                      "on the whole state graph"
                                    : hooks.no_smt;
  return merge_engines(names, *req.smt, std::move(smt), std::move(expl), skipped, why);
}

template <Describable P>
CheckOutcome check_instance(const P& p, const PropertiesOf<P>& props, const model::Scenario& sc,
                            const CheckRequest& req, const Hooks& hooks) {
  model::require_known(props, sc.fleet.check.properties, sc.fleet.check.pos, "check.properties");
  model::require_known(props, req.properties, {}, "--property");
  if (req.replay_engine && !hooks.replay_in_engine)
    throw model::InputError({}, "--replay-engine",
                            "this protocol has no reference engine to replay in");
  CheckOutcome o;
  o.scenario = sc.dir;
  o.summary = hooks.summary;
  o.has_engine = static_cast<bool>(hooks.replay_in_engine);
  if (!req.replay_token.empty()) {
    replay_token(p, props, sc, req, o);
  } else {
    auto names = !req.properties.empty()              ? req.properties
                 : !sc.fleet.check.properties.empty() ? sc.fleet.check.properties
                                                      : model::default_properties(props);
    const bool from_command_line = !req.properties.empty();
    try {
      o.result = search(p, props, sc, req, hooks, std::move(names));
    } catch (const checker::SubjectLimit& e) {
      throw model::InputError(from_command_line ? model::SourcePos{} : sc.fleet.check.pos,
                              from_command_line ? "--property" : "check.properties", e.what());
    }
    for (const auto& r : o.result.properties)
      for (const auto& q : props)
        if (q.name() == r.name) o.descriptions.push_back(q.description());
    const auto& v = o.result.violation;
    const bool has_path = v && v->shape != checker::Shape::Unwitnessed;
    if (v && v->shape == checker::Shape::Unwitnessed && hooks.why_unwitnessed)
      o.why = hooks.why_unwitnessed();
    if (has_path && v->path.choices.empty() && !v->loop) {
      // Violated in an initial state: nothing to shrink, but the state is the trace, and its
      // token replays it (issue 12f: a depth-0 violation printed neither).
      attach_trace(o, p, *v);
    } else if (has_path) {
      const checker::Violation found = *v;  // what stands if shrinking runs out of memory
      try {
        shrink_and_attach(o, p, props, sc, req, hooks);
      } catch (const std::bad_alloc&) {
        unshrunk(o, p, req, found);
      }
    }
  }
  if (req.replay_engine) hooks.replay_in_engine(o);
  return o;
}

}  // namespace kmc::cx
