// The Kueue admission protocol's check pipeline: the generic one
// (counterexamples/pipeline_core.hpp) with its summary line. Shrinking is by
// actions and picks; engine replay is not wired yet, so --replay-engine is
// refused as a usage error for this protocol.
#pragma once

#include "counterexamples/pipeline.hpp"
#include "model/scenario.hpp"

namespace kmc::cx {

// Throws model::InputError (exit 3) for a scenario, property, bound or token
// that does not fit; never for a verdict.
CheckOutcome check_kueue_admission(const model::Scenario& scenario, const CheckRequest& request);

}  // namespace kmc::cx
