// The search's memory bound, its stop request, and allocation failures
// (issue 16, item 4): each ends Incomplete naming why, with the figures so
// far and the depth explored, never Verified and never an abort.
#include <catch2/catch.hpp>
#include <new>

#include "checker/bfs.hpp"
#include "checker/fixtures.hpp"
#include "checker/memory.hpp"

using kmc::checker::Bfs;
using kmc::checker::CheckOptions;
using kmc::checker::Verdict;

namespace {

// Counters whose successors run out of memory once they add up to `fail_at`: every state below
// that sum is reached, none at it. The throw is in next(), so it happens in whichever worker
// expands the state.
struct ExhaustingCounters : fixtures::Counters {
  std::int64_t fail_at = 4;
  State next(State s, const Action& a) const {
    s = Counters::next(std::move(s), a);
    std::int64_t sum = 0;
    for (auto x : s.c) sum += x;
    if (sum >= fail_at) throw std::bad_alloc();
    return s;
  }
};

// A trap the stuck analysis finds (tests/checker/bfs_test.cpp), with Run out of memory: the
// graph is partial then, so nothing may be concluded from it.
struct ExhaustingTrap : fixtures::Trap {
  State next(State s, const Action& a) const {
    if (a.kind == Run) throw std::bad_alloc();
    return Trap::next(s, a);
  }
};

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

TEST_CASE("an allocation failure in the search ends Incomplete with the figures so far",
          "[checker][memory]") {
  for (int threads : {1, 4}) {
    INFO("threads " << threads);
    ExhaustingCounters p;
    p.k = 2, p.limit = 3, p.fail_at = 4;
    CheckOptions o;
    o.threads = threads;
    const auto r = Bfs(p, o).run();
    CHECK(r.verdict == Verdict::Incomplete);
    CHECK(
        starts_with(r.incomplete_reason, "an allocation failure (out of memory at peak resident "));
    CHECK(r.stats.states == 10);  // sums 0..3: 1 + 2 + 3 + 4
    CHECK(r.stats.depth == 3);
    CHECK(r.explored_depth == 3);
    CHECK(r.stats.peak_rss_bytes > 0);
    for (const auto& pr : r.properties) CHECK(pr.verdict == Verdict::Incomplete);
  }
  // Bigger levels than one worker's share, so the failure is in several workers at once.
  ExhaustingCounters wide;
  wide.k = 4, wide.limit = 9, wide.fail_at = 12;
  CheckOptions o;
  o.threads = 4;
  const auto r = Bfs(wide, o).run();
  CHECK(r.verdict == Verdict::Incomplete);
  CHECK(r.explored_depth == 11);
}

TEST_CASE("an allocation failure leaves the stuck analysis out: a partial graph proves nothing",
          "[checker][memory]") {
  const auto whole = Bfs(fixtures::Trap{}, CheckOptions{}).run();
  REQUIRE(whole.verdict == Verdict::Violated);  // the trap, with Run
  const auto r = Bfs(ExhaustingTrap{}, CheckOptions{}).run();
  CHECK(r.verdict == Verdict::Incomplete);
  CHECK(!r.violation);
  CHECK(starts_with(r.incomplete_reason, "an allocation failure"));
}

TEST_CASE("the memory bound ends Incomplete naming it; a bound above the need is no bound",
          "[checker][memory]") {
  fixtures::Counters p{4, 6, -1};  // 2401 states
  CheckOptions tiny;
  tiny.max_memory_bytes = 1;  // reached at the first look, before level 0 is expanded
  const auto r = Bfs(p, tiny).run();
  CHECK(r.verdict == Verdict::Incomplete);
  CHECK(r.incomplete_reason == "memory bound 1 B");
  CHECK(r.stats.states == 1);
  CHECK(r.explored_depth == 0);

  CheckOptions roomy;
  roomy.max_memory_bytes = std::size_t{1} << 50;
  const auto v = Bfs(p, roomy).run();
  CHECK(v.verdict == Verdict::Verified);
  CHECK(v.stats.states == 2401);
}

TEST_CASE("a stop request ends the search at the next chunk, with its reason", "[checker]") {
  fixtures::Counters p{4, 6, -1};  // each level is one chunk, so one question per level
  int asked = 0;
  CheckOptions o;
  o.stop = [&asked] { return ++asked >= 2 ? std::string("SIGINT") : std::string(); };
  const auto r = Bfs(p, o).run();
  CHECK(r.verdict == Verdict::Incomplete);
  CHECK(r.incomplete_reason == "SIGINT");
  CHECK(asked == 2);
  CHECK(r.stats.states == 5);  // level 0 expanded: the root and its 4 successors
  CHECK(r.explored_depth == 1);
}

TEST_CASE("explored depth: what an Incomplete search proved", "[checker]") {
  fixtures::Counters p{2, 3, -1};
  CheckOptions depth;
  depth.max_depth = 2;
  CHECK(Bfs(p, depth).run().explored_depth == 2);
  CheckOptions none;
  none.max_states = 0;
  CHECK(Bfs(p, none).run().explored_depth == -1);  // not even the initial state
  CheckOptions five;
  five.max_states = 5;  // depths 0 and 1 (3 states) whole, 2 of depth 2's 3
  CHECK(Bfs(p, five).run().explored_depth == 1);
}

TEST_CASE("sizes: as people write them, and as reports print them", "[checker][memory]") {
  using kmc::checker::format_size;
  using kmc::checker::parse_size;
  std::string why;
  const std::size_t gib = std::size_t{1} << 30, mib = std::size_t{1} << 20;
  CHECK(parse_size("8G", why) == 8 * gib);
  CHECK(parse_size("512M", why) == 512 * mib);
  CHECK(parse_size("2GiB", why) == 2 * gib);
  CHECK(parse_size("2gi", why) == 2 * gib);
  CHECK(parse_size("1.5g", why) == 3 * gib / 2);
  CHECK(parse_size("300000000", why) == 300000000);
  CHECK(parse_size("100B", why) == 100);
  CHECK(parse_size("1k", why) == 1024);
  CHECK(parse_size("10KB", why) == 10000);
  CHECK(parse_size("2GB", why) == 2000000000);
  CHECK(parse_size("1T", why) == std::size_t{1} << 40);
  for (const char* bad : {"", "G", "abc", "-5", "0", "0.0001", "1X", "1.5.5", "8 G", "1e9",
                          "99999999999999999999", "9000000T", "nan", "inf"}) {
    INFO(bad);
    why.clear();
    CHECK(!parse_size(bad, why));
    CHECK(!why.empty());
  }
  CHECK(format_size(2 * gib) == "2.0 GiB");
  CHECK(format_size(512 * mib) == "512.0 MiB");
  CHECK(format_size(1536) == "1.5 KiB");
  CHECK(format_size(100) == "100 B");
}

TEST_CASE("the default memory bound is a stated share of the machine's memory",
          "[checker][memory]") {
  const std::size_t physical = kmc::checker::physical_memory_bytes();
  REQUIRE(physical > 0);  // Linux: /proc/meminfo
  CHECK(kmc::checker::default_memory_bound() ==
        physical / 100 * kmc::checker::kDefaultMemoryPercent);
  CHECK(kmc::checker::resident_bytes() < physical);
}
