// What a check returns: a closed verdict (never "probably fine"), the first
// violation as a path of action choices, and the figures of the run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/protocol.hpp"

namespace kmc::checker {

enum class Verdict { Verified, Violated, Incomplete };
const char* to_string(Verdict v);

struct Stats {
  std::uint64_t states = 0;       // distinct states stored
  std::uint64_t transitions = 0;  // successors generated, duplicates included
  int depth = 0;                  // deepest BFS level reached
  double seconds = 0;
  double states_per_s = 0;
  double bytes_per_state = 0;     // seen-set, parent links and edges, per stored state
  double collision_probability = 0;  // that a 64-bit fingerprint collision hid a state
};

struct PropertyResult {
  std::string name;
  model::PropertyKind kind;
  Verdict verdict = Verdict::Incomplete;
};

// A path from an initial state: init index, then the index of the action
// taken among those the protocol enumerated in each state.
struct Path {
  std::uint32_t init = 0;
  std::vector<std::uint32_t> choices;
};

struct Violation {
  std::string property;
  model::PropertyKind kind;
  Path path;
  std::string detail;  // e.g. which job is stuck and why it should move
  int subject = -1;    // StuckFree, LeadsTo: the subject
  std::optional<std::size_t> loop;  // LeadsTo: the state index the last state returns to
};

struct Result {
  Verdict verdict = Verdict::Incomplete;
  std::optional<Violation> violation;
  std::vector<PropertyResult> properties;
  std::string incomplete_reason;  // which bound: "max-depth 12", "max-states 1000", "time-limit 5s"
  std::vector<std::string> assumptions;  // fairness per action family, printed with any liveness verdict
  Stats stats;
};

}  // namespace kmc::checker
