#include "mk_check.hpp"

#include "invariants/multikueue_registry.hpp"
#include "model/checked.hpp"

namespace mk_check {

Result check(const MultiKueue& p, CheckOptions opts) {
  kmc::model::Checked<MultiKueue> checked{p, kmc::invariants::multikueue_properties(p)};
  if (opts.properties.empty()) opts.properties = kmc::invariants::default_properties(p);
  return kmc::checker::Bfs(checked, std::move(opts)).run();
}

}  // namespace mk_check
