// A check that a scenario's kmc.yaml is refused as a user would see it.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "cli/run_kmc.hpp"

// examples/<example> with kmc.yaml replaced by `kmc_yaml`: `kmc check` is exit 3,
// with an error at a line of kmc.yaml naming `field` and saying `what`.
inline void fleet_refused(const std::string& example, const std::string& kmc_yaml,
                          const std::string& field, const std::string& what) {
  const auto dir = example_with(example, "kmc.yaml", kmc_yaml);
  const auto r = kmc("check " + dir);
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(has(r.err, "kmc.yaml:"));
  CHECK(has(r.err, field));
  CHECK(has(r.err, what));
}
