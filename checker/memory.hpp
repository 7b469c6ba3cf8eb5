// What the process really uses, from the kernel (/proc/self): the figure a
// report calls bytes per state is the growth of peak resident memory during
// the search, divided by the states it stored, not what the data
// structures think they hold (allocator slack, page granularity and
// scratch buffers included). Also the memory bound's pieces: the machine's
// memory, sizes as people write them, and a reserve that lets a search that
// ran out of memory still report.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kmc::checker {

std::size_t resident_bytes();       // now (VmRSS); 0 where /proc is not there
std::size_t peak_resident_bytes();  // since start or the last reset (VmHWM)
// Tunes glibc's allocator for a search, process-wide and idempotent; called
// before the search starts its threads.
// - Large blocks go back to the kernel when freed: the search frees its
//   seen-set and frontier before the graph analyses allocate theirs, and
//   glibc would otherwise raise its mmap threshold after the first large free
//   and keep every later block in the heap, so the analyses would add to the
//   peak instead of reusing that memory.
// - Under an address-space limit (ulimit -v) every thread shares one arena.
//   Each thread arena reserves 64 MiB of address space; once that cannot
//   grow, glibc retries a failing mmap on each allocation before it falls
//   back, so a search with two threads crawled (2,000 states/s, most of it
//   system time) for minutes instead of ending in an allocation failure.
void configure_allocator();
// Starts a new peak at the current resident size (Linux >= 4.0); false if not possible.
bool reset_peak_resident();

// The memory this process may use: MemTotal (/proc/meminfo), or the cgroup's
// limit (memory.max) where that is lower, as in a container; 0 if unknown.
std::size_t physical_memory_bytes();
// The default memory bound: 3/4 of physical_memory_bytes(), so the search
// stops with a result before the kernel's OOM killer ends it with none; 0
// (none) if unknown.
inline constexpr int kDefaultMemoryPercent = 75;
std::size_t default_memory_bound();

// "8G", "512M", "2GiB", "1.5g", "300000000": K, M, G, T (with or without
// "i" and "B", any case) are powers of 1024, as for `ulimit` and `free`;
// KB, MB, GB, TB are powers of 1000. Nothing, a bound of 0, a negative or
// unknown unit, or more than 2^63 bytes is nullopt, with why set.
std::optional<std::size_t> parse_size(std::string_view text, std::string& why);
// 2147483648 -> "2.0 GiB", 536870912 -> "512.0 MiB", 100 -> "100 B".
std::string format_size(std::size_t bytes);

// A block of address space set aside at the start of a run and given back
// when an allocation fails, so that what follows (freeing the search,
// building and printing the result) has room. Untouched, so it costs no
// resident memory. Process-wide; hold_reserve again after a release.
void hold_reserve(std::size_t bytes = std::size_t{32} << 20);
void release_reserve();

}  // namespace kmc::checker
