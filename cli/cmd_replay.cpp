// `kmc replay TRACE.itf.json [--scenario DIR] [--output text|json]`: a model
// counterexample re-executed by the reference admission engine, by the replay
// of the protocol the trace's scenario names. Exit 0 Reproduced, 1 Diverged,
// 3 bad input.
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/protocols.hpp"
#include "counterexamples/kueue_admission/engine_replay.hpp"
#include "counterexamples/multikueue/engine_replay.hpp"
#include "counterexamples/multikueue/replay_setup.hpp"
#include "model/diagnostics.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace kmc::cli {

namespace {

void warn(const model::Scenario& sc) {
  for (const auto& w : sc.warnings) std::cerr << "warning: " << w.to_string() << "\n";
}

cx::EngineReport report(const cx::EngineReplay& r) {
  return {r.verdict == cx::EngineReplay::Verdict::Reproduced, cx::to_text(r), cx::to_json(r)};
}

// The scenario the trace names decides whose replay runs: its kmc.yaml's
// protocol. A trace whose states were edited replays, and diverges where the
// engine does otherwise (exit 1); one that is not a trace of the scenario at
// all (an entity it lacks, another property than its token's) is exit 3.
cx::EngineReport replay(const cx::ItfDocument& itf, const std::string& given) {
  const auto scenario = given.empty() ? std::nullopt : std::optional<std::string>(given);
  const std::string dir = cx::trace_scenario_dir(itf, scenario);
  const std::string protocol = protocol_of(load_checked_scenario(dir)).name;
  if (protocol == protocols::ka::Spec::name) {
    const cx::AdmissionReplayTarget target = cx::load_admission_replay_target(itf, dir);
    warn(target.scenario);
    return report(cx::replay_in_engine(target.scenario, target.params, itf));
  }
  if (protocol != "multikueue")
    cx::itf_error(itf, "#meta.source",
                  fmt::format("{} is a {} scenario, and that protocol has no reference engine to "
                              "replay in (kmc check {} --replay TOKEN re-runs the trace in the "
                              "model)",
                              dir, protocol, dir));
  const cx::ReplayTarget target = cx::load_replay_target(itf, scenario);
  warn(target.scenario);
  return report(cx::replay_in_engine(target.scenario, target.params, itf));
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
      const cx::EngineReport r = replay(cx::load_itf(opts->trace), opts->scenario);
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
