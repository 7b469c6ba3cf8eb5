// What `kmc --version` says: kmc's own version (CMake's project version) and
// the Kueue commit whose code the protocols and the engine follow
// (../shared/reference/kueue-semantics.md's source snapshot).
#pragma once

#include <string>

namespace kmc::cli {

#ifndef KMC_VERSION
#define KMC_VERSION "unknown"
#endif
inline constexpr const char* kVersion = KMC_VERSION;
inline constexpr const char* kKueueCommit = "ff69552e79ad21652c36caa97038382e55625cf7";

std::string version_text();

}  // namespace kmc::cli
