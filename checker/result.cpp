#include "checker/result.hpp"

namespace kmc::checker {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Verified: return "Verified";
    case Verdict::Violated: return "Violated";
    case Verdict::Incomplete: return "Incomplete";
  }
  return "?";
}

}  // namespace kmc::checker
