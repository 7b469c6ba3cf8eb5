#include "counterexamples/pipeline.hpp"

#include "model/diagnostics.hpp"

namespace kmc::cx {

std::size_t memory_bound(const CheckRequest& r, const model::CheckSpec& spec) {
  if (r.max_memory_bytes) return *r.max_memory_bytes;
  if (spec.max_memory.empty()) return checker::default_memory_bound();
  std::string why;
  const auto bytes = checker::parse_size(spec.max_memory, why);
  if (!bytes) throw model::InputError(spec.max_memory_pos, "check.maxMemory", why);
  return *bytes;
}

checker::CheckOptions search_options(const CheckRequest& r, const model::CheckSpec& spec) {
  checker::CheckOptions o;
  o.max_depth = r.max_depth.value_or(spec.max_depth);
  o.max_states = r.max_states.value_or(static_cast<std::uint64_t>(spec.max_states));
  o.time_limit_s = r.time_limit_s.value_or(spec.time_limit_s);
  o.threads = r.threads;
  o.symmetry = r.symmetry;
  o.max_memory_bytes = memory_bound(r, spec);
  o.progress = r.progress;
  return o;
}

}  // namespace kmc::cx
