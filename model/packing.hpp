// Packed states: a state as a fixed number of 64-bit words, derived from
// the value ranges the protocol declares (model/spec.hpp), the way SPIN
// stores a state vector. The checker's frontier and seen-set hold only
// these words; a state is unpacked into a reused scratch State to expand it,
// so the hot path allocates nothing per successor.
//
// A value is stored as value - lo in bit_width(hi - lo) bits; values never
// straddle a word, so packing and unpacking are a shift and a mask each.
// A value outside its declared range would alias another state: that is a
// wrong answer, so pack() checks every value in every build and throws.
#pragma once

#include <boost/hana.hpp>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "model/spec.hpp"

namespace kmc::model {

// How one value is stored: (value - lo) / step in `bits` bits. The division
// is exact, so it is a shift and a multiplication by the inverse of step's
// odd part (modulo 2^64); a value that is not lo plus a multiple of step
// lands above the mask and is caught like any value out of range.
struct CellPlan {
  int bits = 64;  // 0..64; 0: the value is always lo
  std::int64_t lo = 0;
  std::int64_t step = 1;
  int shift = 0;              // step's trailing zero bits
  std::uint64_t inverse = 1;  // of step's odd part, modulo 2^64
  static CellPlan of(std::int64_t lo, std::int64_t hi, std::int64_t step);
};

struct PackedField {
  std::string name;
  std::size_t cells = 1;  // values in the State member (1 for a scalar member)
  int bits = 64;          // every cell alike: 0..64; 0: the value is always lo
  std::int64_t lo = 0;
  std::vector<CellPlan> plan;  // or one plan per cell (CellRange), when the spec gives them
};

class Packing {
 public:
  Packing() = default;
  explicit Packing(std::vector<PackedField> fields);
  // From a spec's layout: every field's declared range, padding cells included.
  static Packing of(const Layout& layout);
  // For a protocol without declared ranges: a full word per value, the member
  // lengths taken from a sample state (they must not change).
  template <class State>
  static Packing reflected(const State& sample);

  std::size_t words() const { return words_; }
  const std::vector<PackedField>& fields() const { return fields_; }

  template <class State>
  void pack(const State& s, std::uint64_t* out) const;
  template <class State>
  void unpack(const std::uint64_t* in, State& s) const;

 private:
  [[noreturn]] void out_of_range(const PackedField& f, std::size_t cell, std::int64_t v) const;
  [[noreturn]] void off_plan(const PackedField& f, std::size_t cell, std::int64_t v) const;
  [[noreturn]] void wrong_length(const PackedField& f, std::size_t length) const;

  std::vector<PackedField> fields_;
  std::size_t words_ = 0;
};

namespace packing_detail {

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

// Where the next value goes: values fill a word from bit 0 and never straddle two.
struct Cursor {
  std::size_t word = 0;
  int shift = 0;
  void advance(int bits) {
    if (shift + bits > 64) ++word, shift = 0;
  }
};

inline std::uint64_t mask(int bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

}  // namespace packing_detail

template <class State>
Packing Packing::reflected(const State& sample) {
  std::vector<PackedField> fields;
  boost::hana::for_each(boost::hana::accessors<State>(), [&](const auto& acc) {
    const auto& m = boost::hana::second(acc)(sample);
    using M = std::decay_t<decltype(m)>;
    PackedField f{boost::hana::to<const char*>(boost::hana::first(acc)),
                  1,
                  64,
                  std::numeric_limits<std::int64_t>::min(),
                  {}};
    if constexpr (packing_detail::IsVector<M>::value) f.cells = m.size();
    fields.push_back(std::move(f));
  });
  return Packing(std::move(fields));
}

template <class State>
void Packing::pack(const State& s, std::uint64_t* out) const {
  for (std::size_t w = 0; w < words_; ++w) out[w] = 0;
  packing_detail::Cursor at;
  std::size_t k = 0;
  auto put_planned = [&](const PackedField& f, std::size_t cell, std::int64_t v) {
    const CellPlan& c = f.plan[cell];
    const std::uint64_t x = static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(c.lo);
    const std::uint64_t q = (x >> c.shift) * c.inverse;
    if (v < c.lo || (x & ((std::uint64_t{1} << c.shift) - 1)) != 0 ||
        (c.bits < 64 && q > packing_detail::mask(c.bits)))
      off_plan(f, cell, v);
    if (c.bits == 0) return;
    at.advance(c.bits);
    out[at.word] |= q << at.shift;
    at.shift += c.bits;
  };
  auto put = [&](const PackedField& f, std::size_t cell, std::int64_t v) {
    if (!f.plan.empty()) return put_planned(f, cell, v);
    if (f.bits == 0) {
      if (v != f.lo) out_of_range(f, cell, v);
      return;
    }
    const std::uint64_t u = static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(f.lo);
    if (v < f.lo || u > packing_detail::mask(f.bits)) out_of_range(f, cell, v);
    at.advance(f.bits);
    out[at.word] |= u << at.shift;
    at.shift += f.bits;
  };
  // Accessors, not hana::members: members() copies every field.
  boost::hana::for_each(boost::hana::accessors<State>(), [&](const auto& acc) {
    const auto& m = boost::hana::second(acc)(s);
    const PackedField& f = fields_[k++];
    using M = std::decay_t<decltype(m)>;
    if constexpr (packing_detail::IsVector<M>::value) {
      if (m.size() != f.cells) wrong_length(f, m.size());
      for (std::size_t i = 0; i < m.size(); ++i) put(f, i, static_cast<std::int64_t>(m[i]));
    } else {
      put(f, 0, static_cast<std::int64_t>(m));
    }
  });
}

template <class State>
void Packing::unpack(const std::uint64_t* in, State& s) const {
  packing_detail::Cursor at;
  std::size_t k = 0;
  auto get_planned = [&](const CellPlan& c) -> std::int64_t {
    if (c.bits == 0) return c.lo;
    at.advance(c.bits);
    const std::uint64_t q = (in[at.word] >> at.shift) & packing_detail::mask(c.bits);
    at.shift += c.bits;
    return c.lo + static_cast<std::int64_t>(q) * c.step;
  };
  auto get = [&](const PackedField& f) -> std::int64_t {
    if (f.bits == 0) return f.lo;
    at.advance(f.bits);
    const std::uint64_t u = (in[at.word] >> at.shift) & packing_detail::mask(f.bits);
    at.shift += f.bits;
    return static_cast<std::int64_t>(u + static_cast<std::uint64_t>(f.lo));
  };
  boost::hana::for_each(boost::hana::accessors<State>(), [&](const auto& acc) {
    auto& m = boost::hana::second(acc)(s);
    const PackedField& f = fields_[k++];
    using M = std::decay_t<decltype(m)>;
    if constexpr (packing_detail::IsVector<M>::value) {
      m.resize(f.cells);  // allocates once per scratch state, then never
      if (!f.plan.empty()) {
        for (std::size_t i = 0; i < f.cells; ++i)
          m[i] = static_cast<typename M::value_type>(get_planned(f.plan[i]));
        return;
      }
      for (auto& v : m) v = static_cast<typename M::value_type>(get(f));
    } else {
      m = static_cast<M>(get(f));
    }
  });
}

}  // namespace kmc::model
