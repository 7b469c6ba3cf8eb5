// Fuzzes the kmc.yaml loader (model/fleet_loader.cpp, through load_scenario):
// the input is kmc.yaml in a copy of examples/gpu-hunter, whose manager/ and
// workers/ manifests stay fixed, so the fleet's names meet real manifests.
// A MultiKueue scenario that loads is then compiled into the protocol's
// parameters, as `kmc check` does next, where levers and options are read.
#include "fuzz/fuzz_support.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue_params.hpp"

namespace {

const std::filesystem::path& scenario_copy() {
  static const std::filesystem::path dir = [] {
    const auto d = kmc::fuzz::scratch_dir() / "gpu-hunter";
    std::filesystem::copy(kmc::fuzz::source_dir() / "examples/gpu-hunter", d,
                          std::filesystem::copy_options::recursive);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& dir = scenario_copy();
  kmc::fuzz::write_file(dir / "kmc.yaml", kmc::fuzz::as_text(data, size));
  kmc::fuzz::expect_input_error([&] {
    const kmc::model::Scenario s = kmc::model::load_scenario(dir.string());
    if (s.fleet.protocol == "multikueue") (void)kmc::protocols::compile_multikueue(s);
  });
  return 0;
}
