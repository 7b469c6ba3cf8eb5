// Printing a diagram (diagram.hpp): Mermaid for GitHub, text for a terminal.
#include <fmt/format.h>

#include <map>

#include "counterexamples/diagram.hpp"

namespace kmc::cx {

namespace {

// Mermaid ends a message at ';' and reads '#' as the start of an entity
// code; '<' and '>' would reach the SVG as markup. Each becomes its entity
// code, and a line break (which would end the statement) a space.
std::string mermaid_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '#' || c == ';' || c == '<' || c == '>')
      out += fmt::format("#{};", static_cast<int>(c));
    else
      out += c == '\n' || c == '\r' ? ' ' : c;
  }
  return out;
}

// A step's first line carries its number; the lines after it (a stale view,
// the ProvisioningRequest that a quota reservation creates) continue it.
bool opens_step(const Diagram& d, std::size_t k) {
  return k == 0 || d.lines[k - 1].step != d.lines[k].step;
}

// A lasso's loop starts after its first state: the steps after `loop` lead
// back to it.
bool opens_loop(const Diagram& d, std::size_t k) {
  return d.loop && d.lines[k].step > *d.loop && (k == 0 || d.lines[k - 1].step <= *d.loop);
}

}  // namespace

std::string print_mermaid(const Diagram& d) {
  std::string out = "sequenceDiagram\n";
  out += fmt::format("    %% kmc render: {}\n", mermaid_text(d.title));
  for (const auto& lane : d.lanes)
    out += fmt::format("    {} {} as {}\n", lane.id == "user" ? "actor" : "participant", lane.id,
                       mermaid_text(lane.label));
  std::string indent = "    ";
  for (std::size_t k = 0; k < d.lines.size(); ++k) {
    const Line& l = d.lines[k];
    if (opens_loop(d, k)) {
      out += fmt::format("    loop from state {}, repeats forever\n", *d.loop);
      indent = "        ";
    }
    const std::string text =
        (opens_step(d, k) ? fmt::format("{}. ", l.step) : "") + mermaid_text(l.text);
    if (l.to.empty())
      out += fmt::format("{}Note over {}: {}\n", indent, l.from, text);
    else
      out += fmt::format("{}{}->>{}: {}\n", indent, l.from, l.to, text);
  }
  if (indent.size() > 4) out += "    end\n";
  out += fmt::format("    Note over {},{}: {}\n", d.lanes.front().id, d.lanes.back().id,
                     mermaid_text(d.closing));
  if (!d.replay.empty()) out += fmt::format("    %% replay: {}\n", mermaid_text(d.replay));
  return out;
}

// For a terminal: a numbered list, one "actor -> actor: message" per line.
// Seven lanes side by side would not fit 100 columns with Kueue's names.
std::string print_text(const Diagram& d) {
  std::map<std::string, std::string> label;
  std::vector<std::string> labels;
  for (const auto& lane : d.lanes) label[lane.id] = lane.label, labels.push_back(lane.label);
  const std::size_t width = std::to_string(d.lines.empty() ? 0 : d.lines.back().step).size();
  std::string out = fmt::format("Trace: {}\nLanes: {}\n\n", d.title, fmt::join(labels, " | "));
  std::string bar;
  for (std::size_t k = 0; k < d.lines.size(); ++k) {
    const Line& l = d.lines[k];
    if (opens_loop(d, k)) {
      out += fmt::format("  loop from state {}, repeats forever:\n", *d.loop);
      bar = "| ";
    }
    const std::string number =
        opens_step(d, k) ? fmt::format("{:>{}}.", l.step, width) : std::string(width + 1, ' ');
    if (l.to.empty())
      out += fmt::format("  {}{} note over {}: {}\n", bar, number, label[l.from], l.text);
    else
      out += fmt::format("  {}{} {} -> {}: {}\n", bar, number, label[l.from], label[l.to], l.text);
  }
  if (!bar.empty()) out += fmt::format("  end of loop: back to state {}, forever\n", *d.loop);
  out += "\n" + d.closing + "\n";
  if (!d.replay.empty()) out += "Replay: " + d.replay + "\n";
  return out;
}

}  // namespace kmc::cx
