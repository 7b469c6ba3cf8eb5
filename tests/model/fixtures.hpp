// Where the loader fixtures live, and how to catch the diagnostic they cause.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "model/diagnostics.hpp"

namespace Catch {
template <>
struct StringMaker<kmc::model::SourcePos> {
  static std::string convert(const kmc::model::SourcePos& p) {
    return p.file + ":" + std::to_string(p.line);
  }
};
}  // namespace Catch

namespace kmc::test {

// Fixture paths are relative to the source tree, exactly as a user would type
// them from there, so diagnostics name them that way.
inline std::string fixture(const std::string& name) {
  std::filesystem::current_path(KMC_SOURCE_DIR);
  return "tests/model/fixtures/" + name;
}

template <class F>
model::Diagnostic input_error_of(F&& load) {
  try {
    load();
  } catch (const model::InputError& e) {
    return e.diagnostic;
  }
  FAIL("expected an InputError");
  return {};
}

// A scratch file for inputs too small to deserve a fixture folder.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "kmc-model-tests";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Whether some warning's message contains `part`.
inline bool has_warning(const model::Warnings& warnings, const std::string& part) {
  for (const auto& w : warnings)
    if (contains(w.message, part)) return true;
  return false;
}

}  // namespace kmc::test
