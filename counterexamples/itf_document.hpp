// An ITF document as read from a file: the JSON, and the line each of its
// values starts on, so every error about it names FILE:LINE: FIELD. Every
// reader of kmc's traces (replay, render, the corpus, the engine-log
// validator) starts from one of these; the protocol-specific readers are in
// counterexamples/<protocol>/.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "counterexamples/json_lines.hpp"

namespace kmc::cx {

struct ItfDocument {
  std::string file;
  std::string text;
  nlohmann::json doc;
  JsonLines lines;  // of `text`; empty for a document built in memory (then errors say line 1)
};

// Parses `text`; a JSON syntax error names the file and line.
ItfDocument parse_itf(const std::string& file, const std::string& text);
ItfDocument load_itf(const std::string& file);
// A document kmc built in memory (a trace it just found), for the same readers.
ItfDocument itf_in_memory(const std::string& name, nlohmann::json doc);

// The line of the value at `path` (a JSON path: "states[3].phase", "#meta.replay").
int itf_line(const ItfDocument& d, const std::string& path);
// Throws the InputError that names the file, the line of `field` and `field`.
[[noreturn]] void itf_error(const ItfDocument& d, const std::string& field,
                            const std::string& message);

// The scenario folder a trace is replayed in: `given` (--scenario), else its
// #meta.source, looked up beside the trace too (a corpus entry names its
// scenario relative to itself). An InputError naming the field when there is none.
std::string trace_scenario_dir(const ItfDocument& d, const std::optional<std::string>& given);

}  // namespace kmc::cx
