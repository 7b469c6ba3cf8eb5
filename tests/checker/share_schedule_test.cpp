// How a round is cut into shares (checker/share_schedule.hpp): every
// position in exactly one share, in order, no share across a chunk boundary,
// and shares that shrink towards the round's end.
#include "checker/share_schedule.hpp"

#include <rapidcheck.h>

#include <catch2/catch.hpp>

using kmc::checker::guided_schedule;

TEST_CASE("share schedule: one share per chunk for one worker", "[checker][schedule]") {
  const auto s = guided_schedule(20'000, 8'192, 1, 128);
  CHECK(s.begin == std::vector<std::uint32_t>{0, 8'192, 16'384, 20'000});
  CHECK(s.first == std::vector<std::uint32_t>{0, 1, 2, 3});
}

TEST_CASE("share schedule: two workers, one chunk, guided", "[checker][schedule]") {
  const auto s = guided_schedule(8'192, 8'192, 2, 128);
  // Each share is a quarter of what is left: 2048, 1536, 1152, 864, ... down to 128.
  REQUIRE(s.shares() >= 8);
  CHECK(s.begin[0] == 0);
  CHECK(s.begin[1] == 2'048);
  CHECK(s.begin[2] == 2'048 + 1'536);
  CHECK(s.begin[3] == 2'048 + 1'536 + 1'152);
  CHECK(s.begin.back() == 8'192);
  CHECK(s.begin[s.shares()] - s.begin[s.shares() - 1] <= 128);  // the tail is small
  CHECK(s.first == std::vector<std::uint32_t>{0, static_cast<std::uint32_t>(s.shares())});
}

TEST_CASE("share schedule: no positions, no shares", "[checker][schedule]") {
  const auto s = guided_schedule(0, 8'192, 4, 128);
  CHECK(s.shares() == 0);
  CHECK(s.first == std::vector<std::uint32_t>{0});
}

TEST_CASE("share schedule: a partition of the round, chunk by chunk",
          "[checker][schedule][rapidcheck]") {
  CHECK(rc::check("shares cover every position once and never cross a chunk", [] {
    const auto positions = *rc::gen::inRange<std::size_t>(0, 70'000);
    const auto chunk = *rc::gen::inRange<std::size_t>(1, 9'000);
    const auto workers = *rc::gen::inRange<std::size_t>(1, 33);
    const auto min_share = *rc::gen::inRange<std::size_t>(1, 300);
    const auto s = guided_schedule(positions, chunk, workers, min_share);
    RC_ASSERT(s.begin.front() == 0u);
    RC_ASSERT(s.begin.back() == positions);
    const std::size_t chunks = (positions + chunk - 1) / chunk;
    RC_ASSERT(s.first.size() == chunks + 1);
    RC_ASSERT(s.first.back() == s.shares());
    for (std::size_t k = 0; k < chunks; ++k) {
      RC_ASSERT(s.first[k] < s.first[k + 1]);  // every chunk has a share
      RC_ASSERT(s.begin[s.first[k]] == k * chunk);
      for (std::uint32_t b = s.first[k]; b < s.first[k + 1]; ++b) {
        const std::size_t from = s.begin[b], to = s.begin[b + 1];
        RC_ASSERT(from < to);
        RC_ASSERT(from / chunk == (to - 1) / chunk);  // inside chunk k
        // At least min_share, unless it ends its chunk; never more than the guided part.
        const bool chunk_end = to == std::min(positions, (k + 1) * chunk);
        RC_ASSERT(to - from >= min_share || chunk_end);
        if (workers > 1)
          RC_ASSERT(to - from <= std::max(min_share, (positions - from) / (2 * workers)));
      }
    }
  }));
}
