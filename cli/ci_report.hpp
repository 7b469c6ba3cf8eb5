// The CI formats of `kmc check`, `kmc matrix` and `kmc corpus check`: JUnit
// XML (what every CI server shows as test results) and SARIF 2.1.0 (what code
// review tools show beside the lines of a pull request). Each command turns
// its results into one list of CiCase values; the two writers know nothing
// of the commands.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checker/result.hpp"
#include "counterexamples/trace.hpp"
#include "model/diagnostics.hpp"
#include "model/scenario.hpp"

namespace kmc::cli {

struct CiCase {
  std::string group;        // JUnit classname: the scenario, or the matrix row
  std::string name;         // the property (or the corpus entry)
  std::string rule;         // SARIF ruleId: the property
  std::string description;  // the property in words
  checker::Verdict verdict = checker::Verdict::Incomplete;
  std::string message;  // one line: the violation's detail, or which bound stopped the run
  std::string story;    // the trace as a timeline, for the JUnit failure body
  std::vector<model::SourcePos> locations;  // the manifests the violation involves
  double seconds = 0;
};

// One <testsuite> of <testcase>s: Violated is a <failure>, Incomplete an <error> (undecided,
// never a pass), Vacuous <skipped> with its message (it says nothing, and fails nothing),
// Verified passes.
std::string to_junit(const std::string& suite, const std::vector<CiCase>& cases);
// One run of tool kmc; a result per case that is not Verified: Violated is level error,
// Incomplete level warning with kind "open", Vacuous level none with kind "notApplicable".
nlohmann::json to_sarif(const std::vector<CiCase>& cases);

// The objects a trace names in its picks (workloads, ClusterQueues, worker clusters), where they
// are written; kmc.yaml when it names none of them.
std::vector<model::SourcePos> involved_objects(const model::Scenario& sc, const cx::Trace& trace);

}  // namespace kmc::cli
