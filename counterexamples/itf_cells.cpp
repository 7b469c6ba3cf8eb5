#include "counterexamples/itf_cells.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kmc::cx {

CellChecker::CellChecker(const model::Layout& layout) {
  for (const auto& f : layout.fields) {
    fields_.insert(f.name);
    // Which cells exist does not depend on their values: write the field once
    // with every value at its lowest (valid for every kind) to list them.
    std::vector<model::Cell> cells;
    model::append_cells(layout, f, std::vector<std::int64_t>(layout.size(f), f.lo), cells);
    for (const auto& c : cells) cells_[c.key()] = Allowed{f.kind, f.lo, f.hi, {}};
    if (f.kind != model::FieldKind::Index) continue;
    // An entity-valued cell may name what the field's values -1..extent-1 name there.
    const int extent = layout.axes[f.index_axis].extent();
    for (int v = -1; v < extent; ++v) {
      std::vector<model::Cell> named;
      model::append_cells(layout, f, std::vector<std::int64_t>(layout.size(f), v), named);
      for (const auto& c : named) cells_[c.key()].names.insert(std::get<std::string>(c.value));
    }
  }
}

std::optional<PickProblem> CellChecker::check(const model::Cells& cells) const {
  for (const auto& c : cells.all()) {
    if (!fields_.contains(c.field)) continue;  // a field this instance does not have is not read
    const auto it = cells_.find(c.key());
    if (it == cells_.end())
      return PickProblem{c.field, fmt::format("{}: the scenario has no such {}",
                                              model::key_text(c.field, c.entity),
                                              c.entity.size() == 1 ? "entity" : "combination")};
    const Allowed& a = it->second;
    if (const auto* i = std::get_if<std::int64_t>(&c.value)) {
      if (*i < a.lo || *i > a.hi)
        return PickProblem{
            c.field, fmt::format("{} is {}, outside {}..{}", model::key_text(c.field, c.entity), *i,
                                 a.lo, a.hi)};
    } else if (a.kind == model::FieldKind::Index) {
      const auto& name = std::get<std::string>(c.value);
      if (!a.names.contains(name))
        return PickProblem{
            c.field,
            fmt::format("{} is '{}', which it cannot hold here (one of: {})",
                        model::key_text(c.field, c.entity), name, fmt::join(a.names, ", "))};
    }
  }
  for (const auto& [key, allowed] : cells_)
    if (cells.find(key.field, key.entity) == nullptr)
      return PickProblem{key.field,
                         fmt::format("no value for {}", model::key_text(key.field, key.entity))};
  return std::nullopt;
}

}  // namespace kmc::cx
