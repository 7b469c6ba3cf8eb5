#include "counterexamples/pipeline.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "checker/confirm.hpp"
#include "checker/fairness_plan.hpp"
#include "counterexamples/itf.hpp"
#include "counterexamples/scenario_id.hpp"
#include "counterexamples/token.hpp"
#include "invariants/multikueue_registry.hpp"
#include "model/checked.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

namespace {

using protocols::MultiKueue;

[[noreturn]] void request_error(const std::string& field, const std::string& message) {
  throw model::InputError(model::Diagnostic{{}, field, message});
}

std::string summarize(const protocols::MkParams& p) {
  static const char* dispatchers[] = {"AllAtOnce", "Incremental", "CapacitySnapshot"};
  std::string d = dispatchers[static_cast<int>(p.dispatcher)];
  if (p.dispatcher == protocols::Dispatcher::CapacitySnapshot) d += p.pin ? " (pinning)" : " (eligible until admitted)";
  if (p.dispatcher == protocols::Dispatcher::Incremental) d += fmt::format(" (stepSize {})", p.step_size);
  return fmt::format("MultiKueue: {} job{}, {} workers ({}), dispatcher {}, select on {}", p.J(), p.J() == 1 ? "" : "s",
                     p.W(), fmt::join(p.workers, ", "), d, p.wait_for_admitted ? "Admitted" : "QuotaReserved");
}

std::vector<std::string> descriptions(const std::vector<invariants::MkProperty>& props, const checker::Result& r) {
  std::vector<std::string> out;
  for (const auto& pr : r.properties)
    for (const auto& p : props)
      if (p.name() == pr.name) out.push_back(p.description());
  return out;
}

// Everything that follows a violation's path: its trace and token, in the
// protocol the path belongs to (the reduced one when shrinking left entities out).
void attach_trace(CheckOutcome& o, const MultiKueue& mk, const checker::Violation& v) {
  o.trace = make_trace(mk, v.path);
  o.trace->property = v.property;
  o.trace->detail = v.detail;
  o.trace->loop = v.loop;
  o.token = format_token(Token{scenario_id(mk), v.property, v.subject, v.path});
}

struct Run {
  const model::Scenario& sc;
  const CheckRequest& req;
  std::function<protocols::MkParams(const model::Scenario&)> compile;

  checker::CheckOptions options_for(const MultiKueue& mk, std::vector<std::string> properties) const {
    auto o = search_options(req, sc.fleet.check);
    o.properties = std::move(properties);
    checker::plan_fairness(mk, sc.fleet.fairness, o);
    return o;
  }

  // A token's path re-checked by checker/confirm.hpp, under this scenario's fairness.
  void replay_token(const MultiKueue& mk, const std::vector<invariants::MkProperty>& props, CheckOutcome& o) const {
    std::string why;
    auto token = parse_token(req.replay_token, why);
    if (!token) request_error("--replay", why);
    if (token->scenario != scenario_id(mk))
      request_error("--replay", "the token was made for another scenario (or an older version of this one)");
    const invariants::MkProperty* prop = nullptr;
    for (const auto& p : props)
      if (p.name() == token->property) prop = &p;
    if (!prop) request_error("--replay", "no property " + token->property);
    std::optional<checker::Confirmed> confirmed;
    std::vector<MultiKueue::State> states;
    try {
      states = checker::replay(mk, token->path);
      confirmed = checker::confirm_violation(mk, *prop, token->subject,
                                             options_for(mk, {prop->name()}).fairness_plan(), token->path);
    } catch (const std::out_of_range& e) {
      request_error("--replay", std::string("the token does not fit this scenario: ") + e.what());
    }
    o.token_replayed = true;
    o.result.verdict = confirmed ? checker::Verdict::Violated : checker::Verdict::Verified;
    o.result.properties.push_back({prop->name(), prop->kind(), o.result.verdict});
    o.descriptions = {prop->description()};
    o.trace = make_trace(mk, token->path);
    o.trace->property = prop->name();
    if (model::is_liveness(prop->kind())) o.trace->loop = checker::loop_start(mk, states);
    if (!confirmed) return;
    auto& v = o.result.violation.emplace(checker::Violation{prop->name(), prop->kind(), confirmed->shape, token->path,
                                                            checker::story(confirmed->shape, prop->kind()),
                                                            token->subject, confirmed->loop});
    if (prop->explains() && token->subject >= 0)  // where the checker words it: the stuck state, the loop's start
      v.detail = prop->explain(states[v.loop.value_or(states.size() - 1)], token->subject);
    o.trace->detail = v.detail;
    o.token = req.replay_token;
  }

