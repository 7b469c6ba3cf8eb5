// What a protocol's Hooks::smt does, for any protocol whose rules are
// written over V: its state predicates at sym::Int, with kmc.yaml's own
// always and sometimes properties appended (model/user_properties.hpp),
// run by checker/smt_engines.hpp and turned into a Result of the explicit
// instance (checker/smt_result.hpp). Included only by the one translation
// unit per protocol that pays for Z3 and Hana (counterexamples/<protocol>/symbolic.cpp).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "checker/smt_engines.hpp"
#include "checker/smt_result.hpp"
#include "model/user_properties.hpp"

namespace kmc::cx {

// `own` and the user's always and sometimes properties, for the instance `p`.
template <class Spec, class P>
std::vector<checker::StatePredicate<Spec>> with_user_predicates(
    std::vector<checker::StatePredicate<Spec>> own, const P& p,
    const std::vector<model::UserPropertySpec>& specs) {
  using SymState = typename Spec::template State<sym::Int>;
  std::vector<std::string> taken;
  for (const auto& pred : own) taken.push_back(pred.name);
  const model::Layout& layout = p.layout();
  for (const auto& c : model::compile_user_properties(specs, layout, taken)) {
    if (c.spec->kind == model::UserPropertySpec::Kind::LeadsTo) continue;  // a graph property
    checker::StatePredicate<Spec> pred;
    pred.name = c.spec->name;
    pred.kind = c.spec->kind == model::UserPropertySpec::Kind::Always
                    ? model::PropertyKind::Always
                    : model::PropertyKind::Sometimes;
    pred.holds = [&layout, h = c.holds](const SymState& s, sym::SymbolicValues v) {
      return model::evaluate<sym::Int>(layout, h, s, v);
    };
    own.push_back(std::move(pred));
  }
  return own;
}

template <class Spec>
std::vector<std::string> names_of(const std::vector<checker::StatePredicate<Spec>>& preds) {
  std::vector<std::string> out;
  for (const auto& pred : preds) out.push_back(pred.name);
  return out;
}

// Those of `preds` that `names` lists, decided by `engine` on the explicit instance `p`.
template <class Spec, class P>
checker::Result run_smt(const P& p, std::vector<checker::StatePredicate<Spec>> preds,
                        const std::vector<std::string>& names, checker::SmtEngine engine,
                        const checker::SmtLimits& limits) {
  std::erase_if(preds, [&](const auto& pred) {
    return std::find(names.begin(), names.end(), pred.name) == names.end();
  });
  return checker::smt_result(p, checker::smt_check<Spec>(p.params(), preds, engine, limits),
                             engine);
}

}  // namespace kmc::cx
