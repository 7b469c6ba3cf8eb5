// MultiKueue's check pipeline: the generic one (counterexamples/pipeline_core.hpp)
// with MultiKueue's summary, entity shrinking and engine replay.
#pragma once

#include <functional>

#include "counterexamples/pipeline.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue_params.hpp"

namespace kmc::cx {

// The MultiKueue parameters of a (possibly reduced) scenario: kmc matrix
// applies a cell's levers here, kmc corpus a trace's.
using MkCompile = std::function<protocols::MkParams(const model::Scenario&)>;

// Throws model::InputError (exit 3) for a scenario, property, bound or token
// that does not fit; never for a verdict. `compile` unset: compile_multikueue.
CheckOutcome check_multikueue(const model::Scenario& scenario, const CheckRequest& request,
                              const MkCompile& compile = {});

}  // namespace kmc::cx
