// `kmc render TRACE [--format mermaid|text] [--out FILE]`: an ITF
// counterexample as a sequence diagram, Mermaid to paste into a pull request
// or an issue, text to read in a terminal.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "cli/token_trace.hpp"
#include "counterexamples/multikueue/render.hpp"
#include "counterexamples/multikueue/replay_setup.hpp"
#include "counterexamples/render_generic.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cli {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void input_error(const std::string& file, int line, const std::string& field,
                              const std::string& message) {
  throw model::InputError({file, line}, field, message);
}

// A trace of a protocol without a drawing of its own (every one but
// MultiKueue) is drawn from its token, in the protocol's action table.
std::optional<std::string> render_by_token(const cx::ItfDocument& d, cx::RenderFormat format) {
  const auto t = read_token_trace(d);
  if (!t) return std::nullopt;
  return cx::render_generic(*t->outcome.trace, format,
                            "kmc check " + t->named + " --replay " + t->token);
}

// A trace read_token_trace could not place is drawn as MultiKueue's, which
// needs no scenario. One without MultiKueue's cells is another protocol's
// whose scenario is not where #meta.source says: say that, not which
// MultiKueue cell it lacks.
void require_multikueue_or_scenario(const cx::ItfDocument& d) {
  const auto& doc = d.doc;
  const bool first_state = doc.is_object() && doc.contains("states") && doc["states"].is_array() &&
                           !doc["states"].empty() && doc["states"][0].is_object();
  if (!first_state || doc["states"][0].contains("remote")) return;
  const bool has =
      doc.contains("#meta") && doc["#meta"].is_object() && doc["#meta"].contains("source");
  const bool named = has && doc["#meta"]["source"].is_string();
  if (has && !named) cx::itf_error(d, "#meta.source", "expected a string: a scenario folder");
  cx::itf_error(d, "#meta.source",
                named ? fmt::format("scenario folder {} not found (or it has no kmc.yaml): a "
                                    "trace of a protocol other than MultiKueue is drawn from "
                                    "its scenario and its replay token; run from where the "
                                    "trace was made",
                                    doc["#meta"]["source"].dump())
                      : "missing: a trace of a protocol other than MultiKueue is drawn from its "
                        "scenario and its replay token");
}

// A MultiKueue trace is drawn from its cells alone, since its scenario may
// be gone; when the scenario is there, the trace is first read against it as
// a replay reads it, so a cell or an entity the scenario lacks is exit 3 even
// where the diagram would not draw it.
void check_against_scenario(const cx::ItfDocument& d) {
  const auto& doc = d.doc;
  if (!doc.is_object() || !doc.contains("#meta") || !doc["#meta"].is_object() ||
      !doc["#meta"].contains("source") || !doc["#meta"]["source"].is_string())
    return;
  std::error_code ec;
  fs::path dir = doc["#meta"]["source"].get<std::string>();
  if (!fs::is_directory(dir, ec)) dir = fs::path(d.file).parent_path() / dir;
  if (!fs::is_regular_file(dir / "kmc.yaml", ec)) return;
  const cx::ReplayTarget target = cx::load_replay_target(d, dir.string());
  (void)cx::read_itf(d, target.params);
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
      const cx::ItfDocument itf = cx::load_itf(opts->trace);
      const auto generic = render_by_token(itf, *format);
      if (!generic) {
        require_multikueue_or_scenario(itf);
        check_against_scenario(itf);
      }
      const std::string diagram = generic ? *generic : cx::render_trace(itf, *format);
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
