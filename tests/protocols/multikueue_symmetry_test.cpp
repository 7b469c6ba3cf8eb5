// Symmetry reduction on MultiKueue (protocols/multikueue_symmetry.cpp):
// identical workers are interchangeable under AllAtOnce dispatch. The reduced
// search keeps one state per orbit (within 2x of the orbits, counted by brute
// force), gives the verdicts and shortest lengths of the unreduced search on
// every variant, including the deliberately broken ones, and its traces are
// the protocol's own: an independent re-check (checker/confirm.hpp) confirms them.
#include <rapidcheck.h>

#include <catch2/catch.hpp>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include "checker/bfs.hpp"
#include "checker/confirm.hpp"
#include "invariants/multikueue_registry.hpp"
#include "mk_fixtures.hpp"
#include "model/checked.hpp"
#include "protocols/multikueue.hpp"
#include "reachable.hpp"

using kmc::checker::Bfs;
using kmc::checker::CheckOptions;
using kmc::checker::Result;
using kmc::checker::Verdict;
using kmc::protocols::MultiKueue;

namespace {

Result check(const MultiKueue& p, bool symmetry, CheckOptions opts = {}) {
  kmc::model::Checked<MultiKueue> checked{p, kmc::invariants::multikueue_properties(p)};
  if (opts.properties.empty()) opts.properties = kmc::invariants::default_properties(p);
  opts.symmetry = symmetry;
  return Bfs(checked, std::move(opts)).run();
}

// Workers w and v swapped everywhere: their cells, their ClusterQueues' usage
// (worker w's CQ is cqs[w + 1] in mk_fixtures::fleet) and the job's cluster.
MultiKueue::State swap_workers(const MultiKueue& p, MultiKueue::State s, int w, int v) {
  const int J = p.params().J(), F = p.params().flavors_max, R = p.params().R();
  const int SR = p.params().slots_max * R;
  for (int j = 0; j < J; ++j) {
    for (auto* f :
         {&s.nominated, &s.remote, &s.remote_flavor, &s.prov, &s.attempts, &s.remote_rank})
      std::swap((*f)[p.jw(j, w)], (*f)[p.jw(j, v)]);
    if (s.cluster[j] == w)
      s.cluster[j] = v;
    else if (s.cluster[j] == v)
      s.cluster[j] = w;
  }
  for (int k = 0; k < SR; ++k) {
    std::swap(s.capacity[w * SR + k], s.capacity[v * SR + k]);
    std::swap(s.snapshot[w * SR + k], s.snapshot[v * SR + k]);
  }
  std::swap(s.staleness[w], s.staleness[v]);
  for (int k = 0; k < F * R; ++k)
    std::swap(s.usage[(w + 1) * F * R + k], s.usage[(v + 1) * F * R + k]);
  return s;
}

MultiKueue::State canonical(const MultiKueue& p, MultiKueue::State s) {
  p.canonicalize(s);
  return s;
}

}  // namespace

// The orbit of s under the 3! worker permutations, named by its least fingerprint.
std::uint64_t orbit(const MultiKueue& p, const MultiKueue::State& s) {
  std::uint64_t least = p.fingerprint(s);
  for (const auto& swaps : std::vector<std::vector<std::pair<int, int>>>{
           {{0, 1}}, {{0, 2}}, {{1, 2}}, {{0, 1}, {1, 2}}, {{1, 2}, {0, 1}}}) {
    auto t = s;
    for (auto [w, v] : swaps) t = swap_workers(p, t, w, v);
    least = std::min(least, p.fingerprint(t));
  }
  return least;
}

