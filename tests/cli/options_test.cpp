// Bad option values (issue 16, item 5): every subcommand refuses them the
// same way, `error: <command line>: --OPTION: must be ... (got 'TEXT')`, exit
// 3, before it reads any input: no fallback to kmc.yaml or a default, no
// wrap-around of a negative seed, no "1e3" read as 1.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cli/run_kmc.hpp"

namespace {

struct Bad {
  std::string command, option, value;
};

}  // namespace

TEST_CASE("a bad option value is exit 3 in the same words in every subcommand",
          "[cli][bad-input][options]") {
  const std::string check = "check examples/gpu-hunter",
                    admit = "admit examples/gpu-hunter/manager",
                    walk = "validate --walk examples/gpu-hunter";
  const std::vector<Bad> cases{
      {check, "--max-states", "-5"},
      {check, "--max-states", "1e3"},
      {check, "--max-depth", "-9"},
      {check, "--max-depth", "99999999999"},
      {check, "--time-limit", "-1"},
      {check, "--time-limit", "nan"},
      {check, "--time-limit", "inf"},
      {check, "--threads", "-1"},
      {check, "--threads", "2.5"},
      {check, "--output", "xml"},
      {admit, "--cycles", "-1"},
      {admit, "--cycles", "nan"},
      {admit, "--output", "yaml"},
      {"corpus check", "--time-limit", "-1"},
      {"corpus check", "--time-limit", "nan"},
      {"matrix examples/gpu-hunter", "--time-limit", "-1"},
      {"matrix examples/gpu-hunter", "--output", "text"},
      {walk, "--seed", "-1"},
      {walk, "--walks", "0"},
      {walk, "--steps", "-1"},
      {walk, "--lookahead", "ten"},
      {walk, "--max-states", "0"},
      {"simulate nowhere.yaml", "--seed", "-3"},
      {"replay nowhere.itf.json", "--output", "xml"},
  };
  for (const Bad& b : cases) {
    const std::string args = b.command + " " + b.option + " " + b.value;
    INFO(args);
    const Run r = kmc(args);
    INFO(r.err);
    CHECK(r.code == 3);
    CHECK(r.err.find("error: <command line>: " + b.option + ": must be ") != std::string::npos);
    CHECK(r.err.find("(got '" + b.value + "')") != std::string::npos);
  }
}

TEST_CASE("a usage error CLI11 finds reads like the others", "[cli][bad-input][options]") {
  for (const char* args : {"check", "check examples/gpu-hunter --no-such-option", "frobnicate"}) {
    INFO(args);
    const Run r = kmc(args);
    CHECK(r.code == 3);
    CHECK(r.err.rfind("error: <command line>: ", 0) == 0);
  }
  CHECK(kmc("check --help").code == 0);
}
