#include "counterexamples/itf_picks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/assert.hpp"

namespace kmc::cx {

namespace {

int index_of(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

std::string arg_names(const model::ActionKind& row) {
  std::vector<std::string> names;
  for (const auto& a : row.args) names.push_back(a.name);
  return names.empty() ? "nothing" : fmt::format("{}", fmt::join(names, ", "));
}

// The entities argument `k` of `row` may name: its axis's labels, or for a
// dependent axis those under the entity its parent's argument picked.
const std::vector<std::string>& choices(const model::Layout& layout, const model::ActionKind& row,
                                        const std::vector<int>& picked, std::size_t k) {
  static const std::vector<std::string> none;
  const model::Axis& axis = layout.axes[row.args[k].axis];
  if (axis.parent < 0) return axis.labels;
  for (std::size_t q = 0; q < row.args.size(); ++q)
    if (row.args[q].axis == axis.parent && picked[q] >= 0 &&
        picked[q] < static_cast<int>(axis.labels_of.size()))
      return axis.labels_of[picked[q]];
  return none;
}

}  // namespace

std::variant<model::ActionRef, PickProblem> resolve_picks(
    const model::Layout& layout, const std::string& action,
    const std::map<std::string, std::string>& picks) {
  int kind = -1;
  std::vector<std::string> actions;
  for (std::size_t k = 0; k < layout.actions.size(); ++k) {
    actions.push_back(layout.actions[k].name);
    if (layout.actions[k].name == action) kind = static_cast<int>(k);
  }
  if (kind < 0)
    return PickProblem{"mbt::actionTaken", fmt::format("'{}' is not an action of this protocol "
                                                       "({})",
                                                       action, fmt::join(actions, ", "))};
  const model::ActionKind& row = layout.actions[kind];
  for (const auto& [key, value] : picks)
    if (std::none_of(row.args.begin(), row.args.end(),
                     [&](const auto& a) { return a.name == key; }))
      return PickProblem{"mbt::nondetPicks." + key, fmt::format("{} takes no {} pick (it picks {})",
                                                                action, key, arg_names(row))};
  // Independent axes first: a dependent one is named under its parent's pick.
  std::vector<int> picked(row.args.size(), -1);
  for (int dependent = 0; dependent < 2; ++dependent)
    for (std::size_t k = 0; k < row.args.size(); ++k) {
      const model::ActionKind::Arg& arg = row.args[k];
      KMC_ASSERT(arg.axis >= 0 && arg.axis < static_cast<int>(layout.axes.size()));
      const model::Axis& axis = layout.axes[arg.axis];
      if ((axis.parent >= 0) != (dependent == 1)) continue;
      const std::string field = "mbt::nondetPicks." + arg.name;
      auto it = picks.find(arg.name);
      if (it == picks.end())
        return PickProblem{field, fmt::format("missing: {} picks {}; this state has no {}", action,
                                              arg_names(row), arg.name)};
      const auto& names = choices(layout, row, picked, k);
      picked[k] = index_of(names, it->second);
      if (picked[k] < 0)
        return PickProblem{
            field, names.empty()
                       ? fmt::format("no {} named '{}': there is none", axis.name, it->second)
                       : fmt::format("no {} named '{}': expected one of {}", axis.name, it->second,
                                     fmt::join(names, ", "))};
    }
  KMC_ASSERT(std::none_of(picked.begin(), picked.end(), [](int i) { return i < 0; }));
  return model::ActionRef{kind, std::move(picked)};
}

model::Layout labelled_by_cells(model::Layout layout, const std::vector<model::Cell>& cells) {
  for (auto& axis : layout.axes) axis.labels.clear(), axis.labels_of.clear();
  auto add = [](std::vector<std::string>& list, const std::string& name) {
    if (index_of(list, name) < 0) list.push_back(name);
  };
  // Independent axes first: a dependent axis's labels are kept per entity of its parent.
  for (int dependent = 0; dependent < 2; ++dependent)
    for (const auto& c : cells) {
      auto f = std::find_if(layout.fields.begin(), layout.fields.end(),
                            [&](const model::Field& x) { return x.name == c.field; });
      if (f == layout.fields.end() || f->axes.size() != c.entity.size()) continue;
      for (std::size_t k = 0; k < f->axes.size(); ++k) {
        model::Axis& axis = layout.axes[f->axes[k]];
        if ((axis.parent >= 0) != (dependent == 1)) continue;
        if (axis.parent < 0) {
          add(axis.labels, c.entity[k]);
          continue;
        }
        auto q = std::find(f->axes.begin(), f->axes.end(), axis.parent);
        if (q == f->axes.end()) continue;  // the parent does not index this field
        const auto& parents = layout.axes[axis.parent].labels;
        const int p = index_of(parents, c.entity[static_cast<std::size_t>(q - f->axes.begin())]);
        if (p < 0) continue;  // a parent that is itself dependent: not labelled here
        if (axis.labels_of.size() < parents.size()) axis.labels_of.resize(parents.size());
        add(axis.labels_of[p], c.entity[k]);
      }
    }
  return layout;
}

}  // namespace kmc::cx
