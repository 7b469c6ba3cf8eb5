// The engine's stuck confirmation asks what the model's no-stuck-job asks:
// could some worker run the job now, its own reservation there not counted
// against it (issue 12: the engine/model "could run" mismatch).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "cli/run_kmc.hpp"

namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("a job whose every copy holds quota behind a hanging autoscaler is stuck in the engine",
          "[cli][stuck]") {
  // gpu-hunter under AllAtOnce, both autoscalers accepting and never answering: asia-southeast1
  // has the nodes and the job's copy holds its quota there, yet nothing moves it.
  const std::string kmc_yaml = replaced(
      replaced(slurp(std::string(KMC_SOURCE_DIR) + "/examples/gpu-hunter/kmc.yaml"),
               "{answer: Provisions}", "{answer: AcceptsThenHangs}"),
      "dispatcher: {policy: CapacitySnapshot, pin: true}", "dispatcher: {policy: KueueDispatcher}");
  const std::string dir = example_with("gpu-hunter", "kmc.yaml", kmc_yaml);
  const std::string config = dir + "/manager/kueue-manager-config.yaml";
  const std::string text = replaced(slurp(config), "example.com/capacity-snapshot-dispatcher",
                                    "kueue.x-k8s.io/multikueue-dispatcher-all-at-once");
  std::ofstream(config) << text;
  const Run r = kmc("check " + dir + " --property no-stuck-job --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("asia-southeast1 could run it now") != std::string::npos);
  // Before: the engine refused any worker holding a copy, and said Diverged.
  CHECK(r.out.find("Result: Violated (Reproduced in the engine)") != std::string::npos);
}
