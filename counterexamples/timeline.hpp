// The counterexample for people: TLC's shape ("State 1: <Action>"), but
// after the initial state each step shows only what changed.
#pragma once

#include <string>

#include "counterexamples/trace.hpp"

namespace kmc::cx {

std::string render_timeline(const Trace& t);

}  // namespace kmc::cx
