#include "model/packing.hpp"

#include <bit>

#include "model/assert.hpp"

namespace kmc::model {

Packing::Packing(std::vector<PackedField> fields) : fields_(std::move(fields)) {
  packing_detail::Cursor at;
  for (const auto& f : fields_) {
    KMC_ASSERT_MSG(f.bits >= 0 && f.bits <= 64, "a value fits one word");
    if (f.bits == 0) continue;
    for (std::size_t i = 0; i < f.cells; ++i) {
      at.advance(f.bits);
      at.shift += f.bits;
    }
  }
  words_ = at.word + 1;  // at least one, so a state always has an address in a buffer
}

Packing Packing::of(const Layout& layout) {
  std::vector<PackedField> fields;
  for (const auto& f : layout.fields) {
    if (f.hi < f.lo)
      throw std::logic_error("packing: field " + f.name + " declares hi " + std::to_string(f.hi) +
                             " below lo " + std::to_string(f.lo));
    const auto span = static_cast<std::uint64_t>(f.hi) - static_cast<std::uint64_t>(f.lo);
    fields.push_back(
        PackedField{f.name, layout.size(f), static_cast<int>(std::bit_width(span)), f.lo});
  }
  return Packing(std::move(fields));
}

void Packing::out_of_range(const PackedField& f, std::size_t cell, std::int64_t v) const {
  // The protocol broke its own declaration; storing the value would merge distinct states.
  throw std::logic_error("packing: " + f.name + "[" + std::to_string(cell) +
                         "] = " + std::to_string(v) + " lies outside the declared range from " +
                         std::to_string(f.lo) + " (" + std::to_string(f.bits) + " bits)");
}

void Packing::wrong_length(const PackedField& f, std::size_t length) const {
  throw std::logic_error("packing: " + f.name + " has " + std::to_string(length) +
                         " values, the layout says " + std::to_string(f.cells));
}

}  // namespace kmc::model
