// Counterexamples as sequence diagrams, for pull requests, issues and
// terminals. render_generic draws any protocol with an action table from the
// trace in memory: one lane per controller group, one note per step naming
// the action and the cells it changed. MultiKueue has its own, richer drawing
// from an ITF file alone (multikueue/render.hpp, `kmc render`).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "counterexamples/trace.hpp"

namespace kmc::cx {

enum class RenderFormat { Mermaid, Text };

// "mermaid" or "text"; nullopt for anything else.
std::optional<RenderFormat> parse_render_format(std::string_view name);

std::string render_generic(const Trace& t, RenderFormat format, const std::string& replay_command);

}  // namespace kmc::cx