  // Shrinks the violation in o (shrink.hpp). Jobs and workers are left out
  // only with shrink_scenario: a token for a reduced scenario cannot replay
  // against the folder the user gave, so the reduced scenario must be written
  // somewhere, and writing files nobody asked for (or re-checking once per
  // job and worker on a large fleet) is not a default.
  MkShrunk shrink(const MultiKueue& mk, CheckOutcome& o) const {
    std::error_code ec;
    const std::string& dir = req.shrink_scenario;
    if (!dir.empty() && std::filesystem::exists(dir, ec) && !std::filesystem::is_empty(dir, ec))
      request_error("--shrink-scenario", dir + " must be a new or empty folder");
    MkShrinkOptions so;
    so.drop_entities = !dir.empty();
    so.compile = compile;
    so.options = [this, &o](const MultiKueue& reduced) { return options_for(reduced, {o.result.violation->property}); };
    auto s = shrink_multikueue(sc, mk, *o.result.violation, so);
    o.result.violation = s.violation;
    o.shrink = s.report;
    if (!s.reduction.empty()) {
      write_reduced_scenario(sc, s.reduction, dir);
      if (scenario_id(MultiKueue(compile(model::load_scenario(dir)))) != scenario_id(s.protocol))
        request_error("--shrink-scenario", "the folder written to " + dir + " does not load as the reduced scenario");
      o.replay_dir = dir;
    }
    return s;
  }

  // The violation's trace, in memory, re-executed by the reference engine
  // against the scenario its token is for.
  void replay_in_engine(CheckOutcome& o, const protocols::MkParams& p) const {
    if (!o.trace || !o.result.violation || o.token.empty()) return;
    if (o.replay_dir.empty()) {
      o.engine = cx::replay_in_engine(sc, p, *o.trace, o.token);
      return;
    }
    const model::Scenario reduced = model::load_scenario(o.replay_dir);
    o.engine = cx::replay_in_engine(reduced, compile(reduced), *o.trace, o.token);
  }
};

}  // namespace

checker::CheckOptions search_options(const CheckRequest& r, const model::CheckSpec& spec) {
  checker::CheckOptions o;
  o.max_depth = r.max_depth.value_or(spec.max_depth);
  o.max_states = r.max_states.value_or(static_cast<std::uint64_t>(spec.max_states));
  o.time_limit_s = r.time_limit_s.value_or(spec.time_limit_s);
  o.threads = r.threads;
  o.progress = r.progress;
  return o;
}

CheckOutcome check_multikueue(const model::Scenario& sc, const CheckRequest& req) {
  const Run run{sc, req, req.compile ? req.compile : [](const model::Scenario& s) { return protocols::compile_multikueue(s); }};
  if (req.warn)  // before compiling, which may refuse the scenario
    for (const auto& w : sc.warnings) req.warn(w);
  const MultiKueue mk(run.compile(sc));
  const auto props = invariants::multikueue_properties(mk);
  invariants::require_known_properties(mk, sc.fleet.check.properties, sc.fleet.check.pos, "check.properties");
  invariants::require_known_properties(mk, req.properties, {}, "--property");
  CheckOutcome o;
  o.scenario = sc.dir;
  o.summary = summarize(mk.params());
  o.warnings = sc.warnings;
  o.warnings.insert(o.warnings.end(), mk.params().warnings.begin(), mk.params().warnings.end());
  if (req.warn)
    for (const auto& w : mk.params().warnings) req.warn(w);
  if (!req.replay_token.empty()) {
    run.replay_token(mk, props, o);
  } else {
    auto names = !req.properties.empty()                  ? req.properties
                 : !sc.fleet.check.properties.empty() ? sc.fleet.check.properties
                                                          : invariants::default_properties(mk);
    o.result = checker::Bfs(model::Checked<MultiKueue>{mk, props}, run.options_for(mk, std::move(names))).run();
    o.descriptions = descriptions(props, o.result);
    const auto& v = o.result.violation;
    if (v && (!v->path.choices.empty() || v->loop)) {
      if (req.shrink) {
        const auto shrunk = run.shrink(mk, o);
        attach_trace(o, shrunk.protocol, *o.result.violation);  // the reduced scenario's, when reduced
      } else {
        attach_trace(o, mk, *v);
      }
    }
  }
  if (req.replay_engine) run.replay_in_engine(o, mk.params());
  return o;
}

}  // namespace kmc::cx
