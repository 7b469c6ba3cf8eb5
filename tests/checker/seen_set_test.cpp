// The sharded seen-set (checker/seen_set.hpp) and the blocked columns
// (checker/column.hpp) against plain standard containers.
#include "checker/seen_set.hpp"

#include <rapidcheck.h>

#include <catch2/catch.hpp>
#include <map>

#include "checker/column.hpp"
#include "model/fingerprint.hpp"

using kmc::checker::SeenSet;

TEST_CASE("seen-set: the same answers as a map, through every shard's growth",
          "[checker][seen_set][rapidcheck]") {
  CHECK(rc::check("insert and find agree with std::map", [](bool with_index) {
    SeenSet seen(with_index);
    std::map<std::uint64_t, std::uint32_t> model;
    const auto n = *rc::gen::inRange<std::uint32_t>(0, 60'000);
    const auto distinct = *rc::gen::inRange<std::uint64_t>(1, 100'000);
    for (std::uint32_t i = 0; i < n; ++i) {
      // Fingerprints are mixed values; 0 and 1 collide on purpose (0 is remapped).
      const std::uint64_t k = i % distinct;
      const std::uint64_t fp = k < 2 ? k : kmc::model::mix64(k);
      const auto got = seen.insert(fp, i);
      const auto it = model.find(fp == 0 ? 1 : fp);
      if (it == model.end()) {
        RC_ASSERT(got == SeenSet::kAbsent);
        model.emplace(fp == 0 ? 1 : fp, i);
      } else {
        RC_ASSERT(got == (with_index ? it->second : SeenSet::kPresent));
      }
    }
    RC_ASSERT(seen.size() == model.size());
    for (const auto& [fp, index] : model)
      RC_ASSERT(seen.find(fp) == (with_index ? index : SeenSet::kPresent));
    RC_ASSERT(seen.find(kmc::model::mix64(1'000'003)) == SeenSet::kAbsent);
  }));
}

TEST_CASE("seen-set: set() gives a stored fingerprint its index", "[checker][seen_set]") {
  SeenSet seen(true);
  CHECK(seen.insert(42, SeenSet::kPresent) == SeenSet::kAbsent);
  CHECK(seen.find(42) == SeenSet::kPresent);
  seen.set(42, 7);
  CHECK(seen.find(42) == 7);
  CHECK(seen.insert(42, 9) == 7);
}

TEST_CASE("columns: blocked storage reads back what was pushed", "[checker][column]") {
  kmc::checker::Column<std::uint32_t> c;
  kmc::checker::BitsColumn narrow, wide;
  narrow.set_bits(5);
  wide.set_bits(40);
  const std::size_t n = 3 * kmc::checker::Column<std::uint32_t>::kBlock + 17;
  for (std::size_t i = 0; i < n; ++i) {
    c.push_back(static_cast<std::uint32_t>(i * 7));
    narrow.push_back(i & 31);
    wide.push_back((std::uint64_t{1} << 39) | i);
  }
  REQUIRE(c.size() == n);
  REQUIRE(narrow.size() == n);
  for (std::size_t i = 0; i < n; i += 997) {
    CHECK(c[i] == i * 7);
    CHECK(narrow[i] == (i & 31));
    CHECK(wide[i] == ((std::uint64_t{1} << 39) | i));
  }
  kmc::checker::Rows rows;
  rows.set_width(3);
  for (std::uint64_t i = 0; i < 10'000; ++i) {
    const std::uint64_t w[3] = {i, i + 1, ~i};
    rows.push_back(w);
  }
  CHECK(rows.row(9'999)[2] == ~std::uint64_t{9'999});
  CHECK(rows.row(4'096)[1] == 4'097);  // the first row of the second block
}
