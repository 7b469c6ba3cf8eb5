#include "counterexamples/pipeline.hpp"

namespace kmc::cx {

checker::CheckOptions search_options(const CheckRequest& r, const model::CheckSpec& spec) {
  checker::CheckOptions o;
  o.max_depth = r.max_depth.value_or(spec.max_depth);
  o.max_states = r.max_states.value_or(static_cast<std::uint64_t>(spec.max_states));
  o.time_limit_s = r.time_limit_s.value_or(spec.time_limit_s);
  o.threads = r.threads;
  o.progress = r.progress;
  return o;
}

}  // namespace kmc::cx
