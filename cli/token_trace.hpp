// A trace file of a protocol other than MultiKueue, read through its replay
// token: the scenario its #meta.source names is loaded, the token re-checked
// by that protocol's pipeline, and the file's states compared with what the
// token gives, field by field. `kmc render`, `kmc replay` and `kmc corpus
// check` use it; MultiKueue's traces have readers of their own
// (counterexamples/multikueue/).
#pragma once

#include <optional>
#include <string>

#include "cli/protocols.hpp"
#include "counterexamples/itf_document.hpp"
#include "counterexamples/pipeline.hpp"

namespace kmc::cli {

struct TokenTrace {
  std::string source;        // the scenario the token was re-checked in
  std::string named, token;  // #meta.source and #meta.replay
  model::Scenario scenario;
  const ProtocolEntry* protocol = nullptr;
  cx::CheckOutcome outcome;  // the token re-checked: its trace, verdict, engine replay if asked
};

// nullopt: the document is a MultiKueue trace, or names no scenario folder
// with a kmc.yaml (the MultiKueue readers say what is wrong). Otherwise an
// InputError naming the file, the line and the field that is not what the
// token gives (edited, or made for another version of kmc or the scenario),
// or that the token cannot be re-checked (--replay-engine of a protocol
// without an engine). `scenario`: the folder to replay against instead of
// #meta.source.
std::optional<TokenTrace> read_token_trace(const cx::ItfDocument& d, bool replay_engine = false,
                                           const std::string& scenario = "");

}  // namespace kmc::cli
