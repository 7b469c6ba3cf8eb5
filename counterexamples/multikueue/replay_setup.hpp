// From a trace file to what replaying it needs: the scenario it was made
// from (its #meta.source, or the folder the user names), the protocol
// instance with the matrix cell's levers applied (#meta.levers), and a check
// that the trace's replay token belongs to that instance, so a trace is never
// replayed against a scenario it did not come from.
#pragma once

#include <optional>
#include <string>

#include "counterexamples/multikueue/itf_read.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue_params.hpp"

namespace kmc::cx {

struct ReplayTarget {
  model::Scenario scenario;
  protocols::MkParams params;
};

// Throws model::InputError (exit 3) for a missing scenario, an unknown lever,
// or a trace whose token names another scenario.
ReplayTarget load_replay_target(const ItfDocument& itf,
                                const std::optional<std::string>& scenario_dir);

}  // namespace kmc::cx