TEST_CASE("multikueue symmetry: identical workers, one state per orbit", "[protocols][symmetry]") {
  const MultiKueue p(mk_fixtures::fleet(3, 2, 4, 24));
  REQUIRE(p.symmetric());
  const auto all = reachable_states(p);
  std::set<std::uint64_t> orbits, representatives;
  std::size_t exact = 0;
  for (const auto& s : all) {
    const auto c = canonical(p, s);
    CHECK(canonical(p, c) == c);        // idempotent
    CHECK(orbit(p, c) == orbit(p, s));  // in the orbit
    bool same = true;  // the same representative for every transposition of two workers
    for (int w = 0; w < 3; ++w)
      for (int v = w + 1; v < 3; ++v) same = same && canonical(p, swap_workers(p, s, w, v)) == c;
    exact += same;
    orbits.insert(orbit(p, s));
    representatives.insert(p.fingerprint(c));
  }
  // The reduced graph, by hand: closed under s -> canonical(next(s, a)). Every
  // reachable orbit has a state in it (what soundness needs).
  std::set<std::uint64_t> seen, seen_orbits;
  std::deque<MultiKueue::State> work{canonical(p, p.init_states().front())};
  seen.insert(p.fingerprint(work.front()));
  std::vector<MultiKueue::Action> actions;
  while (!work.empty()) {
    auto s = std::move(work.front());
    work.pop_front();
    seen_orbits.insert(orbit(p, s));
    actions.clear();
    p.actions(s, actions);
    for (const auto& a : actions) {
      auto t = canonical(p, p.next(s, a));
      if (seen.insert(p.fingerprint(t)).second) work.push_back(std::move(t));
    }
  }
  CHECK(seen_orbits == orbits);
  const auto full = check(p, false), reduced = check(p, true);
  CHECK(full.stats.states == all.size());
  CHECK(reduced.stats.states == seen.size());
  CHECK(reduced.verdict == full.verdict);
  // Issue 13 asks for within 2x of the true number of orbits. Sorting by
  // cells, ties broken by what names each worker, is exact here: one
  // representative per orbit.
  CHECK(reduced.stats.states <= 2 * orbits.size());
  CHECK(exact == all.size());
  // Pinned: 3 workers give at most 3! = 6 states per orbit; orbits of states
  // that some worker swap leaves unchanged are smaller.
  // (18,361 and 3,510 while workers queued copies in the manager's order, not their creation's.)
  CHECK(full.stats.states == 20312);
  CHECK(orbits.size() == 3861);
  CHECK(reduced.stats.states == 3861);
  CHECK(reduced.reductions ==
        std::vector<std::string>{
            "no symmetry over jobs: Kueue's queue order (priority, then creation time) decides "
            "which of two pending jobs a ClusterQueue admits first",
            "symmetry over 3 interchangeable workers (us-central1, asia-southeast1, "
            "europe-west4)"});
}

TEST_CASE("multikueue symmetry: verdicts, properties and shortest lengths agree, traces confirm",
          "[protocols][symmetry]") {
  struct Row {
    const char* name;
    void (*edit)(kmc::protocols::MkParams&);
  };
  using kmc::protocols::MkParams;
  const Row rows[] = {
      {"AllAtOnce, capacity for all", [](MkParams&) {}},
      {"broken: a worker ignores its quota",
       [](MkParams& q) { q.broken_worker_ignores_quota = true; }},
      {"broken: losers kept", [](MkParams& q) { q.broken_keep_losers = true; }},
      {"accept-then-hang everywhere",
       [](MkParams& q) { q.answer.assign(q.W(), kmc::model::AutoscalerAnswer::AcceptsThenHangs); }},
      {"select on QuotaReserved (before #8592)", [](MkParams& q) { q.wait_for_admitted = false; }},
      {"spot reclaims", [](MkParams& q) { q.spot_reclaims = 1; }},
      {"capacity losses, autoscaler fails",
       [](MkParams& q) {
         q.capacity_losses = 1;
         q.answer.assign(q.W(), kmc::model::AutoscalerAnswer::Fails);
       }},
  };
  for (const auto& row : rows) {
    INFO(row.name);
    auto params = mk_fixtures::fleet(3, 2, 4, 24);
    row.edit(params);
    const MultiKueue p(params);
    REQUIRE(p.symmetric());
    const auto full = check(p, false), reduced = check(p, true);
    CHECK(reduced.stats.states < full.stats.states);
    REQUIRE(reduced.verdict == full.verdict);
    REQUIRE(reduced.properties.size() == full.properties.size());
    for (std::size_t i = 0; i < full.properties.size(); ++i)
      CHECK(reduced.properties[i].verdict == full.properties[i].verdict);
    REQUIRE(reduced.violation.has_value() == full.violation.has_value());
    if (!full.violation) continue;
    CHECK(reduced.violation->property == full.violation->property);
    CHECK(reduced.violation->path.choices.size() == full.violation->path.choices.size());
    const auto props = kmc::invariants::multikueue_properties(p);
    for (const auto& prop : props)
      if (prop.name() == reduced.violation->property) {
        const auto confirmed =
            kmc::checker::confirm_violation(p, prop, reduced.violation->subject,
                                            kmc::checker::FairnessPlan{}, reduced.violation->path);
        CHECK(confirmed.has_value());
      }
  }
}

TEST_CASE("multikueue symmetry: refused where it is not sound, with the reason",
          "[protocols][symmetry]") {
  SECTION("a pinning dispatcher reads the dispatch order") {
    const MultiKueue p(mk_fixtures::gpu_hunter());
    CHECK_FALSE(p.symmetric());
    CHECK(check(p, true).reductions ==
          std::vector<std::string>{"no symmetry over workers: a pinning dispatcher takes the first "
                                   "worker in the MultiKueueConfig's order that its view shows "
                                   "room on"});
  }
  SECTION("per-instance fairness names one worker's action") {
    const MultiKueue p(mk_fixtures::fleet(2, 1, 8, 16));
    CheckOptions o;
    o.properties = {"eventually-runs"};
    o.per_instance = true;
    const auto reduced = check(p, true, o), full = check(p, false, o);
    CHECK(reduced.stats.states == full.stats.states);
    REQUIRE(reduced.reductions.size() == 1);
    CHECK(reduced.reductions[0].rfind("symmetry not used: fairness is per action instance", 0) ==
          0);
  }
}

