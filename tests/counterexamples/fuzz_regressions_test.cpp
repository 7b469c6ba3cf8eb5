// Inputs fuzz_itf found that crash kmc in counterexamples/ (fuzz/regressions/itf/),
// not fixed here: counterexamples/ was being changed for ITF validation (issue 16,
// item 2) when they were found. Each is a known gap, a test expected to fail
// (STYLE.md) until the fix lands; then Catch2 reports it as passing
// unexpectedly, and the [!shouldfail] tag comes off.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "counterexamples/multikueue/itf_read.hpp"
#include "model/diagnostics.hpp"

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

// A JSON number past double's range ("1e400"): nlohmann's parser throws
// out_of_range.406, not parse_error, and parse_itf catches only parse_error,
// so `kmc render` and `kmc replay` end in std::terminate (SIGABRT, exit 134)
// instead of exit 3.
TEST_CASE("fuzz_itf: a JSON number too large for a double is an InputError, not an abort",
          "[itf][!shouldfail]") {
  for (const char* name :
       {"json-number-overflow.json", "crash-60b1f135e10c735dbece9a2bda30d132ad6d23e2"}) {
    const std::string file = std::string(KMC_SOURCE_DIR) + "/fuzz/regressions/itf/" + name;
    INFO(file);
    CHECK_THROWS_AS(kmc::cx::parse_itf(file, read(file)), kmc::model::InputError);
  }
}
