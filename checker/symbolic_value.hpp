// The symbolic instantiation of protocol code: V = sym::Int, guards are
// sym::Bool, both thin wrappers of Z3 terms. With these, the protocol's own
// guards and updates (written once, over V) become an SMT transition
// relation; there is no second, hand-written encoding to drift.
//
// Constants come from SymbolicValues, the value context protocol rules are
// built with (model/value.hpp). Where an operator mixes a term with an
// integer (`x + 1`, `x == kQueued`) the constant is made in the term's own
// context; so is the one assigned to a field, which is what lets protocol
// code write `s.phase[j] = kQueued` for both engines. An Int always holds a
// term: there is no default-constructed one to take a context from.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <utility>

#include "model/value.hpp"

namespace kmc::sym {

struct Bool {
  z3::expr e;
};

struct Int {
  z3::expr e;

  Int(z3::expr x) : e(std::move(x)) {}  // NOLINT: implicit, terms flow in from Z3
  Int& operator=(std::int64_t v) {
    e = e.ctx().int_val(static_cast<int64_t>(v));
    return *this;
  }
  const z3::expr& term() const { return e; }
  z3::context& ctx() const { return e.ctx(); }
};

// The value context of the symbolic engine: constants in one Z3 context.
struct SymbolicValues {
  z3::context* ctx;

  Int lit(std::int64_t v) const { return Int{ctx->int_val(static_cast<int64_t>(v))}; }
  Bool truth(bool b) const { return Bool{ctx->bool_val(b)}; }
};

namespace detail {
// The constant v in the context of `operand`, for the mixed operators below.
inline z3::expr int_like(const z3::expr& operand, std::int64_t v) {
  return operand.ctx().int_val(static_cast<int64_t>(v));
}
}  // namespace detail

inline Int operator+(const Int& a, const Int& b) {
  return Int{a.term() + b.term()};
}
inline Int operator-(const Int& a, const Int& b) {
  return Int{a.term() - b.term()};
}
inline Int operator+(const Int& a, std::int64_t b) {
  return Int{a.term() + detail::int_like(a.e, b)};
}
inline Int operator-(const Int& a, std::int64_t b) {
  return Int{a.term() - detail::int_like(a.e, b)};
}
// By a constant only: the relation stays linear.
inline Int operator*(const Int& a, std::int64_t b) {
  return Int{a.term() * detail::int_like(a.e, b)};
}
inline Int& operator+=(Int& a, const Int& b) {
  return a = a + b;
}
inline Int& operator-=(Int& a, const Int& b) {
  return a = a - b;
}
inline Int& operator+=(Int& a, std::int64_t b) {
  return a = a + b;
}
inline Int& operator-=(Int& a, std::int64_t b) {
  return a = a - b;
}

#define KMC_SYM_COMPARE(op)                               \
  inline Bool operator op(const Int& a, const Int& b) {   \
    return Bool{a.term() op b.term()};                    \
  }                                                       \
  inline Bool operator op(const Int& a, std::int64_t b) { \
    return Bool{a.term() op detail::int_like(a.e, b)};    \
  }                                                       \
  inline Bool operator op(std::int64_t a, const Int& b) { \
    return Bool{detail::int_like(b.e, a) op b.term()};    \
  }
KMC_SYM_COMPARE(==)
KMC_SYM_COMPARE(!=)
KMC_SYM_COMPARE(<)
KMC_SYM_COMPARE(<=)
KMC_SYM_COMPARE(>)
KMC_SYM_COMPARE(>=)
#undef KMC_SYM_COMPARE

inline Bool operator&&(const Bool& a, const Bool& b) {
  return Bool{a.e && b.e};
}
inline Bool operator||(const Bool& a, const Bool& b) {
  return Bool{a.e || b.e};
}
inline Bool operator!(const Bool& a) {
  return Bool{!a.e};
}
inline Bool operator&&(const Bool& a, bool b) {
  return Bool{a.e && a.e.ctx().bool_val(b)};
}
inline Bool operator||(const Bool& a, bool b) {
  return Bool{a.e || a.e.ctx().bool_val(b)};
}

inline Int ite(const Bool& c, const Int& a, const Int& b) {
  return Int{z3::ite(c.e, a.term(), b.term())};
}
inline Int ite(const Bool& c, const Int& a, std::int64_t b) {
  return Int{z3::ite(c.e, a.term(), detail::int_like(a.e, b))};
}
inline Int ite(const Bool& c, std::int64_t a, const Int& b) {
  return Int{z3::ite(c.e, detail::int_like(b.e, a), b.term())};
}
inline Int ite(const Bool& c, std::int64_t a, std::int64_t b) {
  return Int{z3::ite(c.e, detail::int_like(c.e, a), detail::int_like(c.e, b))};
}
inline Bool ite(const Bool& c, const Bool& a, const Bool& b) {
  return Bool{z3::ite(c.e, a.e, b.e)};
}

}  // namespace kmc::sym

namespace kmc::model {
template <>
struct ValuesOf<sym::Int> {
  using type = sym::SymbolicValues;
};
}  // namespace kmc::model
