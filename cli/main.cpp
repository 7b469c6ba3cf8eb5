// kmc: a model checker and verification harness for GPU dispatch on Kueue.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kmc: model checker for Kueue, MultiKueue and ProvisioningRequest dispatch"};
  // `kmc` alone prints the help and succeeds, as git and kubectl do.
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", kmc::cli::version_text(),
                       "Print kmc's version and the Kueue "
                       "commit its semantics follow");
  int exit_code = 0;
  kmc::cli::add_check_command(app, exit_code);
  kmc::cli::add_admit_command(app, exit_code);
  kmc::cli::add_simulate_command(app, exit_code);
  kmc::cli::add_matrix_command(app, exit_code);
  kmc::cli::add_render_command(app, exit_code);
  kmc::cli::add_replay_command(app, exit_code);
  kmc::cli::add_corpus_command(app, exit_code);
  kmc::cli::add_validate_command(app, exit_code);
  kmc::cli::add_diff_command(app, exit_code);
  kmc::cli::add_synth_command(app, exit_code);
  kmc::cli::add_help_command(app, exit_code);
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
  if (app.get_subcommands().empty()) {
    std::cout << app.help();
    return 0;
  }
  return exit_code;
}
