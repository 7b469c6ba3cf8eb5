#include "checker/bfs.hpp"

#include <catch2/catch.hpp>

#include "checker/fixtures.hpp"

using kmc::checker::Bfs;
using kmc::checker::CheckOptions;
using kmc::checker::Verdict;

TEST_CASE("counters: exact state and transition counts", "[checker][golden]") {
  fixtures::Counters p{2, 3, -1};
  auto r = Bfs(p, CheckOptions{}).run();
  CHECK(r.verdict == Verdict::Verified);
  CHECK(r.stats.states == 16);       // (3+1)^2
  CHECK(r.stats.transitions == 24);  // 2 counters x 3 increments x 4 values of the other
  CHECK(r.stats.depth == 6);

  fixtures::Counters q{3, 2, -1};
  auto r3 = Bfs(q, CheckOptions{}).run();
  CHECK(r3.stats.states == 27);
  CHECK(r3.stats.transitions == 54);
}

TEST_CASE("an Always violation comes with a shortest path that replays to it", "[checker]") {
  fixtures::Counters p{3, 5, 4};
  auto r = Bfs(p, CheckOptions{}).run();
  REQUIRE(r.verdict == Verdict::Violated);
  REQUIRE(r.violation);
  CHECK(r.violation->property == "sum-is-not-bad");
  CHECK(r.violation->path.choices.size() == 4);  // BFS: the sum is the depth
  auto states = Bfs<fixtures::Counters>::replay(p, r.violation->path);
  std::int64_t sum = 0;
  for (auto x : states.back().c) sum += x;
  CHECK(sum == 4);
}

TEST_CASE("the verdict, counts and counterexample do not depend on the thread count", "[checker]") {
  fixtures::Counters p{4, 6, 17};
  CheckOptions one;
  auto base = Bfs(p, one).run();
  for (int threads : {2, 3, 4}) {
    CheckOptions many;
    many.threads = threads;
    auto r = Bfs(p, many).run();
    CHECK(r.verdict == base.verdict);
    CHECK(r.stats.states == base.stats.states);
    CHECK(r.stats.transitions == base.stats.transitions);
    REQUIRE(r.violation);
    CHECK(r.violation->path.choices == base.violation->path.choices);
  }
  fixtures::Counters clean{4, 6, -1};
  CheckOptions four;
  four.threads = 4;
  CHECK(Bfs(clean, four).run().stats.states == 2401);  // 7^4
}

