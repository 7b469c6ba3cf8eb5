// The Kueue admission protocol's check pipeline: the generic one
// (counterexamples/pipeline_core.hpp) with its summary line and its replay in
// the reference engine (engine_replay.hpp). Shrinking is by actions and picks.
#pragma once

#include "counterexamples/pipeline.hpp"
#include "model/scenario.hpp"

namespace kmc::cx {

// Throws model::InputError (exit 3) for a scenario, property, bound or token
// that does not fit; never for a verdict.
CheckOutcome check_kueue_admission(const model::Scenario& scenario, const CheckRequest& request);

}  // namespace kmc::cx
