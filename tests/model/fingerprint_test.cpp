#include "model/fingerprint.hpp"

#include <rapidcheck.h>

#include <boost/hana.hpp>
#include <catch2/catch.hpp>

namespace {

struct Sample {
  BOOST_HANA_DEFINE_STRUCT(Sample, (std::vector<std::int64_t>, a), (std::vector<std::int64_t>, b),
                           (std::int64_t, c));
};

}  // namespace

TEST_CASE("fingerprint: pinned value, the same on every run and build", "[model][fingerprint]") {
  Sample s{{1, 2, 3}, {}, 7};
  // Changing this number means every stored fingerprint changes: do it on purpose.
  CHECK(kmc::model::fingerprint(s) == 6883145046302837338ULL);
}

TEST_CASE("fingerprint: stable under copy, changed by any field",
          "[model][fingerprint][rapidcheck]") {
  CHECK(rc::check("a copy has the same fingerprint",
                  [](std::vector<std::int64_t> a, std::vector<std::int64_t> b, std::int64_t c) {
                    const Sample s{a, b, c};
                    const Sample copy = s;
                    RC_ASSERT(kmc::model::fingerprint(copy) == kmc::model::fingerprint(s));
                  }));
  CHECK(rc::check("changing any one value changes the fingerprint",
                  [](std::vector<std::int64_t> a, std::vector<std::int64_t> b, std::int64_t c,
                     std::int64_t delta) {
                    RC_PRE(delta != 0);
                    const Sample s{a, b, c};
                    Sample t = s;
                    const auto field = *rc::gen::inRange(0, 3);
                    // Added modulo 2^64: a signed += of two random int64s overflows (UBSan,
                    // scripts/asan-tests.sh), and a nonzero delta still changes the value.
                    const auto change = [delta](std::int64_t& v) {
                      v = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) +
                                                    static_cast<std::uint64_t>(delta));
                    };
                    if (field == 0 && !a.empty())
                      change(t.a[*rc::gen::inRange<std::size_t>(0, a.size())]);
                    else if (field == 1 && !b.empty())
                      change(t.b[*rc::gen::inRange<std::size_t>(0, b.size())]);
                    else
                      change(t.c);
                    RC_ASSERT(kmc::model::fingerprint(t) != kmc::model::fingerprint(s));
                  }));
  CHECK(rc::check("moving a value between adjacent vectors changes the fingerprint",
                  [](std::vector<std::int64_t> a, std::int64_t x) {
                    const Sample left{a, {x}, 0};
                    auto longer = a;
                    longer.push_back(x);
                    const Sample right{longer, {}, 0};
                    RC_ASSERT(kmc::model::fingerprint(left) != kmc::model::fingerprint(right));
                  }));
}
