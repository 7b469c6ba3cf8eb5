// The one translation unit that instantiates kube-scheduler's rules and
// state predicates at sym::Int.
#include "counterexamples/kube_scheduler/symbolic.hpp"

#include "counterexamples/smt_hook.hpp"
#include "invariants/kube_scheduler_safety.hpp"

namespace kmc::cx {

namespace {

using Spec = protocols::ks::Spec;
using SymState = Spec::State<sym::Int>;

std::vector<checker::StatePredicate<Spec>> predicates(const protocols::ks::Instance& ks) {
  const protocols::ks::SchedulerParams& p = ks.params();
  const auto bind = [&p](auto fn) {
    return [&p, fn](const SymState& s, sym::SymbolicValues v) { return fn(p, s, v); };
  };
  using K = model::PropertyKind;
  // Names as invariants/kube_scheduler_gang.cpp's properties have them.
  return with_user_predicates<Spec>(
      {
          {"node-within-allocatable", K::Always,
           bind(invariants::ks::node_within_allocatable<sym::Int>)},
          {"some-job-runs", K::Sometimes, bind(invariants::ks::some_job_runs<sym::Int>)},
      },
      ks, p.user_properties);
}

}  // namespace

std::vector<std::string> kube_scheduler_smt_properties(const protocols::ks::Instance& ks) {
  return names_of(predicates(ks));
}

checker::Result check_kube_scheduler_smt(const protocols::ks::Instance& ks,
                                         const std::vector<std::string>& names,
                                         checker::SmtEngine engine,
                                         const checker::SmtLimits& limits) {
  return run_smt(ks, predicates(ks), names, engine, limits);
}

}  // namespace kmc::cx
