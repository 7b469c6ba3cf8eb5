// MultiKueue's pipeline: the generic one (pipeline_core.hpp) with what is
// MultiKueue's own: its summary line, leaving jobs and workers out of the
// scenario when shrinking, and replay in the reference engine.
#include "counterexamples/multikueue/pipeline.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "counterexamples/kueue_engine/why_unwitnessed.hpp"
#include "counterexamples/multikueue/engine_replay.hpp"
#include "counterexamples/multikueue/shrink_entities.hpp"
#include "counterexamples/multikueue/symbolic.hpp"
#include "counterexamples/pipeline_core.hpp"
#include "invariants/multikueue_registry.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

namespace {

using protocols::MultiKueue;

std::string summarize(const protocols::MkParams& p) {
  static const char* dispatchers[] = {"AllAtOnce", "Incremental", "CapacitySnapshot"};
  std::string d = dispatchers[static_cast<int>(p.dispatcher)];
  if (p.dispatcher == protocols::Dispatcher::CapacitySnapshot)
    d += p.pin ? " (pinning)" : " (eligible until admitted)";
  if (p.dispatcher == protocols::Dispatcher::Incremental)
    d += fmt::format(" (stepSize {})", p.step_size);
  return fmt::format("MultiKueue: {} job{}, {} workers ({}), dispatcher {}, select on {}", p.J(),
                     p.J() == 1 ? "" : "s", p.W(), fmt::join(p.workers, ", "), d,
                     p.wait_for_admitted ? "Admitted" : "QuotaReserved");
}

// Shrinks by actions and picks, then, with shrink_scenario, by jobs and
// workers (shrink.hpp). Entities are left out only when asked: a token for
// a reduced scenario cannot replay against the folder the user gave, so the
// reduced scenario must be written somewhere, and writing files nobody asked
// for (or re-checking once per job and worker on a large fleet) is not a default.
void shrink(const model::Scenario& sc, const CheckRequest& req, const MkCompile& compile,
            const MultiKueue& mk, CheckOutcome& o) {
  std::error_code ec;
  const std::string& dir = req.shrink_scenario;
  if (!dir.empty() && std::filesystem::exists(dir, ec) && !std::filesystem::is_empty(dir, ec))
    throw model::InputError({}, "--shrink-scenario", dir + " must be a new or empty folder");
  MkShrinkOptions so;
  so.drop_entities = !dir.empty();
  so.compile = compile;
  so.options = [&](const MultiKueue& reduced) {
    return options_for(reduced, sc, req, {o.result.violation->property});
  };
  auto s = shrink_multikueue(sc, mk, *o.result.violation, so);
  o.result.violation = s.violation;
  o.shrink = s.report;
  if (!s.reduction.empty()) {
    write_reduced_scenario(sc, s.reduction, dir);
    if (scenario_id(MultiKueue(compile(model::load_scenario(dir)))) != scenario_id(s.protocol))
      throw model::InputError(
          {}, "--shrink-scenario",
          "the folder written to " + dir + " does not load as the reduced scenario");
    o.replay_dir = dir;
  }
  attach_trace(o, s.protocol, *o.result.violation);  // the reduced scenario's, when reduced
}

// The violation's trace, in memory, re-executed by the reference engine
// against the scenario its token is for.
void replay_in_engine(const model::Scenario& sc, const MkCompile& compile,
                      const protocols::MkParams& p, CheckOutcome& o) {
  if (!o.trace || !o.result.violation || o.token.empty()) return;
  const auto r = o.replay_dir.empty() ? cx::replay_in_engine(sc, p, *o.trace, o.token) : [&] {
    const model::Scenario reduced = model::load_scenario(o.replay_dir);
    return cx::replay_in_engine(reduced, compile(reduced), *o.trace, o.token);
  }();
  o.engine = EngineReport{r.verdict == EngineReplay::Verdict::Reproduced, to_text(r), to_json(r)};
}

}  // namespace

CheckOutcome check_multikueue(const model::Scenario& sc, const CheckRequest& req,
                              const MkCompile& given) {
  const MkCompile compile =
      given ? given : [](const model::Scenario& s) { return protocols::compile_multikueue(s); };
  if (req.warn) req.warn(sc.warnings);  // before compiling, which may refuse the scenario
  const MultiKueue mk(compile(sc));
  if (req.warn) req.warn(mk.params().warnings);
  Hooks hooks;
  hooks.summary = summarize(mk.params());
  hooks.shrink = [&](CheckOutcome& o) { shrink(sc, req, compile, mk, o); };
  hooks.replay_in_engine = [&](CheckOutcome& o) { replay_in_engine(sc, compile, mk.params(), o); };
  // Each worker's Kueue alone, given the manager's jobs as they would be copied there.
  hooks.why_unwitnessed = [&] {
    std::vector<std::pair<std::string, model::ClusterManifests>> clusters;
    for (std::size_t i = 0; i < sc.workers.size() && i < sc.fleet.workers.size(); ++i) {
      model::ClusterManifests worker = sc.workers[i];
      worker.workloads.insert(worker.workloads.end(), sc.manager.workloads.begin(),
                              sc.manager.workloads.end());
      clusters.emplace_back(sc.fleet.workers[i].name, std::move(worker));
    }
    return kueue_words(clusters);
  };
  hooks.smt_properties = multikueue_smt_properties(mk);
  hooks.smt = [&](const std::vector<std::string>& names, checker::SmtEngine engine,
                  const checker::SmtLimits& limits) {
    return check_multikueue_smt(mk, names, engine, limits);
  };
  hooks.footprints = [&] { return multikueue_footprints(mk); };
  auto o = check_instance(mk, invariants::multikueue_properties(mk), sc, req, hooks);
  o.warnings = sc.warnings;
  o.warnings.insert(o.warnings.end(), mk.params().warnings.begin(), mk.params().warnings.end());
  return o;
}

}  // namespace kmc::cx
