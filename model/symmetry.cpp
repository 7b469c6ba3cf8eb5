#include "model/symmetry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace kmc::model {

namespace {

// Every per-axis index tuple of a field, in row-major order (its cells' order).
template <class F>
void for_each_cell(const Layout& layout, const Field& f, F&& visit) {
  std::vector<int> at(f.axes.size(), 0);
  const std::size_t n = layout.size(f);
  for (std::size_t off = 0; off < n; ++off) {
    visit(off, at);
    for (std::size_t k = f.axes.size(); k-- > 0;) {
      if (++at[k] < layout.axes[f.axes[k]].extent()) break;
      at[k] = 0;
    }
  }
}

bool same_range(const CellRange& a, const CellRange& b) {
  return a.lo == b.lo && a.hi == b.hi && a.step == b.step;
}

}  // namespace

Canonicalizer::Canonicalizer(const Layout& layout, Symmetry symmetry) {
  sym_.notes = std::move(symmetry.notes);
  for (auto& cls : symmetry.classes) {
    auto drop = [&](const std::string& why) {
      const std::string axis = cls.axis >= 0 && cls.axis < static_cast<int>(layout.axes.size())
                                   ? layout.axes[cls.axis].name
                                   : fmt::format("axis {}", cls.axis);
      sym_.notes.push_back(fmt::format("{}: not reduced, {}", axis, why));
    };
    if (cls.axis < 0 || cls.axis >= static_cast<int>(layout.axes.size())) {
      drop("no such axis");
      continue;
    }
    const Axis& axis = layout.axes[cls.axis];
    std::sort(cls.entities.begin(), cls.entities.end());
    cls.entities.erase(std::unique(cls.entities.begin(), cls.entities.end()), cls.entities.end());
    if (cls.entities.size() < 2) continue;  // one entity has no one to swap with
    if (axis.parent >= 0) {
      drop("it depends on another axis");
      continue;
    }
    if (cls.entities.front() < 0 || cls.entities.back() >= axis.extent()) {
      drop("an entity out of range");
      continue;
    }
    Plan plan;
    plan.entities = cls.entities;
    std::string why;
    for (std::size_t fi = 0; fi < layout.fields.size() && why.empty(); ++fi) {
      const Field& f = layout.fields[fi];
      const auto uses = std::count(f.axes.begin(), f.axes.end(), cls.axis);
      for (int a : f.axes)
        if (layout.axes[a].parent == cls.axis && uses == 0)
          why = fmt::format("field {} has a {} of some {} without the {} itself", f.name,
                            layout.axes[a].name, axis.name, axis.name);
      if (f.kind == FieldKind::Index && f.index_axis >= 0 &&
          layout.axes[f.index_axis].parent == cls.axis)
        why = fmt::format("field {} names a {} of a {}", f.name, layout.axes[f.index_axis].name,
                          axis.name);
      if (f.kind == FieldKind::Index && f.index_axis == cls.axis)
        plan.index_fields.push_back(fi), plan.index_sizes.push_back(layout.size(f));
      if (uses == 0 || !why.empty()) continue;
      if (uses > 1) {
        why = fmt::format("field {} is indexed by two {}s", f.name, axis.name);
        continue;
      }
      const std::size_t d = std::find(f.axes.begin(), f.axes.end(), cls.axis) - f.axes.begin();
      Slice slice{fi, std::vector<std::vector<std::uint32_t>>(cls.entities.size())};
      // The cells of each entity, with what makes them comparable: a permutation
      // moves a value to the same cell of another entity, which must exist and
      // take the same values, else it would break the packing or the state's meaning.
      std::vector<std::vector<std::pair<bool, CellRange>>> shape(cls.entities.size());
      for_each_cell(layout, f, [&](std::size_t off, const std::vector<int>& at) {
        const auto it = std::find(cls.entities.begin(), cls.entities.end(), at[d]);
        if (it == cls.entities.end()) return;
        const auto e = static_cast<std::size_t>(it - cls.entities.begin());
        slice.cells[e].push_back(static_cast<std::uint32_t>(off));
        const bool present = !f.present || f.present(at);
        shape[e].emplace_back(present, f.range_of ? f.range_of(at) : CellRange{f.lo, f.hi, 1});
      });
      for (std::size_t e = 1; e < shape.size() && why.empty(); ++e)
        for (std::size_t c = 0; c < shape[e].size(); ++c)
          if (shape[e][c].first != shape[0][c].first ||
              !same_range(shape[e][c].second, shape[0][c].second)) {
            why = fmt::format("field {} differs in shape between {} and {}", f.name,
                              axis.label(cls.entities[0]), axis.label(cls.entities[e]));
            break;
          }
      plan.slices.push_back(std::move(slice));
    }
    if (!why.empty()) {
      drop(why);
      continue;
    }
    std::vector<std::string> labels;
    for (int e : cls.entities) labels.push_back(axis.label(e));
    axis_names_.push_back(axis.name);
    labels_.push_back(std::move(labels));
    plans_.push_back(std::move(plan));
    sym_.classes.push_back(std::move(cls));
  }
}

