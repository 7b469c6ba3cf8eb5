// kmc as a library (DESIGN.md, "Library"; docs/library.md): load a scenario,
// check it, read the result, replay a trace. Each function is the one `kmc`
// itself calls, not a second pipeline: load_scenario is `kmc check DIR`'s
// loading, check runs the protocol the scenario's kmc.yaml names through
// counterexamples/pipeline.hpp, report_text and report_json are what
// `kmc check` prints, replay is `kmc replay`. Include it as <kmc/kmc.hpp>.
//
// Errors in the input (a scenario, a trace, a property name) are thrown as
// model::InputError, naming the file, line and field; kmc never exits the
// process on a caller's behalf.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "checker/result.hpp"
#include "counterexamples/pipeline.hpp"
#include "model/diagnostics.hpp"
#include "model/scenario.hpp"

namespace kmc {

using checker::Verdict;                 // Verified, Violated, Incomplete, Vacuous (per property)
using model::InputError;                // thrown for bad input: file, line, field
using model::Scenario;                  // a loaded, validated scenario folder
using CheckOptions = cx::CheckRequest;  // properties, bounds, threads, shrinking, engine replay
using CheckResult = cx::CheckOutcome;   // the verdicts, the trace and its replay token
using ReplayResult = cx::EngineReport;  // reproduced, and the report as text and JSON

// A scenario folder (kmc.yaml, manager/, workers/<cluster>/), loaded and
// validated once its kmc.yaml names a protocol kmc knows.
Scenario load_scenario(const std::string& dir);

// The protocol a scenario's kmc.yaml names ("multikueue", "kueue-admission",
// "kube-scheduler").
std::string protocol_name(const Scenario& scenario);

// Checks a scenario against its properties (options.properties, else its
// kmc.yaml's, else the protocol's defaults) within the options' bounds: the
// same search, shrinking and replay token as `kmc check`.
CheckResult check(const Scenario& scenario, const CheckOptions& options = {});

// One property's verdict in a result; nullopt if it was not checked.
std::optional<Verdict> verdict_of(const CheckResult& result, std::string_view property);

// What `kmc check` prints: text for people, JSON (a contract) for programs.
std::string report_text(const CheckResult& result);
nlohmann::json report_json(const CheckResult& result);

// The counterexample as ITF JSON text, what `kmc check --trace-out FILE`
// writes; nullopt when the result has no trace (nothing was violated).
std::optional<std::string> trace_itf(const CheckResult& result);

// Re-executes an ITF trace (written by trace_itf, `kmc check --trace-out` or
// the corpus) in the reference admission engine, as `kmc replay` does:
// Reproduced, or Diverged with the step and why. The scenario is the trace's
// own (#meta.source) unless scenario_dir is given.
ReplayResult replay(const std::string& trace_file, const std::string& scenario_dir = "");

}  // namespace kmc
