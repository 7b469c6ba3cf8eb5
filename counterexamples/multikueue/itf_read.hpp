// Reading a kmc ITF trace back (the writer and the layout are in itf.cpp):
// each state's action and picks resolved to the protocol's job and worker
// indices, and its typed cells, checked against the protocol's schema of
// fields. Anything that is not a kmc trace of this scenario is an InputError
// naming the file, the line of the state and the field (states[3].remote).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "counterexamples/itf_document.hpp"
#include "model/cell.hpp"
#include "model/spec.hpp"
#include "protocols/multikueue_params.hpp"
#include "protocols/multikueue_state.hpp"

namespace kmc::cx {

struct ItfStep {
  std::size_t index = 0;
  protocols::ActionKind kind = protocols::ActionKind::ReserveQuota;
  bool init = false;
  int job = -1, worker = -1;
  std::string flavor;
  model::Cells cells;  // every typed cell of the state, in the order written
};

struct ItfTrace {
  std::string property;
  std::string source;  // the scenario folder it was made from (#meta.source)
  std::string token;   // #meta.replay
  int subject = 0;     // the job the property is about (from the token)
  std::optional<std::size_t> loop;
  std::map<std::string, std::string> levers;  // #meta.levers: a kmc matrix cell's settings
  std::vector<ItfStep> steps;
};

// The typed cells of state i, checked against `fields`: a required field that
// is missing, or a key or value of the wrong type (an integer where a name
// belongs, a phase outside the enum), names states[i].FIELD. No scenario
// needed: render reads traces whose scenario is gone.
model::Cells read_cells(const ItfDocument& d, std::size_t i,
                        const std::vector<model::FieldSchema>& fields);
// The same for any object of ITF variables (an engine log's cells) at the
// JSON path `where`, which an error names with its line.
model::Cells read_cells(const ItfDocument& d, const nlohmann::json& vars, const std::string& where,
                        const std::vector<model::FieldSchema>& fields);

// A state as written, before any scenario resolves its names: the action,
// every pick (each a string) and the typed cells of `fields`. Render draws
// from this; read_itf resolves it against the scenario.
struct ItfRawStep {
  std::string action;
  std::map<std::string, std::string> picks;
  model::Cells cells;
};
ItfRawStep read_raw_step(const ItfDocument& d, std::size_t i,
                         const std::vector<model::FieldSchema>& fields);
// The action and picks of state i (i > 0) checked against `layout`'s action
// table (counterexamples/itf_picks.hpp): an unknown action, a missing or
// extra pick, or one that names no entity of its axis is an InputError naming
// the file, the state's line and states[i].mbt::nondetPicks.KEY.
model::ActionRef check_picks(const ItfDocument& d, std::size_t i, const ItfRawStep& s,
                             const model::Layout& layout);

// The document's #meta alone (no scenario needed yet).
ItfTrace read_itf_meta(const ItfDocument& d);
ItfTrace read_itf(const ItfDocument& d, const protocols::MkParams& p);

}  // namespace kmc::cx
