// What the process really uses, from the kernel (/proc/self): the figure a
// report calls bytes per state is the growth of peak resident memory during
// the search, divided by the states it stored, not what the data
// structures think they hold (allocator slack, page granularity and
// scratch buffers included).
#pragma once

#include <cstddef>

namespace kmc::checker {

std::size_t resident_bytes();       // now (VmRSS); 0 where /proc is not there
std::size_t peak_resident_bytes();  // since start or the last reset (VmHWM)
// Starts a new peak at the current resident size (Linux >= 4.0); false if not possible.
bool reset_peak_resident();

}  // namespace kmc::checker
