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
  const int axes = static_cast<int>(layout.axes.size());
  for (auto& cls : symmetry.classes) {
    auto drop = [&](const std::string& why) {
      const std::string axis = cls.axis >= 0 && cls.axis < axes ? layout.axes[cls.axis].name
                                                                : fmt::format("axis {}", cls.axis);
      sym_.notes.push_back(fmt::format("no symmetry over {}s: {}", axis, why));
    };
    if (cls.axis < 0 || cls.axis >= axes) {
      drop("no such axis");
      continue;
    }
    const Axis& axis = layout.axes[cls.axis];
    if (cls.entities.size() < 2) continue;  // one entity has no one to swap with
    const std::size_t n = cls.entities.size();
    // The permuted axes, each with its groups: group k of axis X moves with class entity k.
    std::vector<std::pair<int, std::vector<std::vector<int>>>> moved;
    std::vector<std::vector<int>> own;
    for (int e : cls.entities) own.push_back({e});
    moved.emplace_back(cls.axis, std::move(own));
    std::string why;
    if (axis.parent >= 0) why = "it depends on another axis";
    for (const auto& link : cls.links) {
      if (link.axis < 0 || link.axis >= axes || link.axis == cls.axis || link.owned.size() != n)
        why = "a link to another axis does not fit the class";
      else
        moved.emplace_back(link.axis, link.owned);
    }
    for (const auto& [x, groups] : moved) {
      std::vector<int> all;
      for (const auto& g : groups) {
        if (g.size() != groups[0].size()) why = "linked entities differ in number";
        for (int e : g) {
          if (e < 0 || e >= layout.axes[x].extent()) why = "an entity out of range";
          all.push_back(e);
        }
      }
      std::sort(all.begin(), all.end());
      if (std::adjacent_find(all.begin(), all.end()) != all.end()) why = "an entity given twice";
    }
    Plan plan;
    plan.n = n;
    for (std::size_t fi = 0; fi < layout.fields.size() && why.empty(); ++fi) {
      const Field& f = layout.fields[fi];
      int uses = 0;
      std::size_t which = 0, d = 0;
      for (std::size_t m = 0; m < moved.size(); ++m) {
        const int x = moved[m].first;
        for (std::size_t k = 0; k < f.axes.size(); ++k)
          if (f.axes[k] == x) ++uses, which = m, d = k;
        const bool has = std::count(f.axes.begin(), f.axes.end(), x) > 0;
        for (int a : f.axes)
          if (layout.axes[a].parent == x && !has)
            why = fmt::format("field {} has a {} of some {} without the {} itself", f.name,
                              layout.axes[a].name, layout.axes[x].name, layout.axes[x].name);
        if (f.kind == FieldKind::Index && f.index_axis == x)
          plan.renames.push_back(Rename{fi, layout.size(f), moved[m].second});
        if (m == 0 && f.kind == FieldKind::Index && f.index_axis >= 0 &&
            layout.axes[f.index_axis].parent == x)
          why = fmt::format("field {} names a {} of a {}", f.name, layout.axes[f.index_axis].name,
                            axis.name);
      }
      if (uses == 0 || !why.empty()) continue;
      if (uses > 1) {
        why = fmt::format("field {} is indexed twice by what a {} permutation moves", f.name,
                          axis.name);
        continue;
      }
      const auto& groups = moved[which].second;
      Slice slice{fi, std::vector<std::vector<std::uint32_t>>(n)};
      // The cells of each entity, with what makes them comparable: a permutation
      // moves a value to the same cell of another entity, which must exist and
      // take the same values, else it would break the packing or the state's meaning.
      std::vector<std::vector<std::pair<bool, CellRange>>> shape(n);
      for (std::size_t k = 0; k < n; ++k)
        for (int g : groups[k])
          for_each_cell(layout, f, [&](std::size_t off, const std::vector<int>& at) {
            if (at[d] != g) return;
            slice.cells[k].push_back(static_cast<std::uint32_t>(off));
            shape[k].emplace_back(!f.present || f.present(at),
                                  f.range_of ? f.range_of(at) : CellRange{f.lo, f.hi, 1});
          });
      for (std::size_t k = 1; k < n && why.empty(); ++k)
        for (std::size_t c = 0; c < shape[k].size(); ++c)
          if (shape[k][c].first != shape[0][c].first ||
              !same_range(shape[k][c].second, shape[0][c].second)) {
            why = fmt::format("field {} differs in shape between {} and {}", f.name,
                              axis.label(cls.entities[0]), axis.label(cls.entities[k]));
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
    for (const auto& m : moved) moved_axes_.push_back(layout.axes[m.first].name);
    labels_.push_back(std::move(labels));
    plans_.push_back(std::move(plan));
    sym_.classes.push_back(std::move(cls));
  }
}

std::vector<std::string> Canonicalizer::summary() const {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < plans_.size(); ++k)
    out.push_back(fmt::format("symmetry over {} interchangeable {}s ({})", labels_[k].size(),
                              axis_names_[k], fmt::join(labels_[k], ", ")));
  return out;
}

bool Canonicalizer::apply(const Plan& plan, std::int64_t* const* fields) const {
  const std::size_t n = plan.n;
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
    // Equal cells: what names each of them (a job's cluster) tells them apart,
    // so the order does not depend on the names they came in with.
    for (const auto& r : plan.renames) {
      const std::int64_t* v = fields[r.field];
      for (std::size_t c = 0; c < r.size; ++c)
        for (std::size_t t = 0; t < r.names[a].size(); ++t) {
          const bool na = v[c] == r.names[a][t], nb = v[c] == r.names[b][t];
          if (na != nb) return na;
        }
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
  // What was entity order[i]'s (or its owned t-th) is now entity i's.
  for (const auto& r : plan.renames) {
    std::int64_t* v = fields[r.field];
    for (std::size_t c = 0; c < r.size; ++c) {
      if (v[c] < 0) continue;
      bool done = false;
      for (std::size_t i = 0; i < n && !done; ++i) {
        const auto& from = r.names[order[i]];
        for (std::size_t t = 0; t < from.size(); ++t)
          if (from[t] == v[c]) {
            v[c] = r.names[i][t];
            done = true;
            break;
          }
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
