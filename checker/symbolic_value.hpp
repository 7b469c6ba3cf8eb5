// The symbolic instantiation of protocol code: V = sym::Int, guards are
// sym::Bool, both thin wrappers of Z3 terms. With these, the protocol's own
// guards and updates (written once, over V) become an SMT transition
// relation; there is no second, hand-written encoding to drift.
//
// Assigning an integer constant to a sym::Int keeps its Z3 context, which is
// what lets protocol code write `s.phase[j] = kQueued` for both engines.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <optional>

namespace kmc::sym {

struct Bool {
  z3::expr e;
};

struct Int {
  std::optional<z3::expr> e;  // empty only in a default-constructed placeholder

  Int() = default;
  Int(z3::expr x) : e(std::move(x)) {}  // NOLINT: implicit, terms flow in from Z3
  Int& operator=(std::int64_t v) {
    e = e->ctx().int_val(static_cast<int64_t>(v));
    return *this;
  }
  const z3::expr& term() const { return *e; }
  z3::context& ctx() const { return e->ctx(); }
};

inline z3::expr lit(const Int& like, std::int64_t v) { return like.ctx().int_val(static_cast<int64_t>(v)); }

inline Int operator+(const Int& a, const Int& b) { return Int{a.term() + b.term()}; }
inline Int operator-(const Int& a, const Int& b) { return Int{a.term() - b.term()}; }
inline Int operator+(const Int& a, std::int64_t b) { return Int{a.term() + lit(a, b)}; }
inline Int operator-(const Int& a, std::int64_t b) { return Int{a.term() - lit(a, b)}; }
inline Int& operator+=(Int& a, const Int& b) { return a = a + b; }
inline Int& operator-=(Int& a, const Int& b) { return a = a - b; }
inline Int& operator+=(Int& a, std::int64_t b) { return a = a + b; }
inline Int& operator-=(Int& a, std::int64_t b) { return a = a - b; }

#define KMC_SYM_COMPARE(op)                                                                     \
  inline Bool operator op(const Int& a, const Int& b) { return Bool{a.term() op b.term()}; }    \
  inline Bool operator op(const Int& a, std::int64_t b) { return Bool{a.term() op lit(a, b)}; } \
  inline Bool operator op(std::int64_t a, const Int& b) { return Bool{lit(b, a) op b.term()}; }
KMC_SYM_COMPARE(==)
KMC_SYM_COMPARE(!=)
KMC_SYM_COMPARE(<)
KMC_SYM_COMPARE(<=)
KMC_SYM_COMPARE(>)
KMC_SYM_COMPARE(>=)
#undef KMC_SYM_COMPARE

inline Bool operator&&(const Bool& a, const Bool& b) { return Bool{a.e && b.e}; }
inline Bool operator||(const Bool& a, const Bool& b) { return Bool{a.e || b.e}; }
inline Bool operator!(const Bool& a) { return Bool{!a.e}; }
inline Bool operator&&(const Bool& a, bool b) { return Bool{a.e && a.e.ctx().bool_val(b)}; }
inline Bool operator||(const Bool& a, bool b) { return Bool{a.e || a.e.ctx().bool_val(b)}; }

inline Int ite(const Bool& c, const Int& a, const Int& b) { return Int{z3::ite(c.e, a.term(), b.term())}; }
inline Int ite(const Bool& c, const Int& a, std::int64_t b) { return Int{z3::ite(c.e, a.term(), lit(a, b))}; }
inline Int ite(const Bool& c, std::int64_t a, const Int& b) { return Int{z3::ite(c.e, lit(b, a), b.term())}; }
inline Int ite(const Bool& c, std::int64_t a, std::int64_t b) {
  return Int{z3::ite(c.e, c.e.ctx().int_val(static_cast<int64_t>(a)), c.e.ctx().int_val(static_cast<int64_t>(b)))};
}
inline Bool ite(const Bool& c, const Bool& a, const Bool& b) { return Bool{z3::ite(c.e, a.e, b.e)}; }
inline Bool truth(const Int& like, bool b) { return Bool{like.ctx().bool_val(b)}; }

}  // namespace kmc::sym
