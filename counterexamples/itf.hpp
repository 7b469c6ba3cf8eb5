// ITF, the Informal Trace Format of Apalache and Quint
// (apalache-mc.org/docs/adr/015adr-trace.html), with the model-based-testing
// fields mbt::actionTaken and mbt::nondetPicks on every state, so existing
// trace tools read kmc's counterexamples. The layout is described in itf.cpp.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "counterexamples/trace.hpp"
#include "model/cell.hpp"

namespace kmc::cx {

nlohmann::json to_itf(const Trace& t, const std::string& source, const std::string& replay_token);

// The document as kmc writes it to a file: indented as dump(2), but a value
// that fits on one line (a #map entry, a #tup, a state's #meta) stays on one,
// so a trace is read, and diffed, a cell per line.
std::string itf_text(const nlohmann::json& doc);

// A state's cells as ITF variables: one per field, each a {"#map": ...} from
// the entity (a name, or a {"#tup": [...]} of names) to the typed value.
nlohmann::json itf_variables(const std::vector<model::Cell>& cells);

}  // namespace kmc::cx
