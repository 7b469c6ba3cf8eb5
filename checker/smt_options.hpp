// What a caller chooses of the SMT engines (checker/smt_engines.hpp), without
// their Z3 and template weight: explicit search is the default, and decides
// what they do not (graph properties, protocols without symbolic rules).
#pragma once

#include <functional>
#include <string>

namespace kmc::checker {

enum class SmtEngine { Bmc, Induction };
inline const char* to_string(SmtEngine e) {
  return e == SmtEngine::Bmc ? "bmc" : "induction";
}

struct SmtLimits {
  int max_depth = 20;       // bounded model checking's last depth; k-induction's largest k
  double time_limit_s = 0;  // 0: none
  std::function<std::string()> stop;  // a non-empty answer ends the run Incomplete
};

}  // namespace kmc::checker
