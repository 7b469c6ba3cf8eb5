// The protocols kmc checks: one table, the only place cli/ names them. A
// scenario's kmc.yaml says which (`protocol:`, default multikueue); a new
// protocol adds a row here and its pipeline (counterexamples/pipeline_core.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "counterexamples/itf_document.hpp"
#include "counterexamples/pipeline.hpp"
#include "model/scenario.hpp"

namespace kmc::cli {

struct ProtocolEntry {
  std::string name;     // as kmc.yaml's `protocol:` spells it
  std::string summary;  // one line for --help and errors
  std::function<cx::CheckOutcome(const model::Scenario&, const cx::CheckRequest&)> check;
  // Whether engine/ re-executes its traces (--replay-engine, kmc replay); the
  // corpus records such a protocol's replay verdict as None.
  bool engine = true;
};

const std::vector<ProtocolEntry>& protocol_table();

// The entry kmc.yaml's `protocol:` names; an unknown name is an InputError
// naming kmc.yaml's line.
const ProtocolEntry& protocol_of(const model::Fleet& fleet);
const ProtocolEntry& protocol_of(const model::Scenario& scenario);

// A scenario folder, loaded once its kmc.yaml names a known protocol: which
// folders a scenario has depends on the protocol, so an unknown name is
// reported before a folder it would need is found missing.
model::Scenario load_checked_scenario(const std::string& dir);

// A trace re-executed by the reference engine of the protocol its scenario names (the trace's
// #meta.source, or `scenario_dir` when given): `kmc replay` and the library's kmc::replay.
// `loaded` is told the scenario before the replay runs (kmc replay prints its warnings). A
// protocol without an engine is an InputError at #meta.source.
cx::EngineReport replay_trace(const cx::ItfDocument& itf, const std::string& scenario_dir,
                              const std::function<void(const model::Scenario&)>& loaded = {});

}  // namespace kmc::cli
