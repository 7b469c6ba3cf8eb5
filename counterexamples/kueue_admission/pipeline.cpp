#include "counterexamples/kueue_admission/pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "counterexamples/kueue_admission/engine_replay.hpp"
#include "counterexamples/kueue_engine/why_unwitnessed.hpp"
#include "counterexamples/pipeline_core.hpp"
#include "invariants/admission_registry.hpp"

namespace kmc::cx {

namespace {

std::string summarize(const protocols::ka::AdmissionParams& p) {
  std::vector<std::string> cqs;
  for (const auto& q : p.cqs) cqs.push_back(q.quota.name);
  return fmt::format("Kueue admission: {} workload{}, {} ClusterQueue{} ({}), {} cohort{}", p.W(),
                     p.W() == 1 ? "" : "s", p.Q(), p.Q() == 1 ? "" : "s", fmt::join(cqs, ", "),
                     p.C(), p.C() == 1 ? "" : "s");
}

}  // namespace

CheckOutcome check_kueue_admission(const model::Scenario& sc, const CheckRequest& req) {
  if (req.warn) req.warn(sc.warnings);  // before compiling, which may refuse the scenario
  const protocols::ka::Instance ka(protocols::ka::compile_admission(sc));
  if (req.warn) req.warn(ka.params().warnings);
  model::Warnings left_out;
  // The guard some-preemption where the scenario cannot decide it: named, it
  // is refused with the reason; among the defaults, a warning says it is left out.
  if (const std::string why = ka.params().some_preemption_unchecked(); !why.empty()) {
    auto named = [](const std::vector<std::string>& v) {
      return std::find(v.begin(), v.end(), "some-preemption") != v.end();
    };
    const std::string what = "some-preemption cannot be checked in this scenario: " + why;
    if (named(req.properties)) throw model::InputError({}, "--property", what);
    if (req.properties.empty() && named(sc.fleet.check.properties))
      throw model::InputError(sc.fleet.check.pos, "check.properties", what);
    if (req.properties.empty() && sc.fleet.check.properties.empty() &&
        ka.params().preemption_configured())
      left_out.push_back({sc.fleet.pos, "properties", "some-preemption is not checked: " + why});
  }
  if (req.warn) req.warn(left_out);
  Hooks hooks;
  hooks.summary = summarize(ka.params());
  hooks.no_smt =
      "Kueue's scheduling cycle sorts workloads and loops over the state's values, which the SMT "
      "engines cannot unroll yet: the admission rules run on explicit values only";
  // The violation's trace, in memory, re-executed by the reference engine.
  hooks.replay_in_engine = [&](CheckOutcome& o) {
    if (!o.trace || !o.result.violation || o.token.empty()) return;
    const EngineReplay r = replay_in_engine(sc, ka.params(), *o.trace, o.token);
    o.engine = EngineReport{r.verdict == EngineReplay::Verdict::Reproduced, to_text(r), to_json(r)};
  };
  hooks.why_unwitnessed = [&] { return kueue_words({{sc.fleet.cluster_dir, sc.manager}}); };
  auto o = check_instance(ka, invariants::admission_properties(ka), sc, req, hooks);
  o.warnings = sc.warnings;
  o.warnings.insert(o.warnings.end(), ka.params().warnings.begin(), ka.params().warnings.end());
  o.warnings.insert(o.warnings.end(), left_out.begin(), left_out.end());
  return o;
}

}  // namespace kmc::cx
