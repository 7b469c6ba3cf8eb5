// The test build checks the invariants the code states (model/assert.hpp):
// STYLE.md wants assertions on in tests, so a build that quietly turned them
// off would test less than it claims. A failing assertion aborts, which
// Catch2 v2 cannot catch; what is tested here is that they are on.
#include "model/assert.hpp"

#include <catch2/catch.hpp>

TEST_CASE("assertions are on in the test build", "[model][assert]") {
  INFO("configure with -DKMC_ASSERTIONS=ON (the default except in Release)");
  REQUIRE(kmc::model::kAssertions);
}

TEST_CASE("an assertion evaluates its condition exactly once", "[model][assert]") {
  // Off, the condition is only compiled (sizeof), never run: the count
  // shows that KMC_ASSERT really checks here.
  int evaluated = 0;
  KMC_ASSERT(++evaluated == 1);
  KMC_ASSERT_MSG(++evaluated == 2, "a second, with its reason");
  CHECK(evaluated == 2);
}
