// Packed states (model/packing.hpp): exact round trips for every kind of
// field plan, the fewest words, and a loud failure, never a silent merge of
// two states, when a value breaks its declared range.
#include "model/packing.hpp"

#include <rapidcheck.h>

#include <boost/hana.hpp>
#include <catch2/catch.hpp>
#include <stdexcept>

using kmc::model::CellPlan;
using kmc::model::PackedField;
using kmc::model::Packing;

namespace {

struct Sample {
  BOOST_HANA_DEFINE_STRUCT(Sample, (std::vector<std::int64_t>, phase),  // 0..3, 2 bits
                           (std::vector<std::int64_t>, index),          // -1..2, 2 bits
                           (std::vector<std::int64_t>, bytes),          // per-cell plans
                           (std::vector<std::int64_t>, fixed),          // 0 bits
                           (std::int64_t, wide));                       // 64 bits
  bool operator==(const Sample&) const = default;
};

constexpr std::int64_t kGi = std::int64_t{1} << 30;
constexpr std::uint64_t kAny = ~std::uint64_t{0};

Packing sample_packing() {
  PackedField bytes{"bytes", 3, 64, 0, {}, kAny};
  bytes.plan = {CellPlan::of(0, 768 * kGi, 64 * kGi),  // 12 multiples of 64Gi: 4 bits
                CellPlan::of(5, 5, 1),                 // constant: 0 bits
                CellPlan::of(-6, 30, 3)};              // an odd step, from a negative lo
  return Packing({{"phase", 4, 2, 0, {}, 3},
                  {"index", 4, 2, -1, {}, kAny},  // bounded by its 2 bits only
                  bytes,
                  {"fixed", 2, 0, 7, {}, 0},
                  {"wide", 1, 64, std::numeric_limits<std::int64_t>::min(), {}, kAny}});
}

Sample round_trip(const Packing& p, const Sample& s) {
  std::vector<std::uint64_t> words(p.words());
  p.pack(s, words.data());
  Sample back{};
  p.unpack(words.data(), back);
  return back;
}

}  // namespace

TEST_CASE("packing: the fewest words, values never straddling two", "[model][packing]") {
  // 8 + 8 + 4 + 0 + 4 bits = 24 bits in the first word; the 64-bit value needs a word of its own.
  CHECK(sample_packing().words() == 2);
  CHECK(Packing({{"none", 3, 0, 0, {}, 0}}).words() == 1);  // a state always has an address
  CHECK(Packing({{"a", 1, 40, 0, {}, kAny}, {"b", 1, 40, 0, {}, kAny}}).words() == 2);
}

TEST_CASE("packing: every valid state comes back exactly", "[model][packing][rapidcheck]") {
  const Packing p = sample_packing();
  CHECK(rc::check("pack then unpack is the identity", [&] {
    Sample s;
    s.phase =
        *rc::gen::container<std::vector<std::int64_t>>(4, rc::gen::inRange<std::int64_t>(0, 4));
    s.index =
        *rc::gen::container<std::vector<std::int64_t>>(4, rc::gen::inRange<std::int64_t>(-1, 3));
    s.bytes = {64 * kGi * *rc::gen::inRange<std::int64_t>(0, 13), 5,
               -6 + 3 * *rc::gen::inRange<std::int64_t>(0, 13)};
    s.fixed = {7, 7};
    s.wide = *rc::gen::arbitrary<std::int64_t>();
    RC_ASSERT(round_trip(p, s) == s);
  }));
}

TEST_CASE("packing: a value off its declared range throws, naming field and cell",
          "[model][packing]") {
  const Packing p = sample_packing();
  const Sample ok{{0, 1, 2, 3}, {-1, 0, 1, 2}, {0, 5, -6}, {7, 7}, 0};
  REQUIRE(round_trip(p, ok) == ok);
  std::vector<std::uint64_t> words(p.words());
  auto fails = [&](Sample s, const char* what) {
    INFO(what);
    try {
      p.pack(s, words.data());
      FAIL("packed a value outside its range");
    } catch (const std::logic_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  Sample s = ok;
  s.phase[2] = 4;
  CHECK(fails(s, "above hi").find("phase[2] = 4") != std::string::npos);
  s = ok, s.index[0] = -2;
  CHECK(fails(s, "below lo").find("index[0] = -2") != std::string::npos);
  s = ok, s.bytes[0] = 64 * kGi + 1;
  CHECK(fails(s, "not a multiple of the step").find("bytes[0]") != std::string::npos);
  s = ok, s.bytes[0] = 832 * kGi;  // the next multiple past hi
  CHECK(fails(s, "a multiple past hi").find("bytes[0]") != std::string::npos);
  s = ok, s.bytes[1] = 6;
  CHECK(fails(s, "a constant cell that moved").find("bytes[1] = 6") != std::string::npos);
  s = ok, s.bytes[2] = -5;
  CHECK(fails(s, "an odd step missed").find("bytes[2] = -5") != std::string::npos);
  s = ok, s.fixed[1] = 8;
  CHECK(fails(s, "a zero-bit field that moved").find("fixed[1] = 8") != std::string::npos);
  s = ok, s.phase.pop_back();
  CHECK(fails(s, "a field of the wrong length").find("phase has 3 values") != std::string::npos);
}

TEST_CASE("packing: a protocol without declared ranges packs a word per value",
          "[model][packing]") {
  const Sample s{{0, 1, 2, 3}, {-1, 0, 1, 2}, {0, 5, -6}, {7, 7}, -42};
  const Packing p = Packing::reflected(s);
  CHECK(p.words() == 4 + 4 + 3 + 2 + 1);
  CHECK(round_trip(p, s) == s);
}
