// An allocation that fails while a violation is being shrunk (issue 16,
// item 4) does not lose the violation: the pipeline keeps the search's own,
// with the checker's shortest-by-BFS trace and its token, and warns that it
// is unshrunk. The toy protocol of tests/counterexamples, with one failure
// injected at the first step taken after the search.
#include <catch2/catch.hpp>
#include <memory>
#include <new>

#include "counterexamples/pipeline_core.hpp"
#include "counterexamples/toy_protocol.hpp"

using kmc::checker::Verdict;

namespace {

// The toy, whose step number `fail_at` (counted from 1) throws std::bad_alloc, once.
struct FailsOnce : toy::Instance {
  using toy::Instance::Instance;
  std::shared_ptr<std::uint64_t> steps = std::make_shared<std::uint64_t>(0);
  std::uint64_t fail_at = 0;

  void step() const {
    if (++*steps == fail_at) throw std::bad_alloc();
  }
  State next(const State& s, const Action& a) const {
    step();
    return toy::Instance::next(s, a);
  }
  void next_into(const State& s, const Action& a, State& out) const {
    step();
    toy::Instance::next_into(s, a, out);
  }
};

kmc::model::Scenario two_jobs_one_node() {
  kmc::model::Scenario sc;
  sc.dir = "toy-fleet";
  for (const char* name : {"a", "b"}) {
    kmc::model::Workload wl;
    wl.meta.name = name;
    sc.manager.workloads.push_back(wl);
  }
  sc.fleet.workers.push_back(kmc::model::WorkerSpec{"n1", "", {}, {}, {}, {}});
  return sc;
}

}  // namespace

TEST_CASE("out of memory while shrinking: the violation stands, unshrunk, with a warning",
          "[cli][memory]") {
  const auto sc = two_jobs_one_node();
  auto params = toy::Spec::compile(sc);
  params.broken = true;  // two jobs on one node: one-job-per-node is violated
  FailsOnce p(params);
  kmc::cx::CheckRequest req;
  req.properties = {"one-job-per-node"};
  std::vector<std::string> warnings;
  req.warn = [&](const kmc::model::Warnings& ws) {
    for (const auto& d : ws) warnings.push_back(d.field);
  };
  kmc::cx::Hooks hooks;

  // A first run counts the search's steps: one per transition.
  const auto whole = kmc::cx::check_instance(p, toy::properties(p), sc, req, hooks);
  REQUIRE(whole.result.verdict == Verdict::Violated);
  REQUIRE(whole.shrink);
  const std::uint64_t search_steps = whole.result.stats.transitions;

  *p.steps = 0;
  p.fail_at = search_steps + 1;  // the shrinker's first replay step
  const auto o = kmc::cx::check_instance(p, toy::properties(p), sc, req, hooks);
  CHECK(*p.steps > p.fail_at);  // it failed there, and the trace was replayed after
  CHECK(o.result.verdict == Verdict::Violated);
  REQUIRE(o.result.violation);
  CHECK(o.result.violation->property == "one-job-per-node");
  CHECK(!o.shrink);
  REQUIRE(o.trace);
  CHECK(o.trace->steps.size() == o.result.violation->path.choices.size() + 1);
  CHECK(!o.token.empty());
  CHECK(warnings == std::vector<std::string>{"shrink"});
}
