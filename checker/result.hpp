// What a check returns: a closed verdict (never "probably fine"), the first
// violation as a path of action choices, and the figures of the run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/protocol.hpp"

namespace kmc::checker {

// Vacuous is a liveness property's own verdict (issue 12c): its premise never holds in a complete
// search, so it says nothing. It is neither Verified (nothing was proven) nor Violated (nothing
// went wrong), and it fails no run: a run's Result is decided by its other properties, so a
// run's own verdict is never Vacuous. A fleet where nothing can run fails some-job-runs instead.
enum class Verdict { Verified, Violated, Incomplete, Vacuous };
const char* to_string(Verdict v);
// Why a property has its verdict, where the verdict alone does not say: Vacuous's sentence,
// printed beside it in every report; empty for the others.
const char* why(Verdict v);

struct Stats {
  std::uint64_t states = 0;       // distinct states stored
  std::uint64_t transitions = 0;  // successors generated, duplicates included
  int depth = 0;                  // deepest BFS level reached
  double seconds = 0;
  double states_per_s = 0;
  // The growth of the process's peak resident memory during the search, per
  // stored state (checker/memory.hpp): what it really cost, not an estimate.
  double bytes_per_state = 0;
  std::size_t peak_rss_bytes = 0;    // the process's peak resident memory
  double collision_probability = 0;  // that a 64-bit fingerprint collision hid a state
  // Wall seconds the explicit search spent in each part of its chunks, summed: expanding,
  // inserting into the seen-set, numbering new states (parallel), recording them (serial,
  // short) and recording the explored graph (parallel); then the analyses of the whole graph
  // (stuck subjects, liveness: serial). Where threads stop scaling shows here.
  struct Phases {
    double expand = 0, insert = 0, number = 0, record = 0, graph = 0, analyses = 0;
  } phases;
};

struct PropertyResult {
  PropertyResult() = default;
  PropertyResult(std::string n, model::PropertyKind k, Verdict v)
      : name(std::move(n)), kind(k), verdict(v) {}

  std::string name;
  model::PropertyKind kind = model::PropertyKind::Always;
  Verdict verdict = Verdict::Incomplete;
  // Which engine decided it ("explicit", "bmc", "induction"); empty: explicit search, the only
  // one that ran.
  std::string engine;
  // How an SMT engine's verdict was reached: "bmc" (a violation or witness at depth `k`),
  // "bmc-complete" (no path of `k` steps without a repeated state: every reachable state was
  // checked), "k-induction" (proven for every depth with this k). Empty otherwise.
  std::string method;
  int k = -1;
};

// A path from an initial state: init index, then the index of the action
// taken among those the protocol enumerated in each state.
struct Path {
  std::uint32_t init = 0;
  std::vector<std::uint32_t> choices;
};

// How a path violates its property. Code branches on this, never on the
// detail sentence, which is for people.
enum class Shape {
  Reached,      // Always: the path ends in a state where the property fails
  Unwitnessed,  // Sometimes: no reachable state satisfies it (there is no path)
  Stuck,        // StuckFree: the path ends where the subject is frozen forever
  Stutter,      // a lasso whose behaviour stops for good where nothing fairly scheduled is enabled
  Loop,         // a lasso whose behaviour loops forever, fairly
};
const char* to_string(Shape s);  // "reached", "stuck", ...: a code for JSON and tests
// The sentence a report prints for a shape when the property has no words of its own.
std::string story(Shape s, model::PropertyKind kind);
// A lasso's shape from where its loop starts: a stutter when the loop is the last state.
Shape lasso_shape(std::size_t loop, std::size_t steps);

struct Violation {
  std::string property;
  model::PropertyKind kind;
  Shape shape;
  Path path;
  std::string detail;               // e.g. which job is stuck and why it should move
  int subject = -1;                 // StuckFree, LeadsTo: the subject
  std::optional<std::size_t> loop;  // lassos: the state index the last state returns to
};

struct Result {
  Verdict verdict = Verdict::Incomplete;
  std::optional<Violation> violation;
  std::vector<PropertyResult> properties;
  // Which bound: "max-depth 12", "max-states 1000", "time-limit 5s", "memory bound 2.0 GiB",
  // "an allocation failure (...)", or the reason a stop request gave ("SIGINT").
  std::string incomplete_reason;
  // Every state within this many steps was stored and checked against the safety properties
  // (what an Incomplete search proved); -1: not even every initial state.
  int explored_depth = -1;
  std::vector<std::string>
      assumptions;  // fairness per action family, printed with any liveness verdict
  // The reductions the search ran ("symmetry: 5 interchangeable jobs (...)"), and those it did
  // not run although asked, with why: printed with the result, so a count is read rightly.
  std::vector<std::string> reductions;
  // Which engine decided which properties, and why a property went to explicit search when an
  // SMT engine was asked for: printed with the result.
  std::vector<std::string> engines;
  // k-induction that reached its limit: the step that still fails, as "field[entities] = value"
  // lines (a state where the property holds, the action, the state where it fails), so the user
  // sees which invariant would make it inductive.
  std::vector<std::string> induction_counterexample;
  Stats stats;
};

}  // namespace kmc::checker
