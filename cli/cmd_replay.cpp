// `kmc replay TRACE.itf.json [--scenario DIR] [--output text|json]`: a model
// counterexample re-executed by the reference admission engine. Exit 0
// Reproduced, 1 Diverged, 3 bad input.
#include <iostream>

#include "cli/commands.hpp"
#include "counterexamples/multikueue/engine_replay.hpp"
#include "counterexamples/multikueue/replay_setup.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cli {

void add_replay_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "replay", "re-execute a counterexample trace in the reference admission engine");
  struct Options {
    std::string trace;
    std::string scenario;
    std::string output = "text";
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("trace", opts->trace,
                  "an ITF trace written by kmc check, kmc matrix or the corpus")
      ->required();
  cmd->add_option("--scenario", opts->scenario,
                  "the scenario folder (default: the trace's #meta.source)");
  cmd->add_option("--output", opts->output, "text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->callback([opts, &exit_code] {
    exit_code = guarded([&] {
      const cx::ItfDocument itf = cx::load_itf(opts->trace);
      const cx::ReplayTarget target = cx::load_replay_target(
          itf, opts->scenario.empty() ? std::nullopt : std::optional<std::string>(opts->scenario));
      for (const auto& w : target.scenario.warnings)
        std::cerr << "warning: " << w.to_string() << "\n";
      const cx::EngineReplay r = cx::replay_in_engine(target.scenario, target.params, itf);
      if (opts->output == "json") {
        std::cout << cx::to_json(r).dump(2) << "\n";
      } else {
        std::cout << cx::to_text(r);
      }
      return r.verdict == cx::EngineReplay::Verdict::Reproduced ? 0 : 1;
    });
  });
}

}  // namespace kmc::cli