std::vector<std::string> Canonicalizer::summary() const {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < plans_.size(); ++k)
    out.push_back(fmt::format("{} interchangeable {}s ({})", labels_[k].size(), axis_names_[k],
                              fmt::join(labels_[k], ", ")));
  return out;
}

bool Canonicalizer::apply(const Plan& plan, std::int64_t* const* fields) const {
  const std::size_t n = plan.entities.size();
  thread_local std::vector<std::uint32_t> order;
  thread_local std::vector<std::int64_t> buffer;
  order.resize(n);
  std::iota(order.begin(), order.end(), 0u);
  auto less = [&](std::uint32_t a, std::uint32_t b) {
    for (const auto& s : plan.slices) {
      const std::int64_t* v = fields[s.field];
      const auto& ca = s.cells[a];
      const auto& cb = s.cells[b];
      for (std::size_t c = 0; c < ca.size(); ++c)
        if (v[ca[c]] != v[cb[c]]) return v[ca[c]] < v[cb[c]];
    }
    return false;
  };
  // Few entities: insertion sort, stable, no allocation.
  for (std::size_t i = 1; i < n; ++i)
    for (std::size_t j = i; j > 0 && less(order[j], order[j - 1]); --j)
      std::swap(order[j], order[j - 1]);
  bool moved = false;
  for (std::size_t i = 0; i < n && !moved; ++i) moved = order[i] != i;
  if (!moved) return false;
  for (const auto& s : plan.slices) {
    std::int64_t* v = fields[s.field];
    const std::size_t per = s.cells[0].size();
    buffer.resize(n * per);
    for (std::size_t e = 0; e < n; ++e)
      for (std::size_t c = 0; c < per; ++c) buffer[e * per + c] = v[s.cells[e][c]];
    // Position i takes the cells of the entity sorted there.
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < per; ++c) v[s.cells[i][c]] = buffer[order[i] * per + c];
  }
  for (std::size_t k = 0; k < plan.index_fields.size(); ++k) {
    std::int64_t* v = fields[plan.index_fields[k]];
    for (std::size_t c = 0; c < plan.index_sizes[k]; ++c) {
      if (v[c] < 0) continue;
      for (std::size_t i = 0; i < n; ++i)
        if (plan.entities[order[i]] == v[c]) {
          v[c] = plan.entities[i];
          break;
        }
    }
  }
  return true;
}

bool Canonicalizer::canonicalize(std::int64_t* const* fields) const {
  // A class's order may depend on another's (a job's cell names a worker):
  // repeat until nothing moves, with a cap so that it always ends. Each pass
  // only permutes, so whatever pass it stops at is still in the orbit.
  bool changed = false;
  for (int round = 0; round < 4; ++round) {
    bool moved = false;
    for (const auto& plan : plans_) moved = apply(plan, fields) || moved;
    if (!moved) break;
    changed = true;
  }
  return changed;
}

}  // namespace kmc::model
