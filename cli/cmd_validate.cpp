// `kmc validate ENGINE_LOG [--scenario DIR]`: is a run of the engine a
// behaviour the model allows? `kmc validate --walk DIR [--seed S] [--walks N]
// [--steps K] [--log-out FILE]` makes the runs itself: seeded random walks of
// the engine's fleet. Exit 0 allowed, 1 a step the model cannot explain, 2 a
// step the search's limits left unexplained (Incomplete), 3 bad input.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "counterexamples/multikueue/engine_walk.hpp"
#include "model/diagnostics.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cli {

namespace {

struct ValidateArgs {
  std::string log;
  std::string scenario;
  std::string walk;
  std::uint64_t seed = 1;
  int walks = 1, steps = 40;
  cx::SearchLimits limits;
  std::string log_out;
  // As given; read into the fields above by read_numbers (cli/options.hpp).
  std::string seed_text = "1", walks_text = "1", steps_text = "40", lookahead_text, max_states_text;
};

// The numeric options: a walk needs a seed of 0 or more and at least one of
// everything else. Bounded so that seed + walks and the runs stay in range.
void read_numbers(ValidateArgs& a) {
  constexpr std::int64_t most = 1'000'000'000;
  a.seed = static_cast<std::uint64_t>(integer_option("--seed", a.seed_text, 0, most * most));
  a.walks = static_cast<int>(integer_option("--walks", a.walks_text, 1, most));
  a.steps = static_cast<int>(integer_option("--steps", a.steps_text, 1, most));
  if (!a.lookahead_text.empty())
    a.limits.max_depth = static_cast<int>(integer_option("--lookahead", a.lookahead_text, 1, most));
  if (!a.max_states_text.empty())
    a.limits.max_states =
        static_cast<std::size_t>(integer_option("--max-states", a.max_states_text, 1, most));
}

cx::EngineLog read_log(const std::string& file) {
  return cx::engine_log_from_json(cx::load_itf(file));
}

// Engine logs are MultiKueue's (counterexamples/multikueue/validate.cpp).
void require_multikueue(const model::Scenario& sc) {
  if (sc.fleet.protocol != "multikueue")
    throw model::InputError(
        sc.fleet.protocol_pos, "protocol",
        "kmc validate checks MultiKueue engine logs; it does not run protocol " +
            sc.fleet.protocol + " yet");
}

int exit_code(const cx::Validation& v) {
  return v.allowed ? 0 : v.complete ? 1 : 2;
}

int validate_file(const ValidateArgs& a) {
  const cx::EngineLog log = read_log(a.log);
  const std::string dir = a.scenario.empty() ? log.scenario : a.scenario;
  if (dir.empty())
    throw model::InputError({a.log, 0}, "scenario",
                            "the log names no scenario; pass --scenario DIR");
  const model::Scenario sc = model::load_scenario(dir);
  require_multikueue(sc);
  const protocols::MultiKueue mk(protocols::compile_multikueue(sc));
  const cx::Validation v = cx::validate_log(mk, log, a.limits);
  std::cout << cx::to_text(v);
  return exit_code(v);
}

int validate_walks(const ValidateArgs& a) {
  const model::Scenario sc = model::load_scenario(a.walk);
  require_multikueue(sc);
  const protocols::MkParams params = protocols::compile_multikueue(sc);
  const protocols::MultiKueue mk(params);
  int failed = 0, code = 0;
  std::size_t steps = 0;
  for (int k = 0; k < a.walks; ++k) {
    const std::uint64_t seed = a.seed + static_cast<std::uint64_t>(k);
    const cx::EngineLog log = cx::random_walk(sc, params, seed, a.steps);
    steps += log.steps.size();
    if (!a.log_out.empty() && (k == 0 || failed == 0))
      std::ofstream(a.log_out) << cx::to_json(log).dump(2) << "\n";
    const cx::Validation v = cx::validate_log(mk, log, a.limits);
    if (!v.allowed) {
      ++failed;
      code = exit_code(v);
      if (!a.log_out.empty()) std::ofstream(a.log_out) << cx::to_json(log).dump(2) << "\n";
      std::cout << fmt::format("walk seed {}: ", seed) << cx::to_text(v);
      break;
    }
  }
  if (failed == 0)
    fmt::print(
        "Allowed: {} random walk{} of the engine ({} steps, seeds {}..{}) are behaviours of the "
        "model.\n",
        a.walks, a.walks == 1 ? "" : "s", steps, a.seed,
        a.seed + static_cast<std::uint64_t>(a.walks) - 1);
  return code;
}

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("validate",
                                 "check that a run of the engine is a behaviour the model allows");
  auto a = std::make_shared<ValidateArgs>();
  cmd->add_option("log", a->log, "an engine log (kind: kmc-engine-log), e.g. from --log-out");
  cmd->add_option("--scenario", a->scenario, "the scenario folder (default: the log's)");
  cmd->add_option("--walk", a->walk,
                  "make the runs: seeded random walks of this scenario's engine fleet");
  cmd->add_option("--seed", a->seed_text, "the first walk's seed (default 1)");
  cmd->add_option("--walks", a->walks_text, "how many walks (seeds seed, seed+1, ...)");
  cmd->add_option("--steps", a->steps_text, "environment events per walk");
  cmd->add_option("--lookahead", a->lookahead_text,
                  "model actions allowed per engine step (default: no limit)");
  cmd->add_option("--max-states", a->max_states_text,
                  "model states searched per engine step before the answer is Incomplete "
                  "(default 20000)");
  cmd->add_option("--log-out", a->log_out, "write the (first failing, else first) walk's log here");
  cmd->callback([a, &exit_code] {
    exit_code = guarded([&] {
      read_numbers(*a);
      if (a->log.empty() == a->walk.empty())
        throw model::InputError({}, "", "give either an engine log or --walk DIR");
      return a->walk.empty() ? validate_file(*a) : validate_walks(*a);
    });
  });
}

}  // namespace kmc::cli
