// Inputs fuzz_itf found that crashed kmc in counterexamples/ (fuzz/regressions/itf/),
// each an InputError (exit 3) since its fix.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "counterexamples/itf_document.hpp"
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
// out_of_range.406, not parse_error, and parse_itf caught only parse_error, so
// `kmc render` and `kmc replay` ended in std::terminate (SIGABRT, exit 134).
TEST_CASE("fuzz_itf: a JSON number too large for a double is an InputError, not an abort",
          "[itf]") {
  for (const char* name :
       {"json-number-overflow.json", "crash-60b1f135e10c735dbece9a2bda30d132ad6d23e2"}) {
    const std::string file = std::string(KMC_SOURCE_DIR) + "/fuzz/regressions/itf/" + name;
    INFO(file);
    CHECK_THROWS_AS(kmc::cx::parse_itf(file, read(file)), kmc::model::InputError);
  }
}
