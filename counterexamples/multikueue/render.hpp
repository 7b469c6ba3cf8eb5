// A counterexample as a sequence diagram, so it can be pasted into a pull
// request or an issue and read at a glance (`kmc render`).
//
// The input is the ITF JSON that `kmc check --trace-out` writes: the diagram
// is drawn from the trace alone, without the scenario, so a trace attached
// to an issue renders anywhere. One lane per actor: the user, the manager,
// the manager's capacity snapshot, and for each worker the worker's Kueue
// and its Cluster Autoscaler. Every MultiKueue action becomes one arrow (or
// a note, for what the environment does to a worker) in Kueue's words; the
// typed cells only add detail (which ClusterQueue, which capacity).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "counterexamples/multikueue/itf_read.hpp"
#include "counterexamples/render_generic.hpp"

namespace kmc::cx {

// The diagram of an ITF trace. `file` names the trace in errors: malformed
// input throws model::InputError naming the file and the field
// (e.g. "states[3].mbt::nondetPicks.cluster").
// A cell that is missing or ill-typed names states[N].FIELD (and, from a
// document read with its text, the line).
std::string render_trace(const ItfDocument& itf, RenderFormat format);
std::string render_trace(const nlohmann::json& itf, RenderFormat format, const std::string& file);

}  // namespace kmc::cx
