// `kmc replay TRACE.itf.json [--scenario DIR] [--output text|json]`: a model
// counterexample re-executed by the reference admission engine, by the replay
// of the protocol the trace's scenario names. Exit 0 Reproduced, 1 Diverged,
// 3 bad input.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/protocols.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cli {

namespace {

void warn(const model::Scenario& sc) {
  for (const auto& line : model::review_warnings(sc.warnings, false))
    std::cerr << "warning: " << line << "\n";
}

}  // namespace

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
  cmd->add_option("--output", opts->output, "text or json");
  cmd->callback([opts, &exit_code] {
    exit_code = guarded([&] {
      choice_option("--output", opts->output, {"text", "json"});
      const cx::EngineReport r = replay_trace(cx::load_itf(opts->trace), opts->scenario, warn);
      if (opts->output == "json") {
        std::cout << r.json.dump(2) << "\n";
      } else {
        std::cout << r.text;
      }
      return r.reproduced ? 0 : 1;
    });
  });
}

}  // namespace kmc::cli
