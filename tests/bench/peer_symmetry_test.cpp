// Symmetry reduction (model/symmetry.hpp) on the SPIN peer, whose jobs are
// interchangeable: the reduced search stores exactly one state per reachable
// orbit (counted here by brute force, independently of checker::Bfs), gives
// the verdicts of the unreduced search, and its traces are the protocol's own.
#include <fmt/format.h>
#include <rapidcheck.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <deque>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "checker/bfs.hpp"
#include "checker/confirm.hpp"
#include "checker/replay.hpp"
#include "model/checked.hpp"
#include "reachable.hpp"
#include "spin_peer/peer_protocol.hpp"

using kmc::checker::Verdict;
using spin_peer::Peer;
using spin_peer::PeerState;
using spin_peer::Property;

namespace {

kmc::checker::Result check(const Peer& peer, bool symmetry, bool deadlock = true, int threads = 1) {
  kmc::checker::CheckOptions o;
  o.threads = threads;
  o.max_states = 2'000'000;
  o.deadlock = deadlock;
  o.symmetry = symmetry;
  return kmc::checker::Bfs(peer, o).run();
}

// Job j of s moved to position perm[j]: the whole job slice (ms, win, rw row).
PeerState permute_jobs(const PeerState& s, const std::vector<int>& perm, int W) {
  PeerState t = s;
  for (std::size_t j = 0; j < perm.size(); ++j) {
    t.ms[perm[j]] = s.ms[j];
    t.win[perm[j]] = s.win[j];
    for (int w = 0; w < W; ++w) t.rw[perm[j] * W + w] = s.rw[j * W + w];
  }
  return t;
}

PeerState canonical(const Peer& peer, PeerState s) {
  peer.canonicalize(s);
  return s;
}

}  // namespace

TEST_CASE("peer symmetry: one state per reachable orbit, counted by brute force",
          "[bench][symmetry]") {
  // Every job slice sorted is a true canonical form here (no cell names a
  // job), so the reduced count is the number of orbits exactly.
  struct Row {
    const char* config;
    std::uint64_t states, orbits;
  };
  for (const Row& row :
       {Row{"W2J2", 1581, 833}, Row{"W2J3", 24948, 4804}, Row{"J=2,W=2,PRC=1,C0=0,S0=8", 0, 0}}) {
    INFO(row.config);
    const Peer peer(spin_peer::parse_config(row.config));
    REQUIRE(peer.symmetric());
    const auto all = reachable_states(peer);
    std::set<std::uint64_t> orbits;
    for (const auto& s : all) orbits.insert(peer.fingerprint(canonical(peer, s)));
    const auto reduced = check(peer, true);
    const auto full = check(peer, false);
    CHECK(full.stats.states == all.size());
    CHECK(reduced.stats.states == orbits.size());
    CHECK(reduced.verdict == full.verdict);
    if (row.states) CHECK(all.size() == row.states);
    if (row.orbits) CHECK(orbits.size() == row.orbits);
    const std::string jobs = peer.params().J == 2 ? "j0, j1" : "j0, j1, j2";
    CHECK(reduced.reductions ==
          std::vector<std::string>{
              "no symmetry over workers: win stores a worker as w+1, not as an index",
              fmt::format("symmetry over {} interchangeable jobs ({})", peer.params().J, jobs)});
  }
}

TEST_CASE("peer symmetry: FIFO reads job order, so jobs are not reduced", "[bench][symmetry]") {
  const Peer peer(spin_peer::parse_config("W2J2,FIFO=1"));
  CHECK_FALSE(peer.symmetric());
  CHECK(check(peer, true).stats.states == check(peer, false).stats.states);
}

TEST_CASE("peer symmetry: verdicts agree, and reduced traces replay in the protocol",
          "[bench][symmetry]") {
  struct Row {
    const char* config;
    const char* property;
  };
  for (const Row& row :
       {Row{"W2J2,Q1=4,BROKEN=1", "no-quota-overcommit"},
        Row{"J=2,W=2,MODE=1,GATE=0", "no-double-admission"}, Row{"J=2,W=2,C0=0,S0=8", "deadlock"},
        Row{"J=3,W=2,MODE=1,PRC=0,PRTIMEOUT=0,RECL=1,C0=4,S0=8,Q1=4", "deadlock"}}) {
    INFO(row.config);
    const Peer peer(spin_peer::parse_config(row.config));
    const auto full = check(peer, false);
    const auto reduced = check(peer, true);
    REQUIRE(reduced.verdict == Verdict::Violated);
    REQUIRE(full.verdict == Verdict::Violated);
    CHECK(reduced.violation->property == row.property);
    CHECK(full.violation->property == row.property);
    // The same representatives, counts and trace for every thread count.
    const auto two = check(peer, true, true, 2);
    CHECK(two.stats.states == reduced.stats.states);
    CHECK(two.violation->path.choices == reduced.violation->path.choices);
    // Breadth-first on orbits finds a shortest violation too.
    CHECK(reduced.violation->path.choices.size() == full.violation->path.choices.size());
    // The trace is the protocol's: it replays unreduced and ends where the property fails.
    const auto states = kmc::checker::replay(peer, reduced.violation->path);
    const PeerState& last = states.back();
    if (std::string(row.property) == "deadlock") {
      std::vector<Peer::Action> actions;
      peer.actions(last, actions);
      CHECK(actions.empty());
      CHECK_FALSE(peer.valid_end(last));
    } else {
      bool fails = false;
      for (const auto& prop : peer.properties())
        if (prop.name() == row.property)
          fails = !kmc::model::rule<kmc::model::Always>(prop).holds(last);
      CHECK(fails);
    }
  }
}

