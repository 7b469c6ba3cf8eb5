// What shrinking a counterexample did (shrink.hpp), for the report: a light
// header, so what prints a report need not compile the shrinker.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kmc::cx {

// What shrinking did, for the report.
struct ShrinkReport {
  std::size_t steps_before = 0, steps_after = 0;  // the checker's trace, the shrunk one
  std::size_t steps_reduced =
      0;  // the checker's trace in the scenario without the jobs and workers left out
  // Of the checker's trace in the final scenario (the reduced one, when jobs
  // or workers were left out), in order; by name, as a multiset.
  std::vector<std::string> dropped_actions;
  std::vector<std::string> changed_picks;  // "A(x, w2) -> A(x, w1)"
  std::vector<std::string> dropped_jobs, dropped_workers;
  bool entities_tried = false;  // jobs and workers were left out in turn
  int replays = 0;              // candidate traces replayed in the model
  int rechecks = 0;             // reduced scenarios checked again
  double seconds = 0;
};

// One paragraph for people: before/after, what went.
std::string describe(const ShrinkReport& r);

}  // namespace kmc::cx
