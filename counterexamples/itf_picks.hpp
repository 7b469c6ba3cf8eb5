// A trace step's picks (ITF's mbt::nondetPicks) checked against a protocol's
// action table (model/spec.hpp), before anything indexes by them: the action
// is one of the table's, every argument it takes is picked, nothing else is,
// and each pick names an entity of its axis (a dependent axis's entity under
// its parent's pick: a worker's flavor). Generic: any protocol's layout, any
// reader. A reader that has its scenario checks against the instance's
// layout; one that has only the trace (kmc render) against the entities its
// cells name (labelled_by_cells).
#pragma once

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "model/cell.hpp"
#include "model/spec.hpp"

namespace kmc::cx {

// What is wrong with a step's picks: the field under the state
// ("mbt::nondetPicks.job", "mbt::actionTaken") and why.
struct PickProblem {
  std::string field;
  std::string message;
};

// The action `action` names, with one entity index per argument, or the
// first problem. Never an index of -1: a missing pick is a problem.
std::variant<model::ActionRef, PickProblem> resolve_picks(
    const model::Layout& layout, const std::string& action,
    const std::map<std::string, std::string>& picks);

// `layout` with its axes labelled by the entities that `cells` name, in the
// order they first appear (a layout built without a scenario has none).
model::Layout labelled_by_cells(model::Layout layout, const std::vector<model::Cell>& cells);

}  // namespace kmc::cx
