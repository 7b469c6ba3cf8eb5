// `kmc check --engine bmc|induction`: an SMT engine decides the state
// properties it has symbolic predicates for, explicit search the rest (graph
// properties, or every property of a protocol whose rules run on explicit
// values only). This merges the two results into the one a report prints.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "checker/result.hpp"
#include "checker/smt_options.hpp"

namespace kmc::cx {

struct EngineSplit {
  std::vector<std::string> smt;       // what the SMT engine decides, in the run's order
  std::vector<std::string> fallback;  // what explicit search decides
};

// `names` split by what the protocol's SMT hook can decide (`decidable`; empty: nothing).
EngineSplit split_engines(const std::vector<std::string>& names,
                          const std::vector<std::string>& decidable);

// One result, its properties in `names` order. `expl` unset: explicit search did not run (nothing
// was left to it, or the SMT engine's violation ended the run first); `skipped` are then the
// properties it would have decided, Incomplete. `why_fallback` words why those went to it.
checker::Result merge_engines(const std::vector<std::string>& names, checker::SmtEngine engine,
                              checker::Result smt, std::optional<checker::Result> expl,
                              const std::vector<checker::PropertyResult>& skipped,
                              const std::string& why_fallback);

}  // namespace kmc::cx
