// One function per `kmc` subcommand; each registers itself on the app and,
// when run, stores its exit code (0 verified/reproduced, 1 violated/diverged,
// 2 incomplete, 3 bad input or usage).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace kmc::cli {

void add_check_command(CLI::App& app, int& exit_code);
void add_admit_command(CLI::App& app, int& exit_code);
void add_simulate_command(CLI::App& app, int& exit_code);
void add_matrix_command(CLI::App& app, int& exit_code);
void add_render_command(CLI::App& app, int& exit_code);
void add_replay_command(CLI::App& app, int& exit_code);
void add_corpus_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);
void add_diff_command(CLI::App& app, int& exit_code);
// `kmc synth` (cli/cmd_synth.cpp): parameter regions per property.
void add_synth_command(CLI::App& app, int& exit_code);
// `kmc help [TOPIC]` and `kmc completion bash` (cli/cmd_help.cpp).
void add_help_command(CLI::App& app, int& exit_code);
// (other subcommands add their declarations here, one line each)

// Runs a command body: a model::InputError is printed as `error: ...` and
// becomes exit 3. The one place that mapping is written (cli/guarded.cpp).
int guarded(const std::function<int()>& body);

}  // namespace kmc::cli
