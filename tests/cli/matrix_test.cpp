#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "cli/run_kmc.hpp"

namespace {

std::string verdict(const nlohmann::json& rows, std::size_t row, const std::string& property) {
  return rows.at(row - 1)["properties"][property]["verdict"];
}

}  // namespace

TEST_CASE("kmc matrix: golden verdicts for the GPU Hunter levers", "[cli][matrix][golden]") {
  auto r = kmc("matrix examples/gpu-hunter --output json");
  CHECK(r.code == 1);  // some combination is violated
  const auto rows = nlohmann::json::parse(r.out)["rows"];
  REQUIRE(rows.size() == 32);
  // Row 1 is the talk's fleet: pinned on a stale view, best-effort, no timeout.
  CHECK(rows[0]["levers"]["pin"] == "true");
  CHECK(verdict(rows, 1, "no-stuck-job") == "Violated");
  CHECK(verdict(rows, 1, "quota-counted-once") == "Verified");
  // A fresh view removes this deadlock (no capacity changes after it).
  CHECK(verdict(rows, 3, "no-stuck-job") == "Verified");
  // Unpinned works after #8592 and not before (K25).
  CHECK(verdict(rows, 5, "no-stuck-job") == "Verified");
  CHECK(verdict(rows, 6, "no-stuck-job") == "Violated");
  // The timeout and check-capacity each heal every combination.
  for (std::size_t row = 9; row <= 32; ++row) {
    CHECK(verdict(rows, row, "no-stuck-job") == "Verified");
    CHECK(verdict(rows, row, "eventually-runs") == "Verified");
  }
  int violated = 0;
  for (const auto& row : rows)
    for (const auto& [name, cell] : row["properties"].items()) violated += cell["verdict"] == "Violated";
  CHECK(violated == 6);  // three stuck rows, each also failing eventually-runs
}

TEST_CASE("kmc matrix: markdown table with a trace per violated cell", "[cli][matrix]") {
  const std::string out = "/tmp/kmc-matrix-test-traces";
  std::filesystem::remove_all(out);
  auto r = kmc("matrix examples/gpu-hunter --property no-stuck-job --out " + out);
  CHECK(r.code == 1);
  CHECK(r.out.find("| provisioningClass | provisioningTimeout | pin | maxSnapshotStaleness | waitForWorkloadAdmitted | no-stuck-job |") == 0);
  CHECK(r.out.find("|---|---|---|---|---|---|") != std::string::npos);
  CHECK(std::filesystem::exists(out + "/row1-no-stuck-job.itf.json"));
  CHECK(r.out.find("32 combinations x 1 properties") != std::string::npos);
}

TEST_CASE("kmc matrix: bad input is exit 3", "[cli][matrix][bad-input]") {
  auto none = kmc("matrix examples/gpu-hunter-fixed");
  CHECK(none.code == 3);
  CHECK(none.err.find("needs a matrix: section") != std::string::npos);
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("kmc-matrix-bad-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(fs::path(KMC_SOURCE_DIR) / "examples/gpu-hunter", dir, fs::copy_options::recursive);
  std::ofstream(dir / "kmc.yaml", std::ios::app) << "  pin: [maybe]\n";
  auto bad = kmc("matrix " + dir.string());
  CHECK(bad.code == 3);
  CHECK(bad.err.find("matrix.pin: 'maybe' is not a value of this lever") != std::string::npos);
}
