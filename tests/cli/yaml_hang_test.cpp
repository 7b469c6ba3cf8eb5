// YAML on which yaml-cpp 0.7 (Debian 12) loops forever in LoadAll, growing
// about 100 MB/s (jbeder/yaml-cpp#1040; issue 16, item 3), and its
// neighbours: each is exit 3 within a second naming the file and line, as a
// manifest, as kmc.yaml and as the Configuration inside the Kueue ConfigMap.
// Every run is under `timeout 5`, so a regression fails here (exit 124)
// instead of hanging ctest.
#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "cli/run_kmc.hpp"

namespace fs = std::filesystem;

namespace {

struct Input {
  std::string text;
  int line;  // the line the error names, within the file
};

// The first group loops yaml-cpp 0.7 forever; the others it already refuses.
const std::vector<Input> inputs = {
    {",", 1},
    {",,", 1},
    {", a", 1},
    {" ,", 1},
    {"\"a\",", 1},
    {"'a' ,", 1},
    {"[a],", 1},
    {"{a: b},", 1},
    {"&x ,", 1},
    {"!!str ,", 1},
    {"# a comment\n,", 2},
    {"- a\n,", 2},
    {"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-ml\n---\n,\n", 6},
    {"[,", 1},
    {"{,", 1},
    {"- ,", 1},
    {"a: ,", 1},
};

// A copy of examples/gpu-hunter with `rel` holding `text`, in a fresh temporary folder.
fs::path scenario_with(const std::string& rel, const std::string& text) {
  const fs::path dir = temp_path("yaml-hang");
  fs::copy(fs::path(KMC_SOURCE_DIR) / "examples/gpu-hunter", dir, fs::copy_options::recursive);
  std::ofstream(dir / rel) << text;
  return dir;
}

// `kmc check DIR` under timeout 5: exit 3 in under a second, naming FILE:LINE.
void refused(const fs::path& dir, const std::string& file, int line) {
  const auto t0 = std::chrono::steady_clock::now();
  const Run r = kmc("check " + dir.string(), "timeout -k 1 5");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(file << " line " << line << "\n" << r.out << r.err);
  CHECK(r.code == 3);
  CHECK(s < 1.0);
  CHECK(r.err.find(fmt::format("{}:{}: ", (dir / file).string(), line)) != std::string::npos);
  CHECK(r.err.find("YAML syntax error") != std::string::npos);
}

}  // namespace

TEST_CASE("YAML that loops yaml-cpp 0.7 is exit 3 within a second, as a manifest", "[yaml-hang]") {
  for (const auto& in : inputs) {
    INFO("[" << in.text << "]");
    const fs::path dir = scenario_with("manager/namespace.yaml", in.text);
    refused(dir, "manager/namespace.yaml", in.line);
    fs::remove_all(dir);
  }
}

TEST_CASE("YAML that loops yaml-cpp 0.7 is exit 3 within a second, as kmc.yaml", "[yaml-hang]") {
  for (const auto& in : inputs) {
    INFO("[" << in.text << "]");
    const fs::path dir = scenario_with("kmc.yaml", in.text);
    refused(dir, "kmc.yaml", in.line);
    fs::remove_all(dir);
  }
}

TEST_CASE("YAML that loops yaml-cpp 0.7 is exit 3 inside the Kueue ConfigMap, at its line",
          "[yaml-hang]") {
  // The embedded Configuration starts on line 4 of the file (after "|").
  const std::string head =
      "apiVersion: v1\nkind: ConfigMap\ndata:\n  controller_manager_config.yaml: |\n";
  const std::string tail = "metadata:\n  name: kueue-manager-config\n  namespace: kueue-system\n";
  const fs::path dir = scenario_with("manager/kueue-manager-config.yaml", head + "    ,\n" + tail);
  refused(dir, "manager/kueue-manager-config.yaml", 5);
  fs::remove_all(dir);
}
