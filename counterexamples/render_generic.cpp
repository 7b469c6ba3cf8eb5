// A sequence diagram for any protocol with an action table (render_generic.hpp):
// lanes in the order the controllers first act. What a new protocol gets for nothing.
#include "counterexamples/render_generic.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>

#include "counterexamples/diagram.hpp"

namespace kmc::cx {

namespace {

constexpr std::size_t kChangesShown = 3;

std::string lane_id(const std::string& controller) {
  std::string id;
  for (char c : controller) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return id.empty() ? "actor" : id;
}

// "field[entity]: before -> after", for the cells a step changed.
std::vector<std::string> changes(const Step& before, const Step& after) {
  std::map<model::CellKey, const model::CellValue*> old;
  for (const auto& c : before.cells) old[c.key()] = &c.value;
  std::vector<std::string> out;
  for (const auto& c : after.cells) {
    auto it = old.find(c.key());
    if (it != old.end() && *it->second == c.value) continue;
    out.push_back(fmt::format("{} {} -> {}", model::key_text(c.field, c.entity),
                              it == old.end() ? "none" : model::to_string(*it->second),
                              model::to_string(c.value)));
  }
  return out;
}

}  // namespace

std::optional<RenderFormat> parse_render_format(std::string_view name) {
  if (name == "mermaid") return RenderFormat::Mermaid;
  if (name == "text") return RenderFormat::Text;
  return std::nullopt;
}

std::string render_generic(const Trace& t, RenderFormat format, const std::string& replay_command) {
  Diagram d;
  d.title = t.property.empty() ? "a trace" : t.property;
  d.loop = t.loop;
  std::map<std::string, bool> seen;
  for (std::size_t i = 1; i < t.steps.size(); ++i) {
    const Step& s = t.steps[i];
    const std::string controller = s.controller.empty() ? "protocol" : s.controller;
    if (!seen[controller])
      d.lanes.push_back({lane_id(controller), controller}), seen[controller] = true;
    auto changed = changes(t.steps[i - 1], s);
    std::string text = s.action;
    if (!changed.empty()) {
      const std::size_t shown = std::min(changed.size(), kChangesShown);
      text +=
          ": " +
          fmt::format("{}", fmt::join(changed.begin(),
                                      changed.begin() + static_cast<std::ptrdiff_t>(shown), ", "));
      if (changed.size() > shown) text += fmt::format(" (and {} more)", changed.size() - shown);
    }
    d.lines.push_back({i, lane_id(controller), "", text});
  }
  d.closing = t.property.empty() ? "end of the trace" : fmt::format("{} is violated", t.property);
  if (!t.detail.empty()) d.closing += ": " + t.detail;
  d.replay = replay_command;
  return format == RenderFormat::Mermaid ? print_mermaid(d) : print_text(d);
}

}  // namespace kmc::cx
