// What every harness shares: the input as text, a scratch folder of its own,
// and the line between expected and unexpected outcomes.
//
// Expected: the function returns, or throws model::InputError (bad input,
// exit 3 in the CLI: cli/guarded.cpp maps exactly that to 3). Anything else,
// another exception escaping, a sanitizer report, an abort, a hang or memory
// past -rss_limit_mb, is a finding: an escaping exception reaches
// std::terminate, which libFuzzer reports as a crash and keeps the input.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "model/diagnostics.hpp"

namespace kmc::fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A fresh folder under $TMPDIR for this process, so parallel fuzzers (-jobs)
// never share files and nothing is written into the repository.
inline std::filesystem::path scratch_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "kmc-fuzz-XXXXXX").string();
  if (!mkdtemp(pattern.data())) std::abort();
  return pattern;
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) std::abort();  // the harness's own failure, not the input's
}

// Runs `body`; an InputError is the expected answer to bad input.
template <class F>
void expect_input_error(F&& body) {
  try {
    body();
  } catch (const model::InputError&) {
  }
}

// The source tree, for the fixed scenarios some harnesses load around the input.
inline std::filesystem::path source_dir() {
  return KMC_SOURCE_DIR;
}

}  // namespace kmc::fuzz
