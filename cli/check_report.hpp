// What `kmc check` prints: a closed verdict, the violated property with its
// timeline and replay token, every property's verdict, and the run's
// figures. Text for people, JSON (a contract) for programs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "checker/result.hpp"
#include "counterexamples/pipeline.hpp"

namespace kmc::cli {

using cx::CheckOutcome;

std::string render_text(const CheckOutcome& o);
nlohmann::json render_json(const CheckOutcome& o);
std::string stats_line(const checker::Stats& s);
// How an SMT engine decided a property, in words ("proven for every depth by k-induction, k = 2");
// empty for explicit search.
std::string method_words(const checker::PropertyResult& p);

// 0 verified, 1 violated, 2 incomplete. A run whose properties are Verified or Vacuous is
// Verified: a Vacuous property fails nothing.
int exit_code_of(checker::Verdict v);

}  // namespace kmc::cli
