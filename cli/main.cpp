// kmc: a model checker and verification harness for GPU dispatch on Kueue.
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kmc: model checker for Kueue, MultiKueue and ProvisioningRequest dispatch"};
  app.require_subcommand(1);
  int exit_code = 0;
  kmc::cli::add_check_command(app, exit_code);
  kmc::cli::add_admit_command(app, exit_code);
  kmc::cli::add_simulate_command(app, exit_code);
  kmc::cli::add_matrix_command(app, exit_code);
  kmc::cli::add_render_command(app, exit_code);
  kmc::cli::add_replay_command(app, exit_code);
  kmc::cli::add_corpus_command(app, exit_code);
  kmc::cli::add_validate_command(app, exit_code);
  // (other subcommands register here, one line each)
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 3;  // --help is success; every usage error is exit 3
  }
  return exit_code;
}