// Levels of ~18,600 states: several chunks of 8192, which 4 and more threads
// expand together as one round and merge one by one. The violation (sum 22)
// first appears in the first chunk of level 21: the search stops after that
// chunk, whatever the round expanded beyond it.
TEST_CASE("rounds of chunks: counts, bounds and counterexample do not depend on the thread count",
          "[checker]") {
  fixtures::Counters p{6, 7, 22};  // 8^6 = 262,144 states
  fixtures::Counters clean{6, 7, -1};
  CheckOptions cut;
  cut.max_states = 100'003;  // inside a level, inside a chunk
  const auto base = Bfs(p, CheckOptions{}).run();
  const auto base_cut = Bfs(clean, cut).run();
  REQUIRE(base.violation);
  CHECK(base.stats.states < 262'144);
  CHECK(base_cut.stats.states == 100'003);
  for (int threads : {2, 4, 8, 16}) {
    INFO(threads << " threads");
    CheckOptions many;
    many.threads = threads;
    const auto r = Bfs(p, many).run();
    CHECK(r.stats.states == base.stats.states);
    CHECK(r.stats.transitions == base.stats.transitions);
    REQUIRE(r.violation);
    CHECK(r.violation->path.choices == base.violation->path.choices);
    cut.threads = threads;
    const auto c = Bfs(clean, cut).run();
    CHECK(c.verdict == kmc::checker::Verdict::Incomplete);
    CHECK(c.stats.states == base_cut.stats.states);
    CHECK(c.stats.transitions == base_cut.stats.transitions);
    CHECK(c.stats.depth == base_cut.stats.depth);
  }
  CheckOptions sixteen;
  sixteen.threads = 16;
  CHECK(Bfs(clean, sixteen).run().stats.states == 262'144);
}

TEST_CASE("bounds end in Incomplete, never Verified", "[checker]") {
  fixtures::Counters p{2, 3, -1};
  CheckOptions depth;
  depth.max_depth = 2;
  auto r = Bfs(p, depth).run();
  CHECK(r.verdict == Verdict::Incomplete);
  CHECK(r.incomplete_reason == "max-depth 2");
  CHECK(r.stats.states == 6);  // depths 0..2: 1 + 2 + 3

  CheckOptions states;
  states.max_states = 5;
  auto s = Bfs(p, states).run();
  CHECK(s.verdict == Verdict::Incomplete);
  CHECK(s.incomplete_reason == "max-states 5");

  CheckOptions time;
  time.time_limit_s = -1;
  CHECK(Bfs(p, time).run().verdict == Verdict::Incomplete);
}

TEST_CASE("--max-states is exact: at most N stored, and N = the state space is Verified",
          "[checker]") {
  fixtures::Counters p{2, 3, -1};  // 16 states
  for (std::uint64_t n : {0, 1, 5, 15}) {
    CheckOptions o;
    o.max_states = n;
    const auto r = Bfs(p, o).run();
    CHECK(r.stats.states == n);
    CHECK(r.verdict == Verdict::Incomplete);
  }
  CheckOptions all;
  all.max_states = 16;
  const auto r = Bfs(p, all).run();
  CHECK(r.stats.states == 16);
  CHECK(r.verdict == Verdict::Verified);
}

TEST_CASE("a depth bound at the last level is not a bound", "[checker]") {
  fixtures::Counters p{2, 3, -1};
  CheckOptions depth;
  depth.max_depth = 6;
  CHECK(Bfs(p, depth).run().verdict == Verdict::Verified);
}

TEST_CASE("a Sometimes property that never holds fails the check", "[checker]") {
  fixtures::Counters p{2, 3, -1};
  CheckOptions only_top;
  only_top.max_depth = 5;  // the all-at-limit state is at depth 6
  auto r = Bfs(p, only_top).run();
  CHECK(r.verdict == Verdict::Incomplete);  // unknown, not violated: the bound hid it
  CheckOptions opts;
  opts.properties = {"all-at-limit"};
  CHECK(Bfs(fixtures::Counters{2, 3, -1}, opts).run().verdict == Verdict::Verified);
  fixtures::Counters unreachable{2, 3, -1, 4};  // counters stop at 3
  auto v = Bfs(unreachable, opts).run();
  CHECK(v.verdict == Verdict::Violated);
  REQUIRE(v.violation);
  CHECK(v.violation->property == "all-at-limit");
  CHECK(v.violation->kind == kmc::model::PropertyKind::Sometimes);
}

TEST_CASE("stuck: a trap that only unrelated actions can leave is found, with its shortest path",
          "[checker]") {
  fixtures::Trap p;
  auto r = Bfs(p, CheckOptions{}).run();
  REQUIRE(r.verdict == Verdict::Violated);
  CHECK(r.violation->property == "job-not-stuck");
  CHECK(r.violation->path.choices == std::vector<std::uint32_t>{0});  // ToTrap
  CHECK(r.violation->detail == "job is in 1");
  CHECK(r.stats.states == 12);  // job 0..3 x tick 0..2
}

TEST_CASE("stuck: a trap with an escape is not stuck", "[checker]") {
  fixtures::Trap p;
  p.trap_has_escape = true;
  auto r = Bfs(p, CheckOptions{}).run();
  CHECK(r.verdict == Verdict::Verified);
  for (auto& pr : r.properties) CHECK(pr.verdict == Verdict::Verified);
}

TEST_CASE("stuck under a bound is never claimed from unexplored futures", "[checker]") {
  fixtures::Trap p;
  p.trap_has_escape = true;
  CheckOptions opts;
  opts.max_depth = 1;  // the escape is past the bound
  auto r = Bfs(p, opts).run();
  CHECK(r.verdict == Verdict::Incomplete);
}
