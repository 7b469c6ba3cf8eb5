// One protocol definition, two engines.
//
// Protocols write guards and updates once, as templates over a value type V:
// the explicit engine instantiates V = std::int64_t (guards are bool), the
// symbolic engine V = kmc::sym::Int (guards are Z3 terms; checker/symbolic_value.hpp).
// Protocol code therefore never branches with `if` on a V; it branches with
// ite() and combines guards with &&, ||, !. Calls are unqualified so that
// argument-dependent lookup finds the symbolic overloads at instantiation.
#pragma once

#include <cstdint>

namespace kmc::model {

using Explicit = std::int64_t;

inline std::int64_t ite(bool c, std::int64_t a, std::int64_t b) { return c ? a : b; }
inline bool ite(bool c, bool a, bool b) { return c ? a : b; }
// A constant truth value of the same kind as the guards over V.
inline bool truth(std::int64_t /*like*/, bool b) { return b; }
inline bool is_true(bool b) { return b; }

}  // namespace kmc::model

namespace kmc::model {
// Mixed forms, so protocol code can write ite(guard, s.x[i], 0) for either engine.
inline std::int64_t ite(bool c, std::int64_t a, int b) { return c ? a : b; }
}  // namespace kmc::model
