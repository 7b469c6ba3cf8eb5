// `kmc admit PATH... [--cycles N] [--output text|json]`: one cluster's
// manifests through the reference engine: who is admitted, who waits and why.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "engine/engine.hpp"
#include "engine/report.hpp"
#include "model/diagnostics.hpp"
#include "model/scenario.hpp"

namespace kmc::cli {

void add_admit_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "admit", "run one cluster's Kueue manifests through the reference admission engine");
  struct Options {
    std::vector<std::string> paths;
    std::optional<std::string> cycles;  // unset: until nothing changes
    std::string output = "text";
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("paths", opts->paths, "manifest files or folders")->required();
  cmd->add_option("--cycles", opts->cycles,
                  "scheduling cycles to run (default: until nothing changes)");
  cmd->add_option("--output", opts->output, "text or json");
  cmd->callback([opts, &exit_code] {
    exit_code = guarded([&] {
      const long cycles_asked = integer_option("--cycles", opts->cycles, 0).value_or(-1);
      choice_option("--output", opts->output, {"text", "json"});
      const model::ClusterManifests manifests = model::load_cluster_manifests(opts->paths);
      for (const auto& w : manifests.warnings) std::cerr << "warning: " << w.to_string() << "\n";
      engine::Engine e(manifests);
      // Jobs in manifests have no known runtime: admitted ones keep running, so the
      // run ends when the scheduler has nothing left to change.
      const long cycles = e.run(cycles_asked);
      const engine::AdmitReport report = engine::make_report(e, cycles);
      if (opts->output == "json") {
        std::cout << engine::to_json(report).dump(2) << "\n";
      } else {
        std::cout << engine::to_text(report);
      }
      return 0;
    });
  });
}

}  // namespace kmc::cli
