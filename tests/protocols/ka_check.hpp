// Checking hand-built kueue-admission instances in protocol tests: the CLI's
// pipeline (properties, shrinking) over the registry's properties.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "counterexamples/pipeline_core.hpp"
#include "invariants/admission_registry.hpp"
#include "model/scenario.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka_check {

// Every default property unless `properties` names some.
inline kmc::cx::CheckOutcome check(const kmc::protocols::ka::AdmissionParams& params,
                                   std::vector<std::string> properties = {}) {
  const kmc::protocols::ka::Instance p(params);
  kmc::model::Scenario sc;
  sc.dir = "hand-built";
  kmc::cx::CheckRequest req;
  req.properties = std::move(properties);
  kmc::cx::Hooks hooks;
  hooks.summary = "test";
  return kmc::cx::check_instance(p, kmc::invariants::admission_properties(p), sc, req, hooks);
}

}  // namespace ka_check
