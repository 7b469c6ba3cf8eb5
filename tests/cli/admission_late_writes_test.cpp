// Late admission patches as a user meets them: kmc.yaml
// environment.lateAdmissionWrites, the admission-patch-race example and its
// fix with their engine replay, and bad budgets exit 3 naming file, line and field.
#include <catch2/catch.hpp>

#include "cli/fleet_refused.hpp"

TEST_CASE("late admission writes: before #11502 the reclaimer waits forever; since, it is admitted",
          "[cli][admission][late-writes]") {
  auto r = kmc("check examples/admission-patch-race --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Property guarantee-eventually-admitted is violated"));
  CHECK(has(r.out, "<EvictionOverwritten(ml/sweep)>"));
  CHECK(has(r.out, "expecting[ml/sweep]"));
  CHECK(has(r.out, "Reproduced in the engine"));
  r = kmc("check examples/admission-patch-race-fixed --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "guarantee-eventually-admitted  Verified"));
  CHECK(has(r.out, "no-preemption-livelock         Verified"));
}

TEST_CASE("late admission writes: bad budgets are exit 3 at their line",
          "[cli][admission][late-writes]") {
  const std::string text =
      slurp(std::string(KMC_SOURCE_DIR) + "/examples/admission-patch-race/kmc.yaml");
  const std::string budget = "lateAdmissionWrites: 1";
  auto with = [&](const std::string& value) {
    std::string t = text;
    t.replace(t.find(budget), budget.size(), "lateAdmissionWrites: " + value);
    return t;
  };
  fleet_refused("admission-patch-race", with("-1"), "lateAdmissionWrites", "");
  fleet_refused("admission-patch-race", with("many"), "lateAdmissionWrites", "");
}
