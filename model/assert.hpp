// Assertions that state invariants in the code itself (TigerBeetle's style):
// an index in range, a count never negative, a parent before its child.
//
// KMC_ASSERT(cond) and KMC_ASSERT_MSG(cond, "why") check when KMC_ASSERTIONS
// is defined (CMake's option of that name: on in Debug, RelWithDebInfo and
// the tests, off in Release). A failure prints file:line, the expression and
// the reason to stderr and aborts: an assertion that fails is a bug in kmc,
// never an answer about the model, so nothing may catch it. When off, the
// condition is still compiled (so it cannot rot) but never evaluated.
//
// They stay on in the builds people test and benchmark with, so each must be
// cheap: a comparison or two, never a loop over a state in the checker's hot path.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace kmc::model {

#ifdef KMC_ASSERTIONS
inline constexpr bool kAssertions = true;
#else
inline constexpr bool kAssertions = false;
#endif

[[noreturn]] inline void assertion_failed(const char* file, int line, const char* expr,
                                          const char* why) {
  std::fprintf(stderr, "%s:%d: assertion failed: %s%s%s\n", file, line, expr, why[0] ? ": " : "",
               why);
  std::fflush(stderr);
  std::abort();
}

}  // namespace kmc::model

#ifdef KMC_ASSERTIONS
#define KMC_ASSERT_MSG(cond, why)                 \
  (static_cast<bool>(cond) ? static_cast<void>(0) \
                           : ::kmc::model::assertion_failed(__FILE__, __LINE__, #cond, why))
#else
#define KMC_ASSERT_MSG(cond, why) static_cast<void>(sizeof(static_cast<bool>(cond)))
#endif
#define KMC_ASSERT(cond) KMC_ASSERT_MSG(cond, "")
