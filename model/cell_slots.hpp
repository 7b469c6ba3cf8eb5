// Where each trace cell lives in the state, so that a tool comparing many
// states with one set of cells (kmc validate's search) reads raw values
// instead of building every cell's names and value per state (Instance::cells).
// The slots are those Instance::cells lists, in its order: padding and absent
// cells left out.
#pragma once

#include <boost/hana.hpp>
#include <cstdint>
#include <vector>

#include "model/cell.hpp"
#include "model/spec.hpp"

namespace kmc::model {

struct CellSlot {
  std::size_t field = 0;   // index into Layout::fields, and the State's member
  std::size_t offset = 0;  // flat offset into that field
  std::vector<int> at;     // per-axis indices
  std::vector<std::string> entity;
};

std::vector<CellSlot> cell_slots(const Layout& layout);
// The cell's value for a raw state value: what Instance::cells would say.
CellValue slot_value(const Layout& layout, const CellSlot& slot, std::int64_t raw);

// The raw values of `slots` in state `s` (a Hana-reflected State<std::int64_t>).
template <class State>
void raw_values(const State& s, const std::vector<CellSlot>& slots,
                std::vector<std::int64_t>& out) {
  std::vector<const std::vector<std::int64_t>*> fields;
  boost::hana::for_each(boost::hana::accessors<State>(),
                        [&](const auto& acc) { fields.push_back(&boost::hana::second(acc)(s)); });
  out.clear();
  for (const auto& slot : slots) out.push_back((*fields[slot.field])[slot.offset]);
}

}  // namespace kmc::model