TEST_CASE("peer symmetry: canonical forms are idempotent and the same across an orbit",
          "[bench][symmetry]") {
  const Peer peer(spin_peer::parse_config("W2J3"));
  const auto all = reachable_states(peer);
  const int J = peer.params().J, W = peer.params().W;
  const bool ok = rc::check("canonicalize(permute(s)) == canonicalize(s), idempotent", [&] {
    const auto& s = all[*rc::gen::inRange<std::size_t>(0, all.size())];
    std::vector<int> perm(J);
    std::iota(perm.begin(), perm.end(), 0);
    perm = *rc::gen::just(perm);
    for (int i = J - 1; i > 0; --i) std::swap(perm[i], perm[*rc::gen::inRange(0, i + 1)]);
    const PeerState c = canonical(peer, s);
    RC_ASSERT(canonical(peer, c) == c);
    RC_ASSERT(canonical(peer, permute_jobs(s, perm, W)) == c);
    // The representative is in the orbit: the same job slices, as a multiset.
    auto slices = [&](const PeerState& x) {
      std::multiset<std::vector<std::int64_t>> out;
      for (int j = 0; j < J; ++j) {
        std::vector<std::int64_t> v{x.ms[j], x.win[j]};
        for (int w = 0; w < W; ++w) v.push_back(x.rw[j * W + w]);
        out.insert(v);
      }
      return out;
    };
    RC_ASSERT(slices(c) == slices(s));
    RC_ASSERT(c.lost == s.lost);
    RC_ASSERT(c.snap == s.snap);
  });
  CHECK(ok);
}

TEST_CASE("peer symmetry: a liveness lasso of the reduced graph is made concrete",
          "[bench][symmetry]") {
  // Worker w0 has no GPUs but the stale snapshot says 8: a job pinned there
  // fails its check-capacity request, is requeued, and is pinned there again,
  // forever, under weak fairness per family (the manager's family moves, so
  // nothing forces a refresh). "Some job eventually runs on each worker" is
  // violated for w1 by a lasso. Its subjects are workers, which symmetry does
  // not permute; the jobs it permutes are renamed around the loop, so the
  // concrete lasso may walk the reduced loop more than once before it closes.
  const Peer peer(spin_peer::parse_config("J=2,W=2,PRC=1,C0=0,S0=8"));
  const int J = 2, W = 2;
  const auto leads =
      Property::leads_to("runs-on-every-worker", "some job eventually runs on each worker",
                         {.subjects = W,
                          .premise = [](const PeerState&, int) { return true; },
                          .goal =
                              [](const PeerState& s, int w) {
                                for (int j = 0; j < J; ++j)
                                  if (s.rw[j * W + w] == spin_peer::kRunning) return true;
                                return false;
                              }})
          .over("worker");
  const kmc::model::Checked<Peer> checked{peer, {leads}};
  kmc::checker::CheckOptions o;
  o.max_states = 1'000'000;
  for (int f : peer.default_fairness())
    o.fairness.push_back(static_cast<kmc::checker::Fairness>(f));
  auto run = [&](bool symmetry) {
    auto opts = o;
    opts.symmetry = symmetry;
    return kmc::checker::Bfs(checked, opts).run();
  };
  const auto full = run(false), reduced = run(true);
  REQUIRE(full.verdict == Verdict::Violated);
  REQUIRE(reduced.verdict == Verdict::Violated);
  CHECK(reduced.stats.states < full.stats.states);
  CHECK(reduced.violation->property == "runs-on-every-worker");
  CHECK(reduced.violation->subject == full.violation->subject);
  REQUIRE(reduced.violation->loop.has_value());
  const auto confirmed =
      kmc::checker::confirm_violation(peer, leads, reduced.violation->subject, o.fairness_plan(),
                                      reduced.violation->path, reduced.violation->loop);
  CHECK(confirmed.has_value());
}
