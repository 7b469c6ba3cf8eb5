// MultiKueue under the SMT engines (`kmc check --engine bmc|induction`): its
// always and sometimes properties, whose predicates are written once over V
// (invariants/multikueue_safety.hpp), decided by bounded model checking or
// k-induction over the protocol's own rules.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "checker/result.hpp"
#include "checker/smt_options.hpp"
#include "model/footprints.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

// The properties the SMT engines decide for this instance, in registry order: MultiKueue's always
// and sometimes properties, then kmc.yaml's own; the rest (stuck-freedom, liveness) are graph
// properties, left to explicit search.
std::vector<std::string> multikueue_smt_properties(const protocols::MultiKueue& mk);

// Decides those of `names` that multikueue_smt_properties() lists; the Result's properties are
// exactly those, its violation a path of the explicit instance `mk`.
checker::Result check_multikueue_smt(const protocols::MultiKueue& mk,
                                     const std::vector<std::string>& names,
                                     checker::SmtEngine engine, const checker::SmtLimits& limits);

// What each candidate action reads and writes, and what each always and sometimes property
// reads, from the same rules and predicates (checker/footprints.hpp): partial-order reduction's
// input.
std::shared_ptr<const model::Footprints> multikueue_footprints(const protocols::MultiKueue& mk);

}  // namespace kmc::cx
