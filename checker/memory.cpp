#include "checker/memory.hpp"

#include <malloc.h>

#include <fstream>
#include <string>

namespace kmc::checker {

namespace {

// A "Name:   1234 kB" line of /proc/self/status, in bytes.
std::size_t status_kb(const char* name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(name) + ":";
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return std::stoull(line.substr(prefix.size())) * 1024;
  return 0;
}

}  // namespace

std::size_t resident_bytes() {
  return status_kb("VmRSS");
}
std::size_t peak_resident_bytes() {
  return status_kb("VmHWM");
}

void return_large_blocks() {
  static const bool once = [] { return mallopt(M_MMAP_THRESHOLD, 64 * 1024) == 1; }();
  (void)once;
}

bool reset_peak_resident() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace kmc::checker
