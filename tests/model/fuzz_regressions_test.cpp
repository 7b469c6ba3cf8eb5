// The crashes fuzz/'s harnesses found in model/, each reproduced in the normal
// build (no sanitizer: the test states the answer the fixed code gives), and
// every input of fuzz/regressions/ for model's harnesses loaded as the harness
// does, where the only acceptable failure is an InputError (exit 3).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fixtures.hpp"
#include "model/quantity.hpp"
#include "model/scenario.hpp"

namespace fs = std::filesystem;
using namespace kmc::model;
using kmc::test::contains;
using kmc::test::input_error_of;

namespace {

std::vector<std::string> regressions(const std::string& harness) {
  std::vector<std::string> files;
  const fs::path dir = fs::path(KMC_SOURCE_DIR) / "fuzz/regressions" / harness;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() != ".md") files.push_back(e.path().string());
  return files;
}

}  // namespace

// Two containers of 5P cpu each: each request fits an int64 of milli-units,
// their sum did not, and Quantity's unchecked + wrapped (UBSan: signed
// integer overflow in model/quantity.hpp, from read_pod_template.cpp).
TEST_CASE("fuzz_manifests: a pod whose requests add up past int64 is bad input, not a wrap") {
  const std::string file =
      std::string(KMC_SOURCE_DIR) + "/fuzz/regressions/manifests/requests-sum-overflow.yaml";
  const Diagnostic d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.pos.file == file);
  CHECK(d.pos.line == 17);  // the second container, where the sum overflows
  CHECK(d.field == "spec.template.spec.containers[1]");
  CHECK(contains(d.message, "cpu requests add up to more than 9.2e15 units"));
}

// 5000 pods of 2Pi memory: the pod set's total wrapped in the engine's
// pod_set_requests and the protocol's compile (seen reviewing the flavor
// assigner against Kueue, which saturates the total at MaxInt64).
TEST_CASE("a pod set whose count times its requests passes int64 is bad input, not a wrap") {
  const std::string file =
      std::string(KMC_SOURCE_DIR) + "/fuzz/regressions/manifests/podset-total-overflow.yaml";
  const Diagnostic d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.pos.file == file);
  CHECK(d.pos.line == 3);
  CHECK(d.field == "spec.podSets[0].count");
  CHECK(contains(d.message, "5000 pods' memory requests add up to more than kmc holds"));
}

// `name: !100` is a tag with an empty value: an empty name, which reached the generateName code
// with nothing to generate from (an assertion there, found by fuzz_manifests).
TEST_CASE("fuzz_manifests: an empty metadata.name is bad input at its line") {
  const std::string file =
      std::string(KMC_SOURCE_DIR) + "/fuzz/regressions/manifests/empty-name-tag.yaml";
  const Diagnostic d = input_error_of([&] { load_cluster_manifests({file}); });
  CHECK(d.pos == SourcePos{file, 4});
  CHECK(d.field == "metadata.name");
  CHECK(contains(d.message, "must not be empty"));
}

TEST_CASE("fuzz_manifests: every regression input loads or is an InputError") {
  for (const auto& file : regressions("manifests")) {
    INFO(file);
    try {
      ClusterManifests m = load_cluster_manifests({file});
      validate_cluster_references(m, m.warnings);
    } catch (const InputError&) {
    }
  }
}

TEST_CASE("fuzz_quantity: every regression input parses or is a QuantityError") {
  for (const auto& file : regressions("quantity")) {
    INFO(file);
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    try {
      const Quantity q = parse_quantity(text.str());
      CHECK(parse_quantity(q.to_string()) == q);
    } catch (const QuantityError&) {
    }
  }
}
