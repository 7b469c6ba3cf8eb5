// `kmc check DIR`: a scenario against its properties.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "checker/bfs.hpp"
#include "checker/confirm_stuck.hpp"
#include "cli/check_report.hpp"
#include "cli/fairness.hpp"
#include "cli/commands.hpp"
#include "checker/confirm_lasso.hpp"
#include "counterexamples/engine_replay.hpp"
#include "counterexamples/itf.hpp"
#include "counterexamples/scenario_id.hpp"
#include "counterexamples/shrink.hpp"
#include "counterexamples/timeline.hpp"
#include "counterexamples/token.hpp"
#include "invariants/multikueue_registry.hpp"
#include "model/checked.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cli {

namespace {

struct CheckArgs {
  std::string dir;
  std::vector<std::string> properties;
  int max_depth = -2;  // -2: not given on the command line
  std::int64_t max_states = -1;
  double time_limit_s = -1;
  int threads = 1;
  std::string output = "text";
  std::string trace_out;
  std::string replay;
  bool replay_engine = false;    // re-execute the violation in the reference engine
  bool no_shrink = false;        // print the checker's own (BFS) trace
  std::string shrink_scenario;   // also leave out jobs and workers; write the reduced scenario here
};

[[noreturn]] void usage_error(const std::string& message) {
  throw model::InputError(model::Diagnostic{{}, "", message});
}

std::string summarize(const protocols::MkParams& p) {
  static const char* dispatchers[] = {"AllAtOnce", "Incremental", "CapacitySnapshot"};
  std::string d = dispatchers[static_cast<int>(p.dispatcher)];
  if (p.dispatcher == protocols::Dispatcher::CapacitySnapshot) d += p.pin ? " (pinning)" : " (eligible until admitted)";
  if (p.dispatcher == protocols::Dispatcher::Incremental) d += fmt::format(" (stepSize {})", p.step_size);
  return fmt::format("MultiKueue: {} job{}, {} workers ({}), dispatcher {}, select on {}", p.J(), p.J() == 1 ? "" : "s",
                     p.W(), fmt::join(p.workers, ", "), d, p.wait_for_admitted ? "Admitted" : "QuotaReserved");
}

// Named properties, else kmc.yaml's, else the registry's defaults.
std::vector<std::string> selected(const CheckArgs& a, const model::CheckSpec& spec, const protocols::MultiKueue& mk) {
  if (!a.properties.empty()) return a.properties;
  if (!spec.properties.empty()) return spec.properties;
  return invariants::default_properties(mk);
}

checker::CheckOptions options_for(const CheckArgs& a, const model::CheckSpec& spec) {
  checker::CheckOptions o;
  o.max_depth = a.max_depth != -2 ? a.max_depth : spec.max_depth;
  o.max_states = a.max_states >= 0 ? static_cast<std::uint64_t>(a.max_states) : static_cast<std::uint64_t>(spec.max_states);
  o.time_limit_s = a.time_limit_s >= 0 ? a.time_limit_s : spec.time_limit_s;
  o.threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.progress = [](const checker::Progress& p) {
    if (p.seconds < 1.0) return;  // only runs over a second report progress
    fmt::print(stderr, "progress: {} states, {} transitions, depth {}, {:.0f} states/s\n", p.states, p.transitions,
               p.depth, p.seconds > 0 ? p.states / p.seconds : 0.0);
  };
  return o;
}

std::vector<std::string> descriptions(const std::vector<invariants::MkProperty>& props, const checker::Result& r) {
  std::vector<std::string> out;
  for (const auto& pr : r.properties)
    for (const auto& p : props)
      if (p.name == pr.name) out.push_back(p.description);
  return out;
}

// --replay-engine: the violation's trace, as written to --trace-out, re-executed
// by the reference engine against the scenario its token is for (the reduced
// one when shrinking left jobs or workers out).
std::optional<cx::EngineReplay> replay_in_engine(const CheckOutcome& o, const model::Scenario& sc, const protocols::MkParams& p) {
  if (!o.trace || !o.result.violation || o.token.empty()) return std::nullopt;
  const cx::ItfDocument itf = cx::parse_itf("<kmc check>", cx::to_itf(*o.trace, o.token_dir(), o.token).dump(2));
  if (o.replay_dir.empty()) return cx::replay_in_engine(sc, p, itf);
  const model::Scenario reduced = model::load_scenario(o.replay_dir);
  return cx::replay_in_engine(reduced, protocols::compile_multikueue(reduced), itf);
}

int emit(const CheckArgs& a, CheckOutcome& o, const model::Scenario& sc, const protocols::MkParams& p) {
  if (!a.trace_out.empty() && o.trace) {
    std::ofstream f(a.trace_out);
    if (!f) usage_error("cannot write --trace-out " + a.trace_out);
    f << cx::itf_text(cx::to_itf(*o.trace, o.token_dir(), o.token)) << "\n";
  }
  const auto engine = a.replay_engine ? replay_in_engine(o, sc, p) : std::nullopt;
  if (a.output == "json") {
    auto j = render_json(o);
    if (engine) j["engineReplay"] = cx::to_json(*engine);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << render_text(o);
    if (engine) std::cout << "\n" << cx::to_text(*engine);
  }
  return exit_code_of(o.result.verdict);
}

int replay_token(const CheckArgs& a, const model::Scenario& sc, const protocols::MultiKueue& mk,
                 const std::vector<invariants::MkProperty>& props, CheckOutcome& o) {
  std::string why;
  auto token = cx::parse_token(a.replay, why);
  if (!token) usage_error("--replay: " + why);
  if (token->scenario != cx::scenario_id(mk)) usage_error("--replay: the token was made for another scenario (or an older version of this one)");
  const invariants::MkProperty* prop = nullptr;
  for (const auto& p : props)
    if (p.name == token->property) prop = &p;
  if (!prop) usage_error("--replay: no property " + token->property);
  std::vector<protocols::MultiKueue::State> states;
  try {
    states = checker::replay(mk, token->path);
  } catch (const std::out_of_range& e) {
    usage_error(std::string("--replay: the token does not fit this scenario: ") + e.what());
  }
  bool violated = false;
  std::optional<std::size_t> loop;
  if (prop->kind == model::PropertyKind::LeadsTo) {
    // The loop starts at the first state equal to the last (or the last
    // itself: a stutter); the goal must fail from the premise state on.
    const auto last = mk.fingerprint(states.back());
    loop = states.size() - 1;
    for (std::size_t i = 0; i + 1 < states.size(); ++i)
      if (mk.fingerprint(states[i]) == last) { loop = i; break; }
    bool premise = false, goal = false;
    for (const auto& s : states) {
      premise = premise || prop->premise(s, token->subject);
      goal = goal || (premise && prop->goal(s, token->subject));
    }
    violated = premise && !goal;
  }
  if (prop->kind == model::PropertyKind::RecurrenceFree) {
    loop = checker::loop_start(mk, states);
    violated = checker::confirm_recurrence(mk, states, *prop, token->subject);
  }
  if (prop->kind == model::PropertyKind::Always) violated = !prop->holds(states.back());
  if (prop->kind == model::PropertyKind::StuckFree)
    violated = checker::confirm_stuck(mk, states.back(), *prop, token->subject) == checker::StuckCheck::Stuck;
  o.result.verdict = violated ? checker::Verdict::Violated : checker::Verdict::Verified;
  o.result.properties.push_back({prop->name, prop->kind, o.result.verdict});
  o.descriptions = {prop->description};
  o.trace = cx::make_trace(mk, token->path);
  o.trace->property = prop->name;
  o.trace->loop = loop;
  if (violated) {
    o.result.violation = checker::Violation{prop->name, prop->kind, token->path, "", token->subject, loop};
    if (prop->explain && token->subject >= 0) o.result.violation->detail = prop->explain(states.back(), token->subject);
    o.trace->detail = o.result.violation->detail;
    o.token = a.replay;
  }
  o.summary += violated ? "\nReplayed the token: the violation reproduces." : "\nReplayed the token: the property holds at its end; the violation does not reproduce.";
  return emit(a, o, sc, mk.params());
}

// Shrinks the violation in o (cx/shrink.hpp). Jobs and workers are left out
// only with --shrink-scenario DIR: a token for a reduced scenario cannot
// replay against the folder the user gave, so the reduced scenario must be
// written somewhere, and writing files nobody asked for (or re-checking once
// per job and worker on a large fleet) is not a default.
std::optional<cx::MkShrunk> shrink(const CheckArgs& a, const model::Scenario& sc, const protocols::MultiKueue& mk,
                                   CheckOutcome& o) {
  if (a.no_shrink) return std::nullopt;
  std::error_code ec;
  if (!a.shrink_scenario.empty() && std::filesystem::exists(a.shrink_scenario, ec) && !std::filesystem::is_empty(a.shrink_scenario, ec))
    usage_error("--shrink-scenario " + a.shrink_scenario + " must be a new or empty folder");
  cx::MkShrinkOptions so;
  so.drop_entities = !a.shrink_scenario.empty();
  so.options = [&](const protocols::MultiKueue& reduced) {
    auto opts = options_for(a, sc.fleet.check);
    plan_fairness(reduced, sc.fleet, opts);
    return opts;
  };
  auto s = cx::shrink_multikueue(sc, mk, *o.result.violation, so);
  o.result.violation = s.violation;
  o.shrink = s.report;
  if (!s.reduction.empty()) {
    cx::write_reduced_scenario(sc, s.reduction, a.shrink_scenario);
    if (cx::scenario_id(protocols::MultiKueue(protocols::compile_multikueue(model::load_scenario(a.shrink_scenario)))) != cx::scenario_id(s.protocol))
      usage_error("--shrink-scenario: the folder written to " + a.shrink_scenario + " does not load as the reduced scenario");
    o.replay_dir = a.shrink_scenario;
  }
  return s;
}

int run_check(const CheckArgs& a) {
  if (a.output != "text" && a.output != "json") usage_error("--output must be text or json");
  const model::Scenario sc = model::load_scenario(a.dir);
  for (const auto& w : sc.warnings) fmt::print(stderr, "warning: {}\n", w.to_string());
  const protocols::MultiKueue mk(protocols::compile_multikueue(sc));
  for (const auto& w : mk.params().warnings) fmt::print(stderr, "warning: {}\n", w.to_string());
  auto props = invariants::multikueue_properties(mk);
  invariants::require_known_properties(mk, sc.fleet.check.properties, sc.fleet.check.pos, "check.properties");
  invariants::require_known_properties(mk, a.properties, {}, "--property");
  CheckOutcome o;
  o.scenario = a.dir;
  o.summary = summarize(mk.params());
  o.warnings = sc.warnings;
  o.warnings.insert(o.warnings.end(), mk.params().warnings.begin(), mk.params().warnings.end());
  if (!a.replay.empty()) return replay_token(a, sc, mk, props, o);

  const model::Checked<protocols::MultiKueue> checked{mk, props};
  auto options = options_for(a, sc.fleet.check);
  options.properties = selected(a, sc.fleet.check, mk);
  plan_fairness(mk, sc.fleet, options);
  o.result = checker::Bfs(checked, options).run();
  o.descriptions = descriptions(props, o.result);
  if (o.result.violation && (!o.result.violation->path.choices.empty() || o.result.violation->loop)) {
    const auto shrunk = shrink(a, sc, mk, o);
    const protocols::MultiKueue& shown = shrunk ? shrunk->protocol : mk;  // the reduced scenario's, when reduced
    const auto& v = *o.result.violation;
    o.trace = cx::make_trace(shown, v.path);
    o.trace->property = v.property;
    o.trace->detail = v.detail;
    o.trace->loop = v.loop;
    o.token = cx::format_token(cx::Token{cx::scenario_id(shown), v.property, v.subject, v.path});
  }
  return emit(a, o, sc, mk.params());
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand("check", "Check a scenario folder against its properties");
  cmd->add_option("dir", args->dir, "Scenario folder (kmc.yaml, manager/, workers/<cluster>/)")->required();
  cmd->add_option("--property", args->properties, "Check only this property (repeatable)");
  cmd->add_option("--max-depth", args->max_depth, "Stop after this many steps (Incomplete, never Verified)");
  cmd->add_option("--max-states", args->max_states, "Stop after storing this many states");
  cmd->add_option("--time-limit", args->time_limit_s, "Stop after this many seconds");
  cmd->add_option("--threads", args->threads, "Worker threads (0: all cores); results do not depend on it");
  cmd->add_option("--output", args->output, "text or json");
  cmd->add_option("--trace-out", args->trace_out, "Write the counterexample as ITF JSON to this file");
  cmd->add_option("--replay", args->replay, "Re-run the path of a replay token printed by an earlier check");
  cmd->add_flag("--replay-engine", args->replay_engine,
                "Re-execute the violation in the reference admission engine: Reproduced or Diverged (kmc replay)");
  cmd->add_flag("--no-shrink", args->no_shrink, "Print and save the checker's own (shortest-by-BFS) trace, unshrunk");
  cmd->add_option("--shrink-scenario", args->shrink_scenario,
                  "Also leave out the jobs and workers the violation does not need; write that scenario to this new folder")
      ->excludes("--no-shrink");
  cmd->callback([args, &exit_code] {
    try {
      exit_code = run_check(*args);
    } catch (const model::InputError& e) {
      fmt::print(stderr, "error: {}\n", e.what());
      exit_code = 3;
    }
  });
}

}  // namespace kmc::cli
