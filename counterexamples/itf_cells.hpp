// A trace state's typed cells checked against the instance a scenario
// compiles to (its layout, model/spec.hpp), before a replay reads them: every
// cell the instance has is there, no cell names an entity it does not have,
// an integer is within its field's declared range and an entity-valued cell
// names an entity it may hold. itf_read.hpp's read_cells checks only what a
// trace says of itself (kinds, keys of the right shape), since kmc render
// reads traces whose scenario is gone. Generic over protocols.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "counterexamples/itf_picks.hpp"
#include "model/cell.hpp"
#include "model/spec.hpp"

namespace kmc::cx {

class CellChecker {
 public:
  explicit CellChecker(const model::Layout& layout);
  // The first problem of `cells` (field: "phase"; the reader puts it under
  // the state), or nothing.
  std::optional<PickProblem> check(const model::Cells& cells) const;

 private:
  struct Allowed {
    model::FieldKind kind = model::FieldKind::Int;
    std::int64_t lo = 0, hi = 0;
    std::set<std::string> names;  // Index: the entities this cell may name ("" for none)
  };
  std::map<model::CellKey, Allowed> cells_;
  std::set<std::string> fields_;
};

}  // namespace kmc::cx
