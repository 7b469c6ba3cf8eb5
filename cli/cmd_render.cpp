// `kmc render TRACE [--format mermaid|text] [--out FILE]`: an ITF
// counterexample as a sequence diagram, Mermaid to paste into a pull request
// or an issue, text to read in a terminal.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "cli/token_trace.hpp"
#include "counterexamples/multikueue/render.hpp"
#include "counterexamples/render_generic.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cli {

namespace {

[[noreturn]] void input_error(const std::string& file, int line, const std::string& field,
                              const std::string& message) {
  throw model::InputError({file, line}, field, message);
}

// A trace of a protocol without a drawing of its own (every one but
// MultiKueue) is drawn from its token, in the protocol's action table.
std::optional<std::string> render_by_token(const std::string& file, cx::RenderFormat format) {
  const auto t = read_token_trace(file);
  if (!t) return std::nullopt;
  return cx::render_generic(*t->outcome.trace, format,
                            "kmc check " + t->named + " --replay " + t->token);
}

}  // namespace

void add_render_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "render", "draw an ITF counterexample as a sequence diagram (mermaid or text)");
  struct Options {
    std::string trace;
    std::string format = "text";
    std::string out;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("trace", opts->trace, "the ITF JSON trace (kmc check --trace-out)")->required();
  // Checked in the callback, not by CLI11, so the error names the option the way every other bad
  // input does.
  cmd->add_option("--format", opts->format, "mermaid or text (default text)");
  cmd->add_option("--out", opts->out, "write the diagram to this file instead of stdout");
  cmd->callback([opts, &exit_code] {
    exit_code = guarded([&] {
      const auto format = cx::parse_render_format(opts->format);
      if (!format)
        input_error("", 0, "--format",
                    fmt::format("unknown format {}: expected mermaid or text", opts->format));
      // Read with its text, so a bad cell names its line too.
      const auto generic = render_by_token(opts->trace, *format);
      const std::string diagram =
          generic ? *generic : cx::render_trace(cx::load_itf(opts->trace), *format);
      if (opts->out.empty()) {
        std::cout << diagram;
      } else {
        std::ofstream out(opts->out);
        if (!(out << diagram)) input_error(opts->out, 0, "--out", "cannot write the diagram here");
      }
      return 0;
    });
  });
}

}  // namespace kmc::cli
