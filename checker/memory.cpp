#include "checker/memory.hpp"

#include <fmt/format.h>
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <fstream>
#include <memory>
#include <string>

namespace kmc::checker {

namespace {

// A "Name:   1234 kB" line of a /proc file, in bytes.
std::size_t kb_line(const char* file, const char* name) {
  std::ifstream in(file);
  std::string line;
  const std::string prefix = std::string(name) + ":";
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return std::stoull(line.substr(prefix.size())) * 1024;
  return 0;
}

std::size_t status_kb(const char* name) {
  return kb_line("/proc/self/status", name);
}

// A cgroup's limit in bytes: a number, or "max" (none) or no such file (0).
std::size_t cgroup_limit(const char* file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return 0;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return 0;
  }
}

std::unique_ptr<char[]>& reserve() {
  static std::unique_ptr<char[]> block;
  return block;
}

}  // namespace

// The highest VmRSS any reading here saw. The kernel's VmHWM can trail a VmRSS read a moment
// before (RSS counters are cached per thread and folded in lazily: CI saw a memory bound of 96 MiB
// trip on VmRSS while VmHWM then said 24 KiB less), so the peak reported is the larger of the two.
namespace {
std::atomic<std::size_t>& highest_seen() {
  static std::atomic<std::size_t> seen{0};
  return seen;
}
}  // namespace

std::size_t resident_bytes() {
  const std::size_t now = status_kb("VmRSS");
  std::size_t seen = highest_seen().load();
  while (now > seen && !highest_seen().compare_exchange_weak(seen, now)) {
  }
  return now;
}
std::size_t peak_resident_bytes() {
  return std::max(status_kb("VmHWM"), highest_seen().load());
}

void configure_allocator() {
  static const bool once = [] {
    rlimit as{};
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) mallopt(M_ARENA_MAX, 1);
    return mallopt(M_MMAP_THRESHOLD, 64 * 1024) == 1;
  }();
  (void)once;
}

bool reset_peak_resident() {
  highest_seen() = status_kb("VmRSS");
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

std::size_t physical_memory_bytes() {
  std::size_t bytes = kb_line("/proc/meminfo", "MemTotal");
  // cgroup v2, then v1 (which says "no limit" with a huge number, that min() ignores).
  for (const char* file :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"})
    if (const std::size_t limit = cgroup_limit(file); limit > 0)
      bytes = bytes == 0 ? limit : std::min(bytes, limit);
  return bytes;
}

std::size_t default_memory_bound() {
  return physical_memory_bytes() / 100 * kDefaultMemoryPercent;
}

std::optional<std::size_t> parse_size(std::string_view text, std::string& why) {
  std::size_t i = 0;
  unsigned long long whole = 0;
  bool digits = false, overflow = false;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, digits = true) {
    overflow = overflow || whole > (~0ULL >> 1) / 10;
    whole = whole * 10 + static_cast<unsigned>(text[i] - '0');
  }
  double fraction = 0;
  if (i < text.size() && text[i] == '.') {
    double scale = 0.1;
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
         ++i, scale /= 10, digits = true)
      fraction += (text[i] - '0') * scale;
  }
  if (!digits) {
    why = "must be a size: a number of bytes, or with a unit (512M, 8G, 2GiB)";
    return std::nullopt;
  }
  std::string unit;
  for (; i < text.size(); ++i) unit += static_cast<char>(std::tolower(text[i]));
  double multiplier = 0;
  if (unit.empty() || unit == "b") multiplier = 1;
  const std::string prefixes = "kmgt";
  if (!unit.empty() && prefixes.find(unit[0]) != std::string::npos) {
    const int power = static_cast<int>(prefixes.find(unit[0])) + 1;
    const std::string rest = unit.substr(1);
    if (rest.empty() || rest == "i" || rest == "ib")
      multiplier = static_cast<double>(1ULL << (10 * power));
    if (rest == "b")
      multiplier = [&] {
        double m = 1;
        for (int p = 0; p < power; ++p) m *= 1000;
        return m;
      }();
  }
  if (multiplier == 0) {
    why = "unknown unit '" + std::string(text.substr(text.size() - unit.size())) +
          "' (use K, M, G or T, optionally with iB, or KB, MB, GB, TB for powers of 1000)";
    return std::nullopt;
  }
  const double bytes = (static_cast<double>(whole) + fraction) * multiplier;
  if (overflow || bytes >= 9.2e18) {
    why = "is too large (at most 2^63 bytes)";
    return std::nullopt;
  }
  if (bytes < 1) {
    why = "must be more than 0 bytes";
    return std::nullopt;
  }
  return static_cast<std::size_t>(bytes);
}

std::string format_size(std::size_t bytes) {
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 5) v /= 1024, ++u;
  return fmt::format("{:.1f} {}", v, units[u]);
}

void hold_reserve(std::size_t bytes) {
  configure_allocator();  // its own mapping, so that releasing it gives the address space back
  if (!reserve()) reserve().reset(new (std::nothrow) char[bytes]);
}

void release_reserve() {
  reserve().reset();
}

}  // namespace kmc::checker
