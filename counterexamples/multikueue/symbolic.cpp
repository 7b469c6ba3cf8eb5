// The one translation unit that instantiates MultiKueue's rules and state
// predicates at sym::Int for the SMT engines (Z3 and Hana are heavy; nothing
// else pays for them).
#include "counterexamples/multikueue/symbolic.hpp"

#include <algorithm>

#include "checker/smt_engines.hpp"
#include "checker/smt_result.hpp"
#include "invariants/multikueue_safety.hpp"
#include "model/user_properties.hpp"
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
  std::vector<Predicate> out = {
      {"no-job-on-two-workers", K::Always, bind(invariants::mk::no_job_on_two_workers<sym::Int>)},
      {"cluster-queue-within-quota", K::Always,
       bind(invariants::mk::cluster_queue_within_quota<sym::Int>)},
      {"quota-counted-once", K::Always, bind(invariants::mk::quota_counted_once<sym::Int>)},
      {"some-job-runs", K::Sometimes, bind(invariants::mk::some_job_runs<sym::Int>)},
  };
  // kmc.yaml's own always and sometimes properties: the expressions explicit search evaluates.
  std::vector<std::string> taken;
  for (const auto& pred : out) taken.push_back(pred.name);
  const model::Layout& layout = mk.layout();
  for (const auto& c : model::compile_user_properties(p.user_properties, layout, taken)) {
    if (c.spec->kind == model::UserPropertySpec::Kind::LeadsTo) continue;
    out.push_back({c.spec->name,
                   c.spec->kind == model::UserPropertySpec::Kind::Always ? K::Always : K::Sometimes,
                   [&layout, h = c.holds](const SymState& s, sym::SymbolicValues v) {
                     return model::evaluate<sym::Int>(layout, h, s, v);
                   }});
  }
  return out;
}

}  // namespace

std::vector<std::string> multikueue_smt_properties(const protocols::MultiKueue& mk) {
  std::vector<std::string> out;
  for (const auto& pred : predicates(mk)) out.push_back(pred.name);
  return out;
}

checker::Result check_multikueue_smt(const protocols::MultiKueue& mk,
                                     const std::vector<std::string>& names,
                                     checker::SmtEngine engine, const checker::SmtLimits& limits) {
  std::vector<Predicate> chosen;
  for (auto& pred : predicates(mk))
    if (std::find(names.begin(), names.end(), pred.name) != names.end())
      chosen.push_back(std::move(pred));
  const auto outcome = checker::smt_check<MkSpec>(mk.params(), chosen, engine, limits);
  return checker::smt_result(mk, outcome, engine);
}

}  // namespace kmc::cx