TEST_CASE("multikueue symmetry: random small fleets give the same verdicts with and without",
          "[protocols][symmetry]") {
  using kmc::model::AutoscalerAnswer;
  using kmc::protocols::Dispatcher;
  using kmc::protocols::ProvisioningClass;
  const bool ok = rc::check("verdicts, properties and shortest lengths agree", [] {
    const int workers = *rc::gen::inRange(2, 4), jobs = *rc::gen::inRange(1, 3);
    const std::int64_t gpus = *rc::gen::element<std::int64_t>(2, 4, 8);
    auto p = mk_fixtures::fleet(workers, jobs, gpus, *rc::gen::element<std::int64_t>(8, 16, 32));
    // Identical workers, but what they are alike in is drawn: capacity, quota, class, answer.
    const std::int64_t capacity = *rc::gen::element<std::int64_t>(0, 4, 8);
    const std::int64_t quota = *rc::gen::element<std::int64_t>(4, 8);
    const auto answer =
        *rc::gen::element(AutoscalerAnswer::Provisions, AutoscalerAnswer::Fails,
                          AutoscalerAnswer::AcceptsThenHangs, AutoscalerAnswer::Any);
    const bool check_capacity = *rc::gen::arbitrary<bool>();
    p.capacity0.assign(workers, capacity);
    p.snapshot0 = p.capacity0;
    p.answer.assign(workers, answer);
    for (auto& q : p.cqs)
      if (q.cluster >= 0) {
        q.nominal = {quota};
        if (check_capacity) q.provisioning_class = ProvisioningClass::CheckCapacity;
      }
    if (*rc::gen::arbitrary<bool>()) p.dispatcher = Dispatcher::CapacitySnapshot, p.pin = false;
    p.spot_reclaims = *rc::gen::inRange(0, 2);
    p.capacity_losses = *rc::gen::inRange(0, 2);
    p.provisioning_timeout = *rc::gen::arbitrary<bool>();
    p.wait_for_admitted = *rc::gen::arbitrary<bool>();
    p.broken_keep_losers = *rc::gen::weightedElement<bool>({{9, false}, {1, true}});
    const MultiKueue m(p);
    RC_ASSERT(m.symmetric());
    CheckOptions o;
    o.max_states = 300'000;
    const auto full = check(m, false, o), reduced = check(m, true, o);
    RC_ASSERT(reduced.stats.states <= full.stats.states);
    RC_ASSERT(reduced.properties.size() == full.properties.size());
    // Decided verdicts never conflict, even where a bound stopped one search.
    for (std::size_t i = 0; i < full.properties.size(); ++i) {
      const auto a = reduced.properties[i].verdict, b = full.properties[i].verdict;
      RC_ASSERT((a == b || a == Verdict::Incomplete || b == Verdict::Incomplete));
    }
    // Where both searched to the end (a stuck job is reported past a bound, from the part of
    // the graph explored), everything agrees.
    RC_PRE(full.stats.states < o.max_states && reduced.stats.states < o.max_states);
    RC_PRE(full.verdict != Verdict::Incomplete && reduced.verdict != Verdict::Incomplete);
    RC_ASSERT(reduced.verdict == full.verdict);
    for (std::size_t i = 0; i < full.properties.size(); ++i)
      RC_ASSERT(reduced.properties[i].verdict == full.properties[i].verdict);
    RC_ASSERT(reduced.violation.has_value() == full.violation.has_value());
    if (!full.violation) return;
    RC_ASSERT(reduced.violation->property == full.violation->property);
    RC_ASSERT(reduced.violation->shape == full.violation->shape);
    // A "sometimes" never witnessed has no path: only the whole search decides it.
    if (full.violation->shape == kmc::checker::Shape::Unwitnessed) return;
    RC_ASSERT(reduced.violation->path.choices.size() == full.violation->path.choices.size());
    for (const auto& prop : kmc::invariants::multikueue_properties(m))
      if (prop.name() == reduced.violation->property)
        RC_ASSERT(kmc::checker::confirm_violation(m, prop, reduced.violation->subject,
                                                  kmc::checker::FairnessPlan{},
                                                  reduced.violation->path)
                      .has_value());
  });
  CHECK(ok);
}
