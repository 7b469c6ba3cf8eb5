// Fuzzes the Kueue manifest loader (model/scenario.hpp load_cluster_manifests)
// with one YAML file, as `kmc admit FILE` reads it: yaml-cpp behind kmc's
// guard against its endless LoadAll (model/yaml_documents.cpp), every kind's
// reader, then the cross-object checks a scenario adds.
#include "fuzz/fuzz_support.hpp"
#include "model/scenario.hpp"

namespace {

const std::string& input_file() {
  static const std::string path = (kmc::fuzz::scratch_dir() / "input.yaml").string();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kmc::fuzz::write_file(input_file(), kmc::fuzz::as_text(data, size));
  kmc::fuzz::expect_input_error([] {
    kmc::model::ClusterManifests cluster = kmc::model::load_cluster_manifests({input_file()});
    kmc::model::validate_cluster_references(cluster, cluster.warnings);
  });
  return 0;
}
