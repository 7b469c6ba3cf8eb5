#include "counterexamples/timeline.hpp"

#include <fmt/format.h>

#include <map>

namespace kmc::cx {

std::string render_timeline(const Trace& t) {
  std::string out;
  if (t.steps.empty()) return out;
  std::size_t width = 0;
  for (const auto& [k, v] : t.steps.front().state) width = std::max(width, k.size());
  out += "State 0: <Initial state>\n";
  for (const auto& [k, v] : t.steps.front().state)
    out += fmt::format("  {:<{}}  {}\n", k, width, v);
  for (std::size_t i = 1; i < t.steps.size(); ++i) {
    out += fmt::format("State {}: <{}>{}\n", i, t.steps[i].action,
                       t.steps[i].note.empty() ? "" : " " + t.steps[i].note);
    const auto& before = t.steps[i - 1].state;
    const auto& after = t.steps[i].state;
    std::map<std::string, std::string> old(before.begin(), before.end());
    bool any = false;
    for (const auto& [k, v] : after) {
      auto it = old.find(k);
      if (it != old.end() && it->second == v) continue;
      out +=
          fmt::format("  {:<{}}  {} -> {}\n", k, width, it == old.end() ? "(none)" : it->second, v);
      any = true;
    }
    if (!any) out += "  (nothing changed)\n";
  }
  if (t.loop) out += fmt::format("Back to state {}: the loop repeats forever.\n", *t.loop);
  return out;
}

}  // namespace kmc::cx
