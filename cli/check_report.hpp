// What `kmc check` prints: a closed verdict, the violated property with its
// timeline and replay token, every property's verdict, and the run's
// figures. Text for people, JSON (a contract) for programs.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "checker/result.hpp"
#include "counterexamples/shrink.hpp"
#include "counterexamples/trace.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cli {

struct CheckOutcome {
  std::string scenario;  // the folder as given
  std::string summary;   // one line: jobs, workers, dispatcher
  checker::Result result;
  std::optional<cx::Trace> trace;
  std::string token;                        // empty when there is no trace
  std::vector<std::string> descriptions;    // per result.properties entry
  model::Warnings warnings;
  std::optional<cx::ShrinkReport> shrink;   // what shrinking removed, when it ran
  std::string replay_dir;                   // the reduced scenario the token is for; empty: `scenario`
  const std::string& token_dir() const { return replay_dir.empty() ? scenario : replay_dir; }
};

std::string render_text(const CheckOutcome& o);
nlohmann::json render_json(const CheckOutcome& o);
std::string stats_line(const checker::Stats& s);

// 0 verified, 1 violated, 2 incomplete.
int exit_code_of(checker::Verdict v);

}  // namespace kmc::cli
