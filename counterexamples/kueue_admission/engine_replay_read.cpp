// Reading a kueue-admission trace for replay: the generic ITF readers
// (multikueue/itf_read.hpp: typed cells checked against the layout's schema,
// picks against its action table) resolved to this instance's workloads, and
// the scenario a trace file belongs to.
#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "checker/fairness_plan.hpp"
#include "counterexamples/kueue_admission/engine_replay.hpp"
#include "counterexamples/kueue_admission/engine_replay_internal.hpp"
#include "counterexamples/scenario_id.hpp"
#include "counterexamples/token.hpp"
#include "model/diagnostics.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace kmc::cx {

namespace admission {

namespace {

using protocols::ka::Spec;

int line_of(const ItfDocument& d, std::size_t i) {
  return i < d.state_lines.size() ? d.state_lines[i] : 0;
}

// The cells replay compares must be there for every workload of the scenario.
void require_cells(const ItfDocument& d, const model::Cells& cells, std::size_t i,
                   const protocols::ka::AdmissionParams& p) {
  for (const auto& w : p.workloads)
    for (const char* field : {"phase", "flavor"})
      if (cells.find(field, {w.name}) == nullptr)
        throw model::InputError({d.file, line_of(d, i)}, fmt::format("states[{}].{}", i, field),
                                fmt::format("no value for {}", model::key_text(field, {w.name})));
}

}  // namespace

ReplayTrace read_trace(const ItfDocument& d, const protocols::ka::AdmissionParams& p) {
  ReplayTrace t{read_itf_meta(d), {}};
  if (!t.meta.levers.empty())
    throw model::InputError({d.file, 0}, "#meta.levers",
                            "a kueue-admission scenario has no levers (kmc matrix cells are "
                            "MultiKueue's)");
  const auto& states = d.doc.at("states");
  if (states.empty()) throw model::InputError({d.file, 0}, "states", "the trace has no states");
  if (t.meta.subject >= p.W())
    throw model::InputError({d.file, 0}, "#meta.replay",
                            "the token's subject is not a workload of this scenario");
  const model::Layout layout = Spec::layout(p);
  std::set<std::pair<int, std::vector<int>>> candidates;
  for (const auto& a : Spec::candidates(p)) {
    const model::ActionRef ref = Spec::ref(p, a);
    candidates.emplace(ref.kind, ref.args);
  }
  const auto fields = model::schema_of(layout);
  for (std::size_t i = 0; i < states.size(); ++i) {
    ItfRawStep raw = read_raw_step(d, i, fields);
    ReplayStep s;
    s.index = i;
    s.name = "init";
    if (i > 0) {
      const model::ActionRef ref = check_picks(d, i, raw, layout);
      s.kind = ref.kind;
      s.workload = ref.args.empty() ? -1 : ref.args.front();
      s.name = layout.actions[ref.kind].name;
      if (s.workload >= 0) s.name += "(" + p.workloads[s.workload].name + ")";
      if (!candidates.contains({ref.kind, ref.args}))
        throw model::InputError(
            {d.file, line_of(d, i)}, fmt::format("states[{}].mbt::actionTaken", i),
            fmt::format("{} is not an action of this scenario (its workloads, gates and "
                        "environment leave it out)",
                        s.name));
    }
    s.cells = std::move(raw.cells);
    require_cells(d, s.cells, i, p);
    t.steps.push_back(std::move(s));
  }
  return t;
}

Environment environment_of(const model::Scenario& sc, const protocols::ka::AdmissionParams& p) {
  const protocols::ka::Instance instance(p);
  const auto fairness = checker::fairness_for(instance, sc.fleet.fairness);
  Environment env;
  for (const auto& k : instance.layout().actions) env.kinds.push_back(k.name);
  for (const auto& a : instance.candidates())
    if (a.kind != protocols::ka::kSchedule)
      env.moves.push_back(
          {a.kind, a.workload, fairness[instance.family(a)] != checker::Fairness::None});
  return env;
}

}  // namespace admission

std::string replay_scenario_dir(const ItfDocument& itf,
                                const std::optional<std::string>& scenario_dir) {
  const ItfTrace meta = read_itf_meta(itf);
  std::string dir = scenario_dir ? *scenario_dir : meta.source;
  // A trace kept beside its scenario (the corpus) names it relative to itself.
  if (!scenario_dir && !dir.empty() && !std::filesystem::is_directory(dir)) {
    const auto beside = std::filesystem::path(itf.file).parent_path() / dir;
    if (std::filesystem::is_directory(beside)) dir = beside.string();
  }
  if (dir.empty())
    throw model::InputError({itf.file, 0}, "#meta.source",
                            "the trace names no scenario; pass --scenario DIR");
  if (!std::filesystem::is_directory(dir))
    throw model::InputError({itf.file, 0}, scenario_dir ? "--scenario" : "#meta.source",
                            fmt::format("scenario folder '{}' not found (run from where the trace "
                                        "was made, or pass --scenario DIR)",
                                        dir));
  return dir;
}

AdmissionReplayTarget load_admission_replay_target(const ItfDocument& itf, const std::string& dir) {
  AdmissionReplayTarget t{model::load_scenario(dir), {}};
  t.params = protocols::ka::compile_admission(t.scenario);
  const ItfTrace meta = read_itf_meta(itf);
  if (!meta.token.empty()) {
    std::string why;
    const auto token = parse_token(meta.token, why);
    const std::uint32_t id = scenario_id(protocols::ka::Instance(t.params));
    if (token && token->scenario != id)
      throw model::InputError(
          {itf.file, 0}, "#meta.replay",
          fmt::format("the trace was made from another scenario than {} (scenario id {:08x}, "
                      "the trace's {:08x})",
                      dir, id, token->scenario));
  }
  return t;
}

}  // namespace kmc::cx
