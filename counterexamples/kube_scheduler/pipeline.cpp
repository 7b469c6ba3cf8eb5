#include "counterexamples/kube_scheduler/pipeline.hpp"

#include <fmt/format.h>

#include "counterexamples/kube_scheduler/symbolic.hpp"
#include "counterexamples/pipeline_core.hpp"
#include "invariants/kube_scheduler_registry.hpp"

namespace kmc::cx {

CheckOutcome check_kube_scheduler(const model::Scenario& sc, const CheckRequest& req) {
  // Without Kueue a Job needs no queue: the loader's warnings that Kueue
  // would leave a Job alone, or never admit it, say nothing here.
  model::Warnings warnings;
  for (const auto& w : sc.warnings)
    if (w.message.find("no queue name") == std::string::npos &&
        w.message.find("Kueue does not manage it") == std::string::npos)
      warnings.push_back(w);
  if (req.warn) req.warn(warnings);
  const protocols::ks::Instance ks(protocols::ks::compile_kube_scheduler(sc));
  Hooks hooks;
  hooks.smt_properties = kube_scheduler_smt_properties(ks);
  hooks.smt = [&](const std::vector<std::string>& names, checker::SmtEngine engine,
                  const checker::SmtLimits& limits) {
    return check_kube_scheduler_smt(ks, names, engine, limits);
  };
  hooks.summary = fmt::format("kube-scheduler without Kueue: {} Job{} on {} node{} ({})",
                              ks.params().J(), ks.params().J() == 1 ? "" : "s", ks.params().N(),
                              ks.params().N() == 1 ? "" : "s", fmt::join(ks.params().nodes, ", "));
  auto o = check_instance(ks, invariants::kube_scheduler_properties(ks), sc, req, hooks);
  o.warnings = warnings;
  return o;
}

}  // namespace kmc::cx
