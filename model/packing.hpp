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

#include <algorithm>
#include <boost/hana.hpp>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
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
  std::uint64_t most = 0;     // (hi - lo) / step: the largest stored value
  static CellPlan of(std::int64_t lo, std::int64_t hi, std::int64_t step);
};

struct PackedField {
  std::string name;
  std::size_t cells = 1;  // values in the State member (1 for a scalar member)
  int bits = 64;          // every cell alike: 0..64; 0: the value is always lo
  std::int64_t lo = 0;
  std::vector<CellPlan> plan;  // or one plan per cell (CellRange), when the spec gives them
  std::uint64_t most = ~std::uint64_t{0};  // hi - lo, when declared: the largest stored value
};

namespace packing_detail {

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
  // pack(s, out) when `from` packs to from_words: only the fields s changed
  // are packed again (an action touches few), the rest is copied.
  template <class State>
  void repack(const State& from, const std::uint64_t* from_words, const State& s,
              std::uint64_t* out) const;

 private:
  std::vector<PackedField> fields_;
  std::size_t words_ = 0;
  std::vector<packing_detail::Cursor> start_;  // per field: where its first value goes
  // per field: the bits it occupies, as (word, mask) pairs
  std::vector<std::vector<std::pair<std::size_t, std::uint64_t>>> bits_;
};

namespace packing_detail {

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

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

namespace packing_detail {

[[noreturn]] void out_of_range(const PackedField& f, std::size_t cell, std::int64_t v);
[[noreturn]] void wrong_length(const PackedField& f, std::size_t length);

// One field's values, in plain loops the compiler keeps inline (the hot path
// of the search: every successor is packed).
inline void put(const PackedField& f, const std::int64_t* v, std::size_t n, Cursor& at,
                std::uint64_t* out) {
  if (n != f.cells) wrong_length(f, n);
  if (!f.plan.empty()) {
    for (std::size_t i = 0; i < n; ++i) {
      const CellPlan& c = f.plan[i];
      const std::uint64_t x = static_cast<std::uint64_t>(v[i]) - static_cast<std::uint64_t>(c.lo);
      const std::uint64_t q = (x >> c.shift) * c.inverse;
      if (v[i] < c.lo || (x & ((std::uint64_t{1} << c.shift) - 1)) != 0 || q > c.most)
        out_of_range(f, i, v[i]);
      if (c.bits == 0) continue;
      at.advance(c.bits);
      out[at.word] |= q << at.shift;
      at.shift += c.bits;
    }
    return;
  }
  const int bits = f.bits;
  const std::uint64_t m = std::min(mask(bits), f.most), lo = static_cast<std::uint64_t>(f.lo);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t u = static_cast<std::uint64_t>(v[i]) - lo;
    if (v[i] < f.lo || u > m) out_of_range(f, i, v[i]);
    if (bits == 0) continue;
    at.advance(bits);
    out[at.word] |= u << at.shift;
    at.shift += bits;
  }
}

inline void get(const PackedField& f, const std::uint64_t* in, std::int64_t* v, Cursor& at) {
  if (!f.plan.empty()) {
    for (std::size_t i = 0; i < f.cells; ++i) {
      const CellPlan& c = f.plan[i];
      if (c.bits == 0) {
        v[i] = c.lo;
        continue;
      }
      at.advance(c.bits);
      const std::uint64_t q = (in[at.word] >> at.shift) & mask(c.bits);
      at.shift += c.bits;
      v[i] = c.lo + static_cast<std::int64_t>(q) * c.step;
    }
    return;
  }
  const int bits = f.bits;
  const std::uint64_t m = mask(bits), lo = static_cast<std::uint64_t>(f.lo);
  for (std::size_t i = 0; i < f.cells; ++i) {
    if (bits == 0) {
      v[i] = f.lo;
      continue;
    }
    at.advance(bits);
    v[i] = static_cast<std::int64_t>(((in[at.word] >> at.shift) & m) + lo);
    at.shift += bits;
  }
}

}  // namespace packing_detail

template <class State>
void Packing::pack(const State& s, std::uint64_t* out) const {
  for (std::size_t w = 0; w < words_; ++w) out[w] = 0;
  packing_detail::Cursor at;
  std::size_t k = 0;
  // Accessors, not hana::members: members() copies every field.
  boost::hana::for_each(boost::hana::accessors<State>(), [&](const auto& acc) {
    const auto& m = boost::hana::second(acc)(s);
    const PackedField& f = fields_[k++];
    using M = std::decay_t<decltype(m)>;
    if constexpr (packing_detail::IsVector<M>::value) {
      static_assert(std::is_same_v<typename M::value_type, std::int64_t>,
                    "packing: state fields are vectors of std::int64_t");
      packing_detail::put(f, m.data(), m.size(), at, out);
    } else {
      const auto v = static_cast<std::int64_t>(m);
      packing_detail::put(f, &v, 1, at, out);
    }
  });
}

template <class State>
void Packing::repack(const State& from, const std::uint64_t* from_words, const State& s,
                     std::uint64_t* out) const {
  std::copy(from_words, from_words + words_, out);
  std::size_t k = 0;
  boost::hana::for_each(boost::hana::accessors<State>(), [&](const auto& acc) {
    const auto& m = boost::hana::second(acc)(s);
    const std::size_t field = k++;
    if (m == boost::hana::second(acc)(from)) return;
    for (const auto& [word, bits] : bits_[field]) out[word] &= ~bits;
    packing_detail::Cursor at = start_[field];
    using M = std::decay_t<decltype(m)>;
    if constexpr (packing_detail::IsVector<M>::value) {
      packing_detail::put(fields_[field], m.data(), m.size(), at, out);
    } else {
      const auto v = static_cast<std::int64_t>(m);
      packing_detail::put(fields_[field], &v, 1, at, out);
    }
  });
}

template <class State>
void Packing::unpack(const std::uint64_t* in, State& s) const {
  packing_detail::Cursor at;
  std::size_t k = 0;
  boost::hana::for_each(boost::hana::accessors<State>(), [&](const auto& acc) {
    auto& m = boost::hana::second(acc)(s);
    const PackedField& f = fields_[k++];
    using M = std::decay_t<decltype(m)>;
    if constexpr (packing_detail::IsVector<M>::value) {
      m.resize(f.cells);  // allocates once per scratch state, then never
      packing_detail::get(f, in, m.data(), at);
    } else {
      std::int64_t v = 0;
      packing_detail::get(f, in, &v, at);
      m = static_cast<M>(v);
    }
  });
}

}  // namespace kmc::model
