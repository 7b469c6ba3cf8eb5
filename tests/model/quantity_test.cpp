#include "model/quantity.hpp"

#include <rapidcheck.h>

#include <catch2/catch.hpp>
#include <limits>

using kmc::model::parse_quantity;
using kmc::model::Quantity;
using kmc::model::QuantityError;

TEST_CASE("quantities parse to exact milli-units as Kubernetes reads them") {
  struct Row {
    const char* text;
    std::int64_t milli;
  };
  const Row table[] = {
      {"8", 8000},
      {"500m", 500},
      {"64Gi", (64LL << 30) * 1000},
      {"1.5", 1500},
      {"2e3", 2'000'000},
      {"1E3", 1'000'000},
      {"1k", 1'000'000},
      {"100Mi", 100LL * (1 << 20) * 1000},
      {"1Ki", 1024'000},
      {"0", 0},
      {"-2", -2000},
      {"+3", 3000},
      {".5", 500},
      {"0.001", 1},
      {"1000000n", 1},
      {"1000u", 1},
      {"1.5Gi", 1536LL * (1 << 20) * 1000},
      {"1e-3", 1},
      {"2T", 2'000'000'000'000'000},
      {"1P", 1'000'000'000'000'000'000},
  };
  for (const auto& row : table) {
    INFO(row.text);
    CHECK(parse_quantity(row.text).milli == row.milli);
  }
}

TEST_CASE("malformed quantities are rejected naming the text") {
  for (const char* bad : {"8x", "", "1.2.3", "abc", "1e999", "-", "1e", "Gi", "1 Gi", "1Gib",
                          "100n", "1.0005", "9E", "1E"}) {
    INFO(bad);
    try {
      parse_quantity(bad);
      FAIL("accepted " << bad);
    } catch (const QuantityError& e) {
      CHECK(std::string(e.what()).find(std::string("'") + bad + "'") != std::string::npos);
    }
  }
}

TEST_CASE("kueue_value counts cpu in milli-units and everything else in units rounded up") {
  CHECK(parse_quantity("1500m").kueue_value("cpu") == 1500);
  CHECK(parse_quantity("1500m").kueue_value("memory") == 2);
  CHECK(parse_quantity("8").kueue_value("nvidia.com/gpu") == 8);
  CHECK(parse_quantity("-1500m").kueue_value("memory") == -1);
}

TEST_CASE("quantities print canonically") {
  CHECK(parse_quantity("8").to_string() == "8");
  CHECK(parse_quantity("0.5").to_string() == "500m");
  CHECK(parse_quantity("64Gi").to_string() == "64Gi");
  CHECK(parse_quantity("1024Mi").to_string() == "1Gi");
  CHECK(parse_quantity("1536Mi").to_string() == "1536Mi");
  CHECK(parse_quantity("2k").to_string() == "2000");
  CHECK(parse_quantity("0").to_string() == "0");
  CHECK(parse_quantity("-2Ki").to_string() == "-2Ki");
}

TEST_CASE("printing then parsing a quantity gives it back") {
  rc::check([](std::int64_t milli) {
    const Quantity q{milli};
    RC_ASSERT(parse_quantity(q.to_string()) == q);
  });
}

TEST_CASE("parsing an integer n gives n thousand milli-units") {
  rc::check([](std::int32_t n) {
    RC_ASSERT(parse_quantity(std::to_string(n)).milli == std::int64_t{n} * 1000);
    RC_ASSERT(Quantity::from_units(n) == parse_quantity(std::to_string(n)));
  });
}
