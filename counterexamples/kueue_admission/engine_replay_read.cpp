// Reading a kueue-admission trace for replay: the generic ITF readers
// (multikueue/itf_read.hpp: typed cells checked against the layout's schema,
// picks against its action table) resolved to this instance's workloads, and
// the scenario a trace file belongs to.
#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "checker/fairness_plan.hpp"
#include "counterexamples/itf_cells.hpp"
#include "counterexamples/kueue_admission/engine_replay.hpp"
#include "counterexamples/kueue_admission/engine_replay_internal.hpp"
#include "counterexamples/scenario_id.hpp"
#include "counterexamples/token.hpp"
#include "model/diagnostics.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace kmc::cx {

namespace admission {

using protocols::ka::Spec;

ReplayTrace read_trace(const ItfDocument& d, const protocols::ka::AdmissionParams& p) {
  ReplayTrace t{read_itf_meta(d), {}};
  if (!t.meta.levers.empty())
    itf_error(d, "#meta.levers",
              "a kueue-admission scenario has no levers (kmc matrix cells are MultiKueue's)");
  // The token names the subject of a stuck property and the property itself.
  std::string why;
  const auto token = parse_token(t.meta.token, why);
  if (!token)
    itf_error(d, "#meta.replay",
              t.meta.token.empty() ? "expected the replay token kmc check wrote (it names the "
                                     "workload a stuck property is about)"
                                   : why);
  if (token->property != t.meta.property)
    itf_error(d, "#meta.property",
              fmt::format("is {}, but the replay token is a trace of {}", t.meta.property,
                          token->property));
  const auto& states = d.doc.at("states");
  if (states.empty()) itf_error(d, "states", "the trace has no states");
  if (t.meta.subject >= p.W())
    itf_error(d, "#meta.replay", "the token's subject is not a workload of this scenario");
  const model::Layout layout = Spec::layout(p);
  std::set<std::pair<int, std::vector<int>>> candidates;
  for (const auto& a : Spec::candidates(p)) {
    const model::ActionRef ref = Spec::ref(p, a);
    candidates.emplace(ref.kind, ref.args);
  }
  const auto fields = model::schema_of(layout);
  const CellChecker checker(layout);
  for (std::size_t i = 0; i < states.size(); ++i) {
    ItfRawStep raw = read_raw_step(d, i, fields);
    ReplayStep s;
    s.index = i;
    s.name = "init";
    if (i > 0) {
      const model::ActionRef ref = check_picks(d, i, raw, layout);
      s.kind = ref.kind;
      // ClusterQueueFinalized picks a ClusterQueue; the others a workload, a check.
      const bool picks_cq = ref.kind == protocols::ka::kClusterQueueFinalized ||
                            ref.kind == protocols::ka::kClusterQueueTerminating;
      (picks_cq ? s.cluster_queue : s.workload) = ref.args.empty() ? -1 : ref.args.front();
      s.check = ref.args.size() > 1 ? ref.args[1] : -1;
      s.name = step_name(p, layout.actions[ref.kind].name, s.workload, s.check, s.cluster_queue);
      if (!candidates.contains({ref.kind, ref.args}))
        itf_error(d, fmt::format("states[{}].mbt::actionTaken", i),
                  fmt::format("{} is not an action of this scenario (its workloads, gates and "
                              "environment leave it out)",
                              s.name));
    }
    if (const auto problem = checker.check(raw.cells))
      itf_error(d, fmt::format("states[{}].{}", i, problem->field), problem->message);
    s.cells = std::move(raw.cells);
    t.steps.push_back(std::move(s));
  }
  return t;
}

Environment environment_of(const model::Scenario& sc, const protocols::ka::AdmissionParams& p) {
  const protocols::ka::Instance instance(p);
  const auto fairness = checker::fairness_for(instance, sc.fleet.fairness);
  Environment env;
  env.manifests = &sc.manager;
  for (const auto& k : instance.layout().actions) env.kinds.push_back(k.name);
  for (const auto& a : instance.candidates())
    if (a.kind != protocols::ka::kSchedule)
      env.moves.push_back({a.kind, a.workload,
                           fairness[instance.family(a)] != checker::Fairness::None, a.check, a.cq});
  return env;
}

std::string step_name(const protocols::ka::AdmissionParams& p, const std::string& action,
                      int workload, int check, int cluster_queue) {
  if (cluster_queue >= 0) return fmt::format("{}({})", action, p.cqs[cluster_queue].quota.name);
  if (workload >= 0 && check >= 0)
    return fmt::format("{}({}, {})", action, p.workloads[workload].name, p.checks[check].name);
  if (workload >= 0) return fmt::format("{}({})", action, p.workloads[workload].name);
  return action;
}

}  // namespace admission

AdmissionReplayTarget load_admission_replay_target(const ItfDocument& itf, const std::string& dir) {
  AdmissionReplayTarget t{model::load_scenario(dir), {}};
  t.params = protocols::ka::compile_admission(t.scenario);
  const ItfTrace meta = read_itf_meta(itf);
  if (!meta.token.empty()) {
    std::string why;
    const auto token = parse_token(meta.token, why);
    const std::uint32_t id = scenario_id(protocols::ka::Instance(t.params));
    if (token && token->scenario != id)
      itf_error(itf, "#meta.replay",
                fmt::format("the trace was made from another scenario than {} (scenario id {:08x}, "
                            "the trace's {:08x})",
                            dir, id, token->scenario));
  }
  return t;
}

}  // namespace kmc::cx
