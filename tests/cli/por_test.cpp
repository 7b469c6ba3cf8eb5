// Partial-order reduction as a user meets it: --por, named in the report with
// what it did, refused with the reason where a graph property is checked, and
// the same verdicts as the full search on every shipped example.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_kmc.hpp"

namespace {

const std::string kSafety =
    " --property no-job-on-two-workers --property cluster-queue-within-quota"
    " --property quota-counted-once --no-shrink --output json";

std::string por_line(const nlohmann::json& j) {
  for (const auto& line : j["reductions"])
    if (line.get<std::string>().find("partial-order reduction") != std::string::npos)
      return line.get<std::string>();
  return "";
}

}  // namespace

TEST_CASE("--por reduces the safety search and says what it did", "[cli][por]") {
  const std::string ex = std::string(KMC_SOURCE_DIR) + "/examples/gpu-hunter-three-workers";
  const auto full = nlohmann::json::parse(kmc("check " + ex + kSafety).out);
  const auto reduced = nlohmann::json::parse(kmc("check " + ex + kSafety + " --por").out);
  CHECK(full["verdict"] == "Verified");
  CHECK(reduced["verdict"] == "Verified");
  // Pinned: 45 states unreduced, 33 with stubborn sets.
  CHECK(full["stats"]["states"] == 45);
  CHECK(reduced["stats"]["states"] == 33);
  CHECK(por_line(full).empty());  // off by default
  CHECK(por_line(reduced).find("states expanded through a stubborn subset") != std::string::npos);
}

TEST_CASE("--por is refused, with the reason, where a graph property is checked", "[cli][por]") {
  const std::string ex = std::string(KMC_SOURCE_DIR) + "/examples/gpu-hunter-fixed";
  const auto j = nlohmann::json::parse(kmc("check " + ex + " --por --output json").out);
  CHECK(por_line(j).find("not used: no-stuck-job is decided on the whole state graph") !=
        std::string::npos);
}

TEST_CASE("every example gives the same safety verdicts with and without --por", "[cli][por]") {
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(KMC_SOURCE_DIR) + "/examples")) {
    const std::string dir = entry.path().string();
    if (!std::filesystem::exists(dir + "/kmc.yaml")) continue;
    const std::string yaml = slurp(dir + "/kmc.yaml");
    if (yaml.find("\nprotocol: ") != std::string::npos &&
        yaml.find("\nprotocol: multikueue") == std::string::npos)
      continue;  // the other protocols give no footprints
    INFO(dir);
    const auto full = kmc("check " + dir + kSafety + " --time-limit 5");
    const auto reduced = kmc("check " + dir + kSafety + " --time-limit 5 --por");
    const auto a = nlohmann::json::parse(full.out), b = nlohmann::json::parse(reduced.out);
    // Both decided: the same verdicts, property by property.
    if (a["verdict"] == "Incomplete" || b["verdict"] == "Incomplete") continue;
    CHECK(a["verdict"] == b["verdict"]);
    for (std::size_t i = 0; i < a["properties"].size(); ++i)
      CHECK(a["properties"][i]["verdict"] == b["properties"][i]["verdict"]);
  }
}
