// ITF, the Informal Trace Format of Apalache and Quint
// (apalache-mc.org/docs/adr/015adr-trace.html), with the model-based-testing
// fields mbt::actionTaken and mbt::nondetPicks on every state, so existing
// trace tools read kmc's counterexamples.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "counterexamples/trace.hpp"

namespace kmc::cx {

nlohmann::json to_itf(const Trace& t, const std::string& source, const std::string& replay_token);

}  // namespace kmc::cx
