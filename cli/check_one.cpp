#include "cli/check_one.hpp"

#include "counterexamples/multikueue/pipeline.hpp"

namespace kmc::cli {

checker::Result check_property(const protocols::MultiKueue& mk, const model::Scenario& sc,
                               const std::string& property, double time_limit_s) {
  cx::CheckRequest req;
  req.properties = {property};
  req.max_depth = -1;
  req.time_limit_s = time_limit_s;
  req.shrink = false;  // the corpus compares the checker's own (shortest) trace with the stored one
  // The instance the caller built (levers applied).
  return cx::check_multikueue(sc, req, [&mk](const model::Scenario&) { return mk.params(); })
      .result;
}

}  // namespace kmc::cli
