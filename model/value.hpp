// One protocol definition, two engines.
//
// Protocols write guards and updates once, as templates over a value type V:
// the explicit engine instantiates V = std::int64_t (guards are bool), the
// symbolic engine V = kmc::sym::Int (guards are Z3 terms; checker/symbolic_value.hpp).
// Protocol code therefore never branches with `if` on a V; it branches with
// ite() and combines guards with &&, ||, !. Calls are unqualified so that
// argument-dependent lookup finds the symbolic overloads at instantiation.
//
// Constants come from an explicit value context, Values<V>, that the rules
// are built with: `val_.lit(3)`, `val_.truth(false)`. A Z3 constant needs its
// context, and the state is not the place to fetch it from.
#pragma once

#include <cstdint>
#include <type_traits>

namespace kmc::model {

using Explicit = std::int64_t;

// The explicit engine's value context: constants are themselves.
struct ExplicitValues {
  std::int64_t lit(std::int64_t v) const { return v; }
  bool truth(bool b) const { return b; }
};

// The value context of each value type; checker/symbolic_value.hpp adds sym::Int's.
template <class V>
struct ValuesOf;
template <>
struct ValuesOf<std::int64_t> {
  using type = ExplicitValues;
};
template <class V>
using Values = typename ValuesOf<V>::type;

// Whether V answers questions (the explicit engine) or builds formulas: only
// then can code assert on a V (model/assert.hpp).
template <class V>
inline constexpr bool is_explicit = std::is_integral_v<V>;

inline std::int64_t ite(bool c, std::int64_t a, std::int64_t b) {
  return c ? a : b;
}
inline bool ite(bool c, bool a, bool b) {
  return c ? a : b;
}
// Mixed form, so protocol code can write ite(guard, s.x[i], 0) for either engine.
inline std::int64_t ite(bool c, std::int64_t a, int b) {
  return c ? a : b;
}

}  // namespace kmc::model
