// The one translation unit that instantiates MultiKueue's rules and state
// predicates at sym::Int for the SMT engines (Z3 and Hana are heavy; nothing
// else pays for them).
#include "counterexamples/multikueue/symbolic.hpp"

#include "checker/footprints.hpp"
#include "counterexamples/smt_hook.hpp"
#include "invariants/multikueue_safety.hpp"
#include "protocols/multikueue_rules.hpp"

namespace kmc::cx {

namespace {

using protocols::MkSpec;
using SymState = MkSpec::State<sym::Int>;
using Predicate = checker::StatePredicate<MkSpec>;

std::vector<Predicate> predicates(const protocols::MultiKueue& mk) {
  const protocols::MkParams& p = mk.params();
  const auto bind = [&p](auto fn) {
    return [&p, fn](const SymState& s, sym::SymbolicValues v) { return fn(p, s, v); };
  };
  using K = model::PropertyKind;
  // Names as invariants/multikueue_registry.cpp's properties have them (a test holds them equal).
  return cx::with_user_predicates<MkSpec>(
      {
          {"no-job-on-two-workers", K::Always,
           bind(invariants::mk::no_job_on_two_workers<sym::Int>)},
          {"cluster-queue-within-quota", K::Always,
           bind(invariants::mk::cluster_queue_within_quota<sym::Int>)},
          {"quota-counted-once", K::Always, bind(invariants::mk::quota_counted_once<sym::Int>)},
          {"some-job-runs", K::Sometimes, bind(invariants::mk::some_job_runs<sym::Int>)},
      },
      mk, p.user_properties);
}

}  // namespace

std::vector<std::string> multikueue_smt_properties(const protocols::MultiKueue& mk) {
  return names_of(predicates(mk));
}

std::shared_ptr<const model::Footprints> multikueue_footprints(const protocols::MultiKueue& mk) {
  return std::make_shared<const model::Footprints>(checker::derive_footprints<MkSpec>(
      mk.params(), mk.layout(), mk.candidates(), predicates(mk)));
}

checker::Result check_multikueue_smt(const protocols::MultiKueue& mk,
                                     const std::vector<std::string>& names,
                                     checker::SmtEngine engine, const checker::SmtLimits& limits) {
  return run_smt(mk, predicates(mk), names, engine, limits);
}

}  // namespace kmc::cx
