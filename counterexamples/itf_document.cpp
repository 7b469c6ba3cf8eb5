#include "counterexamples/itf_document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/diagnostics.hpp"

namespace kmc::cx {

ItfDocument parse_itf(const std::string& file, const std::string& text) {
  ItfDocument d{file, text, {}, JsonLines(text)};
  try {
    d.doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // A syntax error, or a number no JSON reader holds (1e400: out_of_range, which has no
    // position of its own; the SAX pass that indexed the lines stopped there).
    throw model::InputError({file, std::max(1, d.lines.error_line())}, "",
                            fmt::format("not JSON: {}", e.what()));
  }
  return d;
}

ItfDocument load_itf(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw model::InputError({file, 0}, "", "cannot read the file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_itf(file, ss.str());
}

ItfDocument itf_in_memory(const std::string& name, nlohmann::json doc) {
  return ItfDocument{name, "", std::move(doc), {}};
}

int itf_line(const ItfDocument& d, const std::string& path) {
  return d.lines.line_of(path);
}

void itf_error(const ItfDocument& d, const std::string& field, const std::string& message) {
  throw model::InputError({d.file, itf_line(d, field)}, field, message);
}

std::string trace_scenario_dir(const ItfDocument& d, const std::optional<std::string>& given) {
  std::string dir;
  if (given) {
    dir = *given;
  } else if (d.doc.is_object() && d.doc.contains("#meta") && d.doc["#meta"].is_object() &&
             d.doc["#meta"].contains("source")) {
    if (!d.doc["#meta"]["source"].is_string())
      itf_error(d, "#meta.source", "expected a string: the scenario folder the trace was made of");
    dir = d.doc["#meta"]["source"].get<std::string>();
  }
  if (dir.empty()) itf_error(d, "#meta.source", "the trace names no scenario; pass --scenario DIR");
  // A trace kept beside its scenario (the corpus) names it relative to itself.
  if (!given && !std::filesystem::is_directory(dir)) {
    const auto beside = std::filesystem::path(d.file).parent_path() / dir;
    if (std::filesystem::is_directory(beside)) dir = beside.string();
  }
  if (!std::filesystem::is_directory(dir)) {
    const std::string why = fmt::format(
        "scenario folder '{}' not found (run from where the trace was made, or pass --scenario "
        "DIR)",
        dir);
    if (given) throw model::InputError({}, "--scenario", why);
    itf_error(d, "#meta.source", why);
  }
  return dir;
}

}  // namespace kmc::cx
