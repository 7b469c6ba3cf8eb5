// `kmc render TRACE [--format mermaid|text] [--out FILE]`: an ITF
// counterexample as a sequence diagram, Mermaid to paste into a pull request
// or an issue, text to read in a terminal.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.hpp"
#include "cli/protocols.hpp"
#include "counterexamples/itf.hpp"
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
// MultiKueue) is drawn from its replay token, re-checked against the
// scenario the trace names; the file's states must be what the token gives,
// so a trace edited by hand or made for another scenario is refused.
std::optional<std::string> render_by_token(const std::string& file, cx::RenderFormat format) {
  std::ifstream in(file);
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("#meta")) return std::nullopt;
  const auto& meta = doc["#meta"];
  if (!meta.contains("source") || !meta["source"].is_string() || !meta.contains("replay") ||
      !meta["replay"].is_string())
    return std::nullopt;
  const std::string source = meta["source"], token = meta["replay"];
  std::error_code ec;
  if (!std::filesystem::is_regular_file(source + "/kmc.yaml", ec)) return std::nullopt;
  const model::Scenario sc = load_checked_scenario(source);
  const ProtocolEntry& protocol = protocol_of(sc);
  if (protocol.name == "multikueue") return std::nullopt;
  cx::CheckRequest req;
  req.replay_token = token;
  const cx::CheckOutcome o = protocol.check(sc, req);
  if (!o.trace) input_error(file, 0, "#meta.replay", "the token gives no trace in " + source);
  if (cx::to_itf(*o.trace, source, token)["states"] != doc.value("states", nlohmann::json()))
    input_error(file, 0, "states",
                "the states are not what the trace's token gives in " + source +
                    " (edited, or made for another version of the scenario)");
  return cx::render_generic(*o.trace, format, "kmc check " + source + " --replay " + token);
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
