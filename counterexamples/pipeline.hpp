// The check pipeline as one library function (DESIGN.md, "The pipeline"):
// scenario -> protocol -> search -> shrink -> trace -> replay token -> engine
// replay. `kmc check`, `kmc matrix` and `kmc corpus check` call it; cli/
// only parses arguments and prints the outcome. This header holds its
// request and outcome (light, for cli/); pipeline_core.hpp the generic
// pipeline over any protocol instance; multikueue/pipeline.hpp is MultiKueue's.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "checker/bfs.hpp"
#include "checker/result.hpp"
#include "checker/smt_options.hpp"
#include "counterexamples/shrink_report.hpp"
#include "counterexamples/trace.hpp"
#include "model/diagnostics.hpp"
#include "model/scenario.hpp"

namespace kmc::cx {

struct CheckRequest {
  std::vector<std::string>
      properties;  // empty: kmc.yaml's check.properties, else the protocol's defaults
  // Bounds; unset: kmc.yaml's check section (and its defaults).
  std::optional<int> max_depth;  // -1: none
  std::optional<std::uint64_t> max_states;
  std::optional<double> time_limit_s;
  // The process's resident memory; unset: checker::default_memory_bound() (a share of the
  // machine's), so a search ends with a result before the OOM killer ends it with none.
  std::optional<std::size_t> max_memory_bytes;
  // Asked between chunks of the search: a non-empty answer ends it Incomplete, with that reason
  // (`kmc check` answers SIGINT and SIGTERM so). Unset: never.
  std::function<std::string()> stop;
  int threads = 1;
  // Symmetry reduction where the protocol declares interchangeable entities and it is sound
  // for the properties checked (checker::CheckOptions::symmetry); off: --no-symmetry.
  bool symmetry = true;
  // Partial-order reduction where the protocol gives footprints and it is sound for the
  // properties checked (checker::CheckOptions::footprints): --por. Off by default: on the
  // shipped fleets it costs more per state than it saves (README, "Partial-order reduction").
  bool por = false;
  // --engine bmc|induction: an SMT engine decides the state properties it can (the protocol's
  // Hooks::smt), explicit search the rest. Unset: explicit search decides everything.
  std::optional<checker::SmtEngine> smt;
  std::function<void(const checker::Progress&)> progress;
  // Re-check this replay token's path instead of searching.
  std::string replay_token;
  bool shrink = true;
  // Also leave out the jobs and workers the violation does not need, and
  // write that scenario to this new or empty folder (the token is for it).
  std::string shrink_scenario;
  bool replay_engine = false;  // re-execute the violation in the reference engine
  // Told the warnings before the search starts: the scenario's (before the protocol compiles
  // it, which may refuse it), then the protocol's, each batch whole so that a reader can
  // collapse repeats or, under --strict, refuse the input (model::review_warnings).
  std::function<void(const model::Warnings&)> warn;
};

// A trace re-executed in a protocol's reference engine, as printed.
struct EngineReport {
  bool reproduced = false;
  std::string text;
  nlohmann::json json;
};

struct CheckOutcome {
  std::string scenario;  // the folder the scenario was loaded from
  std::string summary;   // one line: the protocol, its jobs, workers, dispatcher
  checker::Result result;
  std::optional<Trace> trace;
  std::string token;                      // empty when there is no trace
  std::vector<std::string> descriptions;  // per result.properties entry
  model::Warnings warnings;               // the scenario's and the protocol's
  std::optional<ShrinkReport> shrink;     // what shrinking removed, when it ran
  std::string replay_dir;              // the reduced scenario the token is for; empty: `scenario`
  bool token_replayed = false;         // the outcome of a replay token, not of a search
  std::optional<EngineReport> engine;  // with replay_engine, when there is a trace
  bool has_engine = true;              // the protocol's traces replay in a reference engine
  // A "sometimes" property never witnessed: what stops the jobs, in Kueue's words, per cluster.
  std::vector<std::string> why;
  const std::string& token_dir() const { return replay_dir.empty() ? scenario : replay_dir; }
};

// The search options a request and a scenario's kmc.yaml give, without
// fairness (which depends on the protocol instance).
checker::CheckOptions search_options(const CheckRequest& request, const model::CheckSpec& spec);
// The resident-memory bound of a search: --max-memory, else kmc.yaml's
// check.maxMemory, else checker::default_memory_bound(). A bad maxMemory is
// an InputError naming kmc.yaml's line.
std::size_t memory_bound(const CheckRequest& request, const model::CheckSpec& spec);

}  // namespace kmc::cx
