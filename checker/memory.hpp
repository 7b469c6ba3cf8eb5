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
// Large blocks go back to the kernel when freed: the search frees its
// seen-set and frontier before the graph analyses allocate theirs, and
// glibc would otherwise raise its mmap threshold after the first large free
// and keep every later block in the heap, so the analyses would add to the
// peak instead of reusing that memory. Process-wide; idempotent.
void return_large_blocks();
// Starts a new peak at the current resident size (Linux >= 4.0); false if not possible.
bool reset_peak_resident();

}  // namespace kmc::checker
