#include "counterexamples/kueue_engine/why_unwitnessed.hpp"

#include <fmt/format.h>

#include "engine/engine.hpp"
#include "engine/report.hpp"

namespace kmc::cx {

std::vector<std::string> kueue_words(
    const std::vector<std::pair<std::string, model::ClusterManifests>>& clusters) {
  std::vector<std::string> out;
  for (const auto& [name, manifests] : clusters) {
    engine::Engine e(manifests);
    // Bounded: a cluster whose scheduler keeps changing its mind (a preemption cycle) is
    // still worded as it stands after these cycles.
    const long cycles = e.run(1000);
    for (const auto& w : engine::make_report(e, cycles).workloads) {
      if (w.state == "Admitted" || w.state == "Finished") continue;
      out.push_back(fmt::format("on {}: {} stays {}{}", name, w.name, w.state,
                                w.message.empty() ? "" : ": " + w.message));
    }
  }
  return out;
}

}  // namespace kmc::cx
