#include "model/spec.hpp"

#include <algorithm>

#include "model/assert.hpp"
#include "model/cell_slots.hpp"

namespace kmc::model {

int Axis::extent() const {
  if (parent < 0) return static_cast<int>(labels.size());
  std::size_t most = static_cast<std::size_t>(std::max(0, padded_to));
  for (const auto& l : labels_of) most = std::max(most, l.size());
  return static_cast<int>(most);
}

const std::string& Axis::label(int i, int p) const {
  static const std::string padding;
  if (parent < 0) {
    KMC_ASSERT(i >= 0 && i < static_cast<int>(labels.size()));
    return labels[i];
  }
  KMC_ASSERT(p >= 0 && p < static_cast<int>(labels_of.size()));
  const auto& l = labels_of[p];
  return i < static_cast<int>(l.size()) ? l[i] : padding;
}

int Layout::axis(const std::string& name) const {
  for (std::size_t a = 0; a < axes.size(); ++a)
    if (axes[a].name == name) return static_cast<int>(a);
  return -1;
}

std::size_t Layout::offset(const Field& f, const std::vector<int>& at) const {
  KMC_ASSERT(at.size() == f.axes.size());
  std::size_t off = 0;
  for (std::size_t k = 0; k < f.axes.size(); ++k) {
    const int extent = axes[f.axes[k]].extent();
    KMC_ASSERT(at[k] >= 0 && at[k] < extent);
    off = off * static_cast<std::size_t>(extent) + static_cast<std::size_t>(at[k]);
  }
  return off;
}

std::vector<int> Layout::indices(const Field& f, std::size_t offset) const {
  std::vector<int> at(f.axes.size(), 0);
  for (std::size_t k = f.axes.size(); k-- > 0;) {
    const auto extent = static_cast<std::size_t>(axes[f.axes[k]].extent());
    at[k] = static_cast<int>(offset % extent);
    offset /= extent;
  }
  return at;
}

CellRange Layout::range(const Field& f, std::size_t offset) const {
  return f.range_of ? f.range_of(indices(f, offset)) : CellRange{f.lo, f.hi, 1};
}

std::size_t Layout::size(const Field& f) const {
  std::size_t n = 1;
  for (int a : f.axes) n *= static_cast<std::size_t>(axes[a].extent());
  return n;
}

std::vector<FieldSchema> schema_of(const Layout& layout) {
  std::vector<FieldSchema> out;
  for (const auto& f : layout.fields) {
    FieldSchema s{f.name, {}, CellKind::Int, {}, f.optional};
    for (int a : f.axes) s.axes.push_back(layout.axes[a].name);
    if (f.kind == FieldKind::Enum) s.kind = CellKind::Enum, s.values = f.names;
    if (f.kind == FieldKind::Index) s.kind = CellKind::Name;
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

// The names of a cell's entities: a dependent axis is named under its parent's entity.
std::vector<std::string> entity_names(const Layout& layout, const Field& f,
                                      const std::vector<int>& at) {
  std::vector<std::string> names;
  for (std::size_t k = 0; k < f.axes.size(); ++k) {
    const Axis& axis = layout.axes[f.axes[k]];
    int parent = -1;
    for (std::size_t q = 0; q < f.axes.size() && axis.parent >= 0; ++q)
      if (f.axes[q] == axis.parent) parent = at[q];
    names.push_back(axis.label(at[k], parent));
  }
  return names;
}

CellValue value_of(const Layout& layout, const Field& f, const std::vector<int>& at,
                   std::int64_t v) {
  switch (f.kind) {
    case FieldKind::Int:
    case FieldKind::Flag:
      return v;
    case FieldKind::Enum: {
      const std::int64_t i = v - f.lo;
      return i >= 0 && i < static_cast<std::int64_t>(f.names.size())
                 ? f.names[static_cast<std::size_t>(i)]
                 : "";
    }
    case FieldKind::Index: {
      if (v < 0) return std::string();
      const Axis& axis = layout.axes[f.index_axis];
      const int parent = f.index_parent ? f.index_parent(at) : -1;
      if (axis.parent >= 0 && parent < 0) return std::string();
      const int n = axis.parent >= 0 ? static_cast<int>(axis.labels_of[parent].size())
                                     : static_cast<int>(axis.labels.size());
      return v < n ? axis.label(static_cast<int>(v), parent) : std::string();
    }
  }
  return v;
}

}  // namespace

namespace {

// Each non-padding, present cell of field f, in row-major order of its axes:
// visit(flat offset, per-axis indices, entity names).
template <class Visit>
void for_each_cell(const Layout& layout, const Field& f, Visit&& visit) {
  const std::size_t n = layout.size(f);
  std::vector<int> at(f.axes.size(), 0);
  for (std::size_t flat = 0; flat < n; ++flat) {
    std::size_t rest = flat;  // row-major: the last axis turns fastest
    for (std::size_t k = f.axes.size(); k-- > 0;) {
      const auto extent = static_cast<std::size_t>(layout.axes[f.axes[k]].extent());
      at[k] = static_cast<int>(rest % extent);
      rest /= extent;
    }
    auto names = entity_names(layout, f, at);
    if (std::any_of(names.begin(), names.end(), [](const std::string& n) { return n.empty(); }))
      continue;  // padding
    if (f.present && !f.present(at)) continue;
    visit(flat, at, std::move(names));
  }
}

}  // namespace

void append_cells(const Layout& layout, const Field& f, const std::vector<std::int64_t>& values,
                  std::vector<Cell>& out) {
  KMC_ASSERT(values.size() == layout.size(f));
  for_each_cell(
      layout, f, [&](std::size_t flat, const std::vector<int>& at, std::vector<std::string> names) {
        out.push_back(Cell{f.name, std::move(names), value_of(layout, f, at, values[flat])});
      });
}

std::vector<CellSlot> cell_slots(const Layout& layout) {
  std::vector<CellSlot> out;
  for (std::size_t k = 0; k < layout.fields.size(); ++k)
    for_each_cell(
        layout, layout.fields[k],
        [&](std::size_t flat, const std::vector<int>& at, std::vector<std::string> names) {
          out.push_back(CellSlot{k, flat, at, std::move(names)});
        });
  return out;
}

CellValue slot_value(const Layout& layout, const CellSlot& slot, std::int64_t raw) {
  return value_of(layout, layout.fields[slot.field], slot.at, raw);
}

}  // namespace kmc::model
