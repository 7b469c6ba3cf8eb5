#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

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
  // No combination retries forever here: the stuck rows freeze the job (a hang,
  // not a thrash), and every retry loop ends once the fair refresh corrects the view.
  REQUIRE(rows[0]["properties"].size() == 8);
  for (std::size_t row = 1; row <= 32; ++row) {
    CHECK(verdict(rows, row, "no-endless-retry") == "Verified");
    // Frozen beside idle asia-southeast1 while still at the manager: the stuck rows are exactly
    // the rows that are not work-conserving.
    CHECK(verdict(rows, row, "work-conservation") == verdict(rows, row, "no-stuck-job"));
  }
  int violated = 0;
  for (const auto& row : rows)
    for (const auto& [name, cell] : row["properties"].items())
      violated += cell["verdict"] == "Violated";
  CHECK(violated ==
        9);  // three stuck rows, each also failing eventually-runs and work-conservation
}

TEST_CASE("kmc matrix: golden verdicts for endless retry (gpu-hunter-retry)",
          "[cli][matrix][golden][recurrence]") {
  auto r = kmc("matrix examples/gpu-hunter-retry --output json");
  CHECK(r.code == 1);
  const auto rows = nlohmann::json::parse(r.out)["rows"];
  REQUIRE(rows.size() == 48);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& l = rows[i]["levers"];
    const bool best_effort = l["provisioningClass"] == "best-effort-atomic-scaleup",
               timeout = l["provisioningTimeout"] == "true";
    const bool pinned = l["pin"] == "true", never_refreshed = l["snapshotRefreshes"] == "0";
    // Too short a timeout abandons every node about to boot (check-capacity boots nothing to
    // abandon); a pin on a view that never refreshes sends every retry back to the exhausted region
    // (a timeout or check-capacity makes that a retry; best-effort alone hangs instead).
    const bool too_short = best_effort && timeout && l["timeoutVsBoot"] == "TimeoutFirst";
    const bool thrash = pinned && never_refreshed && (timeout || !best_effort);
    const bool hang = best_effort && !timeout && pinned;
    INFO("row " << i + 1 << ": " << l.dump());
    CHECK(verdict(rows, i + 1, "no-endless-retry") ==
          (too_short || thrash ? "Violated" : "Verified"));
    CHECK(verdict(rows, i + 1, "no-stuck-job") == (hang ? "Violated" : "Verified"));
    CHECK(verdict(rows, i + 1, "eventually-runs") ==
          (too_short || thrash || hang ? "Violated" : "Verified"));
    // Nothing can ever run when no node may finish booting, or when the pin never leaves the stale
    // region.
    CHECK(verdict(rows, i + 1, "some-job-runs") ==
          (too_short || (pinned && never_refreshed) ? "Violated" : "Verified"));
  }
}

TEST_CASE("kmc matrix: each trace names the levers of its cell in #meta", "[cli][matrix]") {
  const std::string out = "/tmp/kmc-matrix-levers-" + std::to_string(::getpid());
  std::filesystem::remove_all(out);
  REQUIRE(kmc("matrix examples/gpu-hunter --property no-stuck-job --out " + out).code == 1);
  std::ifstream in(out + "/row6-no-stuck-job.itf.json");
  const auto meta = nlohmann::json::parse(in)["#meta"];
  CHECK(meta["levers"] == nlohmann::json{{"provisioningClass", "best-effort-atomic-scaleup"},
                                         {"provisioningTimeout", "false"},
                                         {"pin", "false"},
                                         {"maxSnapshotStaleness", "-1"},
                                         {"waitForWorkloadAdmitted", "false"}});
  CHECK(meta["property"] == "no-stuck-job");
  std::filesystem::remove_all(out);
}

TEST_CASE("kmc matrix: markdown table with a trace per violated cell", "[cli][matrix]") {
  const std::string out = temp_path("matrix-traces");
  std::filesystem::remove_all(out);
  auto r = kmc("matrix examples/gpu-hunter --property no-stuck-job --out " + out);
  CHECK(r.code == 1);
  CHECK(r.out.find("| provisioningClass | provisioningTimeout | pin | maxSnapshotStaleness | "
                   "waitForWorkloadAdmitted | no-stuck-job |") == 0);
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
  // The lever's own line, changed (a second `pin:` key would be a duplicate-key error first).
  std::string fleet = slurp((dir / "kmc.yaml").string());
  const std::string lever = "  pin: [true, false]";
  REQUIRE(fleet.find(lever) != std::string::npos);
  fleet.replace(fleet.find(lever), lever.size(), "  pin: [maybe]");
  std::ofstream(dir / "kmc.yaml") << fleet;
  auto bad = kmc("matrix " + dir.string());
  CHECK(bad.code == 3);
  CHECK(bad.err.find("matrix.pin: 'maybe' is not a value of this lever") != std::string::npos);
}
