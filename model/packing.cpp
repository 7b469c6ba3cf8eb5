#include "model/packing.hpp"

#include <bit>

#include "model/assert.hpp"

namespace kmc::model {

CellPlan CellPlan::of(std::int64_t lo, std::int64_t hi, std::int64_t step) {
  if (step < 1 || hi < lo)
    throw std::logic_error("packing: a cell range needs lo <= hi and a step of 1 or more");
  CellPlan c;
  c.lo = lo, c.step = step;
  const auto count = (static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo)) /
                     static_cast<std::uint64_t>(step);
  c.bits = static_cast<int>(std::bit_width(count));
  c.most = count;
  c.shift = std::countr_zero(static_cast<std::uint64_t>(step));
  const std::uint64_t odd = static_cast<std::uint64_t>(step) >> c.shift;
  std::uint64_t inv = odd;  // Newton's iteration doubles the correct low bits: 3, 6, ..., 96
  for (int i = 0; i < 5; ++i) inv *= 2 - odd * inv;
  KMC_ASSERT_MSG(odd * inv == 1, "the inverse of an odd number modulo 2^64");
  c.inverse = inv;
  return c;
}

Packing::Packing(std::vector<PackedField> fields) : fields_(std::move(fields)) {
  packing_detail::Cursor at;
  auto place = [&](int bits, std::vector<std::pair<std::size_t, std::uint64_t>>& bits_of) {
    KMC_ASSERT_MSG(bits >= 0 && bits <= 64, "a value fits one word");
    if (bits == 0) return;
    at.advance(bits);
    const std::uint64_t m = packing_detail::mask(bits) << at.shift;
    if (!bits_of.empty() && bits_of.back().first == at.word)
      bits_of.back().second |= m;
    else
      bits_of.emplace_back(at.word, m);
    at.shift += bits;
  };
  for (const auto& f : fields_) {
    KMC_ASSERT_MSG(f.plan.empty() || f.plan.size() == f.cells, "one plan per cell, or none");
    start_.push_back(at);
    bits_.emplace_back();
    for (std::size_t i = 0; i < f.cells; ++i)
      place(f.plan.empty() ? f.bits : f.plan[i].bits, bits_.back());
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
    PackedField packed{f.name, layout.size(f), static_cast<int>(std::bit_width(span)), f.lo, {},
                       span};
    if (f.range_of)
      for (std::size_t i = 0; i < packed.cells; ++i) {  // row-major, padding included
        const CellRange r = layout.range(f, i);
        packed.plan.push_back(CellPlan::of(r.lo, r.hi, r.step));
      }
    fields.push_back(std::move(packed));
  }
  return Packing(std::move(fields));
}

namespace packing_detail {

void out_of_range(const PackedField& f, std::size_t cell, std::int64_t v) {
  // The protocol broke its own declaration; storing the value would merge distinct states.
  if (f.plan.empty())
    throw std::logic_error("packing: " + f.name + "[" + std::to_string(cell) +
                           "] = " + std::to_string(v) + " lies outside the declared range from " +
                           std::to_string(f.lo) + " (" + std::to_string(f.bits) + " bits)");
  const CellPlan& c = f.plan[cell];
  throw std::logic_error("packing: " + f.name + "[" + std::to_string(cell) +
                         "] = " + std::to_string(v) + " is not " + std::to_string(c.lo) +
                         " plus a multiple of " + std::to_string(c.step) + " in " +
                         std::to_string(c.bits) + " bits, as its cell range declares");
}

void wrong_length(const PackedField& f, std::size_t length) {
  throw std::logic_error("packing: " + f.name + " has " + std::to_string(length) +
                         " values, the layout says " + std::to_string(f.cells));
}

}  // namespace packing_detail

}  // namespace kmc::model
