// The one translation unit that instantiates MultiKueue's rules and state
// predicates at sym::Int for the SMT engines (Z3 and Hana are heavy; nothing
// else pays for them).
#include "counterexamples/multikueue/symbolic.hpp"

#include <algorithm>

#include "checker/smt_engines.hpp"
#include "checker/smt_result.hpp"
#include "invariants/multikueue_safety.hpp"
#include "protocols/multikueue_rules.hpp"

namespace kmc::cx {

namespace {

using protocols::MkSpec;
using SymState = MkSpec::State<sym::Int>;
using Predicate = checker::StatePredicate<MkSpec>;

std::vector<Predicate> predicates(const protocols::MkParams& p) {
  const auto bind = [&p](auto fn) {
    return [&p, fn](const SymState& s, sym::SymbolicValues v) { return fn(p, s, v); };
  };
  using K = model::PropertyKind;
  // Names as invariants/multikueue_registry.cpp's properties have them (a test holds them equal).
  return {
      {"no-job-on-two-workers", K::Always, bind(invariants::mk::no_job_on_two_workers<sym::Int>)},
      {"cluster-queue-within-quota", K::Always,
       bind(invariants::mk::cluster_queue_within_quota<sym::Int>)},
      {"quota-counted-once", K::Always, bind(invariants::mk::quota_counted_once<sym::Int>)},
      {"some-job-runs", K::Sometimes, bind(invariants::mk::some_job_runs<sym::Int>)},
  };
}

}  // namespace

const std::vector<std::string>& multikueue_smt_properties() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    const protocols::MkParams none;  // the names do not depend on the parameters
    for (const auto& pred : predicates(none)) out.push_back(pred.name);
    return out;
  }();
  return names;
}

checker::Result check_multikueue_smt(const protocols::MultiKueue& mk,
                                     const std::vector<std::string>& names,
                                     checker::SmtEngine engine, const checker::SmtLimits& limits) {
  std::vector<Predicate> chosen;
  for (auto& pred : predicates(mk.params()))
    if (std::find(names.begin(), names.end(), pred.name) != names.end())
      chosen.push_back(std::move(pred));
  const auto outcome = checker::smt_check<MkSpec>(mk.params(), chosen, engine, limits);
  return checker::smt_result(mk, outcome, engine);
}

}  // namespace kmc::cx
