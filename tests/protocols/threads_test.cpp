// The search's answers do not depend on its thread count, with the explored
// graph kept (stuck detection, liveness): the same verdict, counts, explored
// graph size and shortest counterexample. The fleets are the grown GPU
// Hunter of bench/check_scaling, big enough for many chunks of 8192 states.
#include <catch2/catch.hpp>
#include <optional>

#include "checker/bfs.hpp"
#include "invariants/multikueue_registry.hpp"
#include "mk_fixtures.hpp"
#include "model/checked.hpp"
#include "protocols/multikueue.hpp"

using kmc::checker::CheckOptions;
using kmc::checker::Fairness;
using kmc::checker::Result;
using kmc::protocols::MultiKueue;

namespace {

using mk_fixtures::grown;

Result check(const MultiKueue& p, int threads, bool liveness) {
  kmc::model::Checked<MultiKueue> checked{p, kmc::invariants::multikueue_properties(p)};
  CheckOptions o;
  o.threads = threads;
  o.properties = kmc::invariants::default_properties(p);
  if (liveness) {
    o.properties.push_back("eventually-runs");
    for (int f : p.default_fairness()) o.fairness.push_back(static_cast<Fairness>(f));
  }
  return kmc::checker::Bfs(checked, o).run();
}

void same(const Result& a, const Result& b) {
  CHECK(a.verdict == b.verdict);
  CHECK(a.stats.states == b.stats.states);
  CHECK(a.stats.transitions == b.stats.transitions);
  CHECK(a.stats.depth == b.stats.depth);
  REQUIRE(a.violation.has_value() == b.violation.has_value());
  if (!a.violation) return;
  CHECK(a.violation->property == b.violation->property);
  CHECK(a.violation->subject == b.violation->subject);
  CHECK(a.violation->path.choices == b.violation->path.choices);
  CHECK(a.violation->loop == b.violation->loop);
}

}  // namespace

// Levels of more than 8192 states: 8 and 16 threads expand several chunks as
// one round (checker/bfs_level.hpp), and merge them one by one.
TEST_CASE("multikueue: answers are the same for 8 and 16 threads, rounds of chunks, graph kept",
          "[protocols]") {
  const MultiKueue p(grown(4, 2));
  const Result one = check(p, 1, false);
  CHECK(one.stats.states == 309'403);  // 260,611 before workers queued copies by creation
  for (int threads : {8, 16}) {
    INFO(threads << " threads");
    same(one, check(p, threads, false));
  }
}

TEST_CASE("multikueue: answers are the same for 1 to 4 threads, graph kept", "[protocols]") {
  for (auto [workers, jobs, liveness] :
       {std::tuple{3, 2, false}, std::tuple{2, 3, false}, std::tuple{3, 2, true}}) {
    INFO(workers << " workers, " << jobs << " jobs, liveness " << liveness);
    const MultiKueue p(grown(workers, jobs));
    const Result one = check(p, 1, liveness);
    CHECK(one.stats.states > 8192);  // several chunks
    for (int threads : {2, 3, 4}) {
      INFO(threads << " threads");
      same(one, check(p, threads, liveness));
    }
  }
}
