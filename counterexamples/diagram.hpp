// A sequence diagram of a counterexample, as render.cpp builds it from an ITF
// trace: lanes (actors) and lines (arrows and notes), and its two printings.
// Internal to counterexamples/: render.hpp is the interface.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kmc::cx {

struct Lane {
  std::string id;     // Mermaid participant id
  std::string label;  // what people read
};

// A line of the diagram: an arrow, or a note over `from` when `to` is empty.
struct Line {
  std::size_t step;
  std::string from, to;
  std::string text;
};

struct Diagram {
  std::string title;
  std::vector<Lane> lanes;
  std::vector<Line> lines;
  std::optional<std::size_t> loop;  // the steps after this state repeat forever
  std::string closing;              // the property violated and why
  std::string replay;               // the command that re-runs the trace, if known
};

// Mermaid's sequenceDiagram, for pull requests and issues.
std::string print_mermaid(const Diagram& d);
// A numbered list, one "actor -> actor: message" per line, for a terminal.
std::string print_text(const Diagram& d);

}  // namespace kmc::cx
