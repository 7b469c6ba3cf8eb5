// The guard in front of yaml-cpp's LoadAll (model/yaml_documents.cpp) refuses
// only what yaml-cpp 0.7 would loop on forever: every YAML file committed here
// (examples, fixtures, the corpus) reads as yaml-cpp alone reads it, and so
// does YAML as kubectl writes it. The inputs that loop are run as processes,
// under a timeout, in tests/cli/yaml_hang_test.cpp.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/diagnostics.hpp"
#include "model/yaml_node.hpp"

namespace fs = std::filesystem;

namespace {

// The documents yaml-cpp reads (null ones left out, as parse_yaml_text does); -1 on a syntax error.
int yaml_cpp_documents(const std::string& text) {
  try {
    int n = 0;
    for (const auto& d : YAML::LoadAll(text)) n += d.IsDefined() && !d.IsNull();
    return n;
  } catch (const YAML::Exception&) {
    return -1;
  }
}

int kmc_documents(const std::string& text, const std::string& file) {
  try {
    return static_cast<int>(kmc::model::parse_yaml_text(text, file, 0).size());
  } catch (const kmc::model::InputError&) {
    return -1;
  }
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("every committed YAML file reads through the guard as yaml-cpp reads it") {
  int files = 0, refused = 0;
  for (const char* root : {"examples", "tests", "counterexamples", "docs"})
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      const std::string ext = e.path().extension().string();
      if (ext != ".yaml" && ext != ".yml") continue;
      const std::string text = read(e.path());
      INFO(e.path().string());
      const int want = yaml_cpp_documents(text);
      CHECK(kmc_documents(text, e.path().string()) == want);
      ++files, refused += want < 0;
    }
  CHECK(files >= 200);
  CHECK(refused == 1);  // tests/model/fixtures/bad/yaml-syntax, on purpose
}

TEST_CASE("YAML as kubectl writes it passes the guard") {
  const std::vector<std::pair<std::string, int>> texts = {
      {"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-ml\n", 1},
      // kubectl apply's annotation: JSON, commas and braces inside a string.
      {"metadata:\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: |\n"
       "      {\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"a\"}}\n",
       1},
      {"a: {b: 1, c: [x, y]}\nd: [1, 2, 3]\n", 1},
      {"a: b, c\nd: 'e, f'\ng: \"h, i\"\n", 1},
      {"- a, b\n- [c, d]\n- {e: f, g: h}\n", 1},
      {"---\n---\na: 1\n---\n", 1},
      {"a: 1\n...\n---\nb: 2\n...\n", 2},
      {"# only a comment\n", 0},
      {"", 0},
      {"items:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\nkind: List\n", 1},
      {"a: |\n  ,\n  ,,\nb: >\n  , c\n", 1},
  };
  for (const auto& [text, documents] : texts) {
    INFO("[" << text << "]");
    CHECK(yaml_cpp_documents(text) == documents);
    CHECK(kmc_documents(text, "t.yaml") == documents);
  }
}
