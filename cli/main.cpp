// kmc: a model checker and verification harness for GPU dispatch on Kueue.
#include <CLI/CLI.hpp>
#include <iostream>

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
    if (e.get_exit_code() == 0) return app.exit(e);  // --help is success
    // Every usage error is exit 3, worded as the commands word a bad option value
    // (cli/options.hpp), so a script can read one shape of message.
    std::cerr << "error: <command line>: " << e.what()
              << "\nRun with --help for more information.\n";
    return 3;
  }
  return exit_code;
}
