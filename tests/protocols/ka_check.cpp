#include "ka_check.hpp"

#include "counterexamples/pipeline_core.hpp"

namespace ka_check {

kmc::cx::CheckOutcome check(const kmc::protocols::ka::AdmissionParams& params,
                            std::vector<std::string> properties) {
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
