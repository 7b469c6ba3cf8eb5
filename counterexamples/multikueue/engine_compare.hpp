// Comparing a replayed step with the trace: which cells a step touched, and
// where the engine's cells differ from the trace's (engine_compare.cpp).
#pragma once

#include <string>
#include <vector>

#include "counterexamples/multikueue/engine_view.hpp"
#include "counterexamples/multikueue/itf_read.hpp"

namespace kmc::cx {

// The workers whose cells a step touched (-1: the manager's), for step s of a fleet of `workers`.
std::vector<int> touched_cells(const ItfStep& s, int workers);

// "field[entity]: trace X, engine Y" for each touched cell the engine disagrees on.
std::vector<std::string> cell_differences(const ItfStep& s, const FleetView& v,
                                          const std::vector<int>& cells);

}  // namespace kmc::cx
