// The MultiKueue state's trace cells are the generic ones, derived from the
// layout (model/instance.hpp, multikueue_spec.cpp); what is left here is the
// schema and enum names that readers need without a scenario (kmc render
// draws a trace alone): the field declarations do not depend on the
// scenario, only their extents and ranges do.
#include "protocols/multikueue.hpp"

namespace kmc::protocols {

namespace {

// With connection faults, so that every field and enum name is known (a fleet without them has
// fewer: their cells are optional, and absent from its traces).
const model::Layout& unscoped_layout() {
  static const model::Layout layout = [] {
    MkParams p;
    p.worker_disconnects = -1;
    return MkSpec::layout(p);
  }();
  return layout;
}

}  // namespace

const std::vector<model::FieldSchema>& MultiKueue::cell_fields() {
  static const std::vector<model::FieldSchema> fields = model::schema_of(unscoped_layout());
  return fields;
}

std::string MultiKueue::cell_enum(std::string_view field, std::int64_t v) {
  for (const auto& f : unscoped_layout().fields)
    if (field == f.name && f.kind == model::FieldKind::Enum && v >= f.lo &&
        v - f.lo < static_cast<std::int64_t>(f.names.size()))
      return f.names[static_cast<std::size_t>(v - f.lo)];
  return "";
}

std::optional<ActionKind> MultiKueue::action_kind(std::string_view name) {
  const auto& actions = unscoped_layout().actions;  // in ActionKind's order
  for (std::size_t k = 0; k < actions.size(); ++k)
    if (actions[k].name == name) return static_cast<ActionKind>(k);
  return std::nullopt;
}

}  // namespace kmc::protocols
