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

// The same for every cell of job j, on the manager then on each worker, against
// the trace's state `last`, value for value: where the engine left the job
// after the trace ended, against where the trace leaves it.
std::vector<std::string> job_differences(const ItfStep& last, const FleetView& v, int j,
                                         int workers);

}  // namespace kmc::cx
