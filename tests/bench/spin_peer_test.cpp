// The SPIN peer (bench/spin_peer/) reaches exactly the state graph of
// bench/peers/spin/model.pml, without SPIN: the counts below are SEMANTICS.md's
// (SPIN with TERM=1 stores exactly the reachable states) or refmodel.py's
// (its independent BFS of the same system), each derivation beside its number.
// A changed number is a changed semantics, and the kmc/SPIN timing of
// bench/spin_peer.sh would then compare different graphs.
#include <catch2/catch.hpp>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checker/bfs.hpp"
#include "checker/symbolic_reach.hpp"
#include "model/fingerprint.hpp"
#include "spin_peer/peer_protocol.hpp"

using kmc::checker::Verdict;
using spin_peer::Peer;
using spin_peer::PeerState;

namespace {

kmc::checker::Result check(const std::string& config, bool deadlock = true) {
  const Peer peer(spin_peer::parse_config(config));
  kmc::checker::CheckOptions o;
  o.max_states = 1'000'000;
  o.deadlock = deadlock;
  return kmc::checker::Bfs(peer, o).run();
}

// Every reachable state of a small instance, by a plain BFS over the
// instance: the deadlocks the checker should report, and the values each
// field takes, independently of checker::Bfs.
struct Explored {
  std::uint64_t states = 0, deadlocks = 0;
  std::vector<std::int64_t> lo, hi;  // per layout field, the values seen
};

Explored explore(const std::string& config) {
  const Peer peer(spin_peer::parse_config(config));
  const std::size_t fields = peer.layout().fields.size();
  REQUIRE(fields == 5);
  Explored e{0, 0, std::vector<std::int64_t>(fields, INT64_MAX),
             std::vector<std::int64_t>(fields, INT64_MIN)};
  std::set<std::uint64_t> seen;
  std::deque<PeerState> work;
  for (auto& s : peer.init_states())
    if (seen.insert(peer.fingerprint(s)).second) work.push_back(s);
  std::vector<Peer::Action> actions;
  while (!work.empty()) {
    const PeerState s = std::move(work.front());
    work.pop_front();
    // The layout's fields, in order (model::Instance checks the names and lengths).
    const std::vector<const std::vector<std::int64_t>*> values = {&s.ms, &s.win, &s.rw, &s.lost,
                                                                  &s.snap};
    for (std::size_t f = 0; f < fields; ++f)
      for (std::int64_t v : *values[f])
        e.lo[f] = std::min(e.lo[f], v), e.hi[f] = std::max(e.hi[f], v);
    actions.clear();
    peer.actions(s, actions);
    if (actions.empty() && !peer.valid_end(s)) ++e.deadlocks;
    for (const auto& a : actions) {
      auto t = peer.next(s, a);
      if (seen.insert(peer.fingerprint(t)).second) work.push_back(std::move(t));
    }
  }
  e.states = seen.size();
  return e;
}

}  // namespace

TEST_CASE("spin peer: SEMANTICS.md's series P counts, states and edges", "[bench][spin_peer]") {
  // SEMANTICS.md's scaling table: reachable (= SPIN stored, TERM=1) and edges
  // (= TERM=0 transitions - 2*terminal - 1). Bfs's transitions count every
  // successor generated, duplicates included: the edges.
  struct Row {
    const char* config;
    std::uint64_t states, edges;
  };
  for (const Row& row : {Row{"W2J2", 1581, 5009}, Row{"W3J2", 5115, 17504},
                         Row{"W4J2", 11784, 41763}, Row{"W2J3", 24948, 105939}}) {
    INFO(row.config);
    const auto r = check(row.config);
    CHECK(r.verdict == Verdict::Verified);  // S1, S2 and, once the checker looks, no deadlock
    CHECK(r.stats.states == row.states);
    CHECK(r.stats.transitions == row.edges);
  }
}

TEST_CASE("spin peer: the cross-check rows without deadlocks", "[bench][spin_peer]") {
  // SEMANTICS.md's cross-check table, SPIN with TERM=0 (stored = reachable +
  // 2*terminal), except 19927 (TERM=1). Reachable states and terminal
  // (all-finished) states from `python3 refmodel.py <row>`, which gives the
  // stored counts of the table: 342 + 2*6 = 354, 320 + 2*6 = 332,
  // 494 + 2*6 = 506, 26247 + 2*21 = 26289, 31213 + 2*53 = 31319, 8098 + 2*86 = 8270.
  struct Row {
    const char* config;
    std::uint64_t states;
  };
  for (const Row& row :
       {Row{"J=2,W=2", 342}, Row{"J=2,W=2,PRC=1,C0=0,S0=8", 320},
        Row{"J=2,W=2,PRTIMEOUT=1,C0=0,S0=8", 494}, Row{"J=3,W=2,RECL=1,PRTIMEOUT=1,Q0=4", 26247},
        Row{"J=3,W=2,FIFO=1,PRC=1,RECL=2", 31213},
        Row{"J=2,W=3,MODE=0,PRC=1,RECL=2,C2=0,S2=8,G=2,Q0=2,C0=4", 8098},
        Row{"J=3,W=2,RECL=1,PRTIMEOUT=2,C0=4", 19927}}) {
    INFO(row.config);
    const auto r = check(row.config);
    CHECK(r.verdict == Verdict::Verified);
    CHECK(r.stats.states == row.states);
  }
}

TEST_CASE("spin peer: the cross-check rows with deadlocks, counted", "[bench][spin_peer]") {
  // 374 = 386 - 2*6 (refmodel.py: 6 terminal), 3 deadlocks as SPIN's -c0 errors;
  // 95997 is the table's TERM=1 row, 6 deadlocks. Without the deadlock check,
  // S1 and S2 hold on the whole graph.
  const auto small = explore("J=2,W=2,C0=0,S0=8");
  CHECK(small.states == 374);
  CHECK(small.deadlocks == 3);
  CHECK(check("J=2,W=2,C0=0,S0=8", false).stats.states == 374);
  const auto big = explore("J=3,W=2,MODE=1,PRC=0,PRTIMEOUT=0,RECL=1,C0=4,S0=8,Q1=4");
  CHECK(big.states == 95997);
  CHECK(big.deadlocks == 6);
  for (const char* config : {"W2J2", "W2J3", "J=2,W=2,PRC=1,C0=0,S0=8"})
    CHECK(explore(config).deadlocks == 0);
}

TEST_CASE("spin peer: the checker reports the deadlocks as `deadlock`", "[bench][spin_peer]") {
  for (const char* config :
       {"J=2,W=2,C0=0,S0=8", "J=3,W=2,MODE=1,PRC=0,PRTIMEOUT=0,RECL=1,C0=4,S0=8,Q1=4"}) {
    INFO(config);
    const auto r = check(config);
    CHECK(r.verdict == Verdict::Violated);
    CHECK((r.violation && r.violation->property == "deadlock"));
  }
}

TEST_CASE("spin peer: the broken variants are caught", "[bench][spin_peer]") {
  // workerReserve ignoring quota: two jobs pinned on w1 (quota 4) both reserve it.
  CHECK(check("W2J2,Q1=4").verdict == Verdict::Verified);
  const auto broken = check("W2J2,Q1=4,BROKEN=1");
  REQUIRE(broken.verdict == Verdict::Violated);
  CHECK(broken.violation->property == "no-quota-overcommit");
  // GATE=0 in all-at-once mode: SEMANTICS.md's race demo, where two copies
  // of one job are provisioned (refmodel.py's assertion fails there too).
  const auto race = check("J=2,W=2,MODE=1,GATE=0");
  REQUIRE(race.verdict == Verdict::Violated);
  CHECK(race.violation->property == "no-double-admission");
}

TEST_CASE("spin peer: the declared ranges hold, and are reached", "[bench][spin_peer]") {
  // Packed states will be sized by these ranges: a value outside is a bug,
  // a bound never reached wastes bits. W2J3 reaches every bound (snap 0: a
  // refresh while w0's 4 GPUs run a job; lost 1: the one reclaim).
  for (const char* config : {"W2J3", "J=2,W=2,MODE=1,PRC=1,RECL=1", "W3J2,C1=0,S1=8"}) {
    INFO(config);
    const Peer peer(spin_peer::parse_config(config));
    const auto e = explore(config);
    for (std::size_t f = 0; f < peer.layout().fields.size(); ++f) {
      const auto& field = peer.layout().fields[f];
      INFO(field.name);
      CHECK(e.lo[f] >= field.lo);
      CHECK(e.hi[f] <= field.hi);
      if (std::string(config) == "W2J3") CHECK((e.lo[f] == field.lo && e.hi[f] == field.hi));
    }
  }
}

TEST_CASE("spin peer: the symbolic instance reaches the explicit states within 3 steps",
          "[bench][spin_peer][symbolic]") {
  // The rules are written over V once; Z3 terms take them too.
  for (const char* config : {"W2J2", "J=2,W=2,MODE=1,PRC=1,RECL=1,FIFO=1"}) {
    INFO(config);
    const auto params = spin_peer::parse_config(config);
    const Peer peer(params);
    std::set<std::uint64_t> expl, sym;
    std::vector<std::pair<PeerState, int>> work = {{peer.init_states()[0], 0}};
    std::vector<Peer::Action> actions;
    for (std::size_t i = 0; i < work.size(); ++i) {
      const auto [s, d] = work[i];
      if (!expl.insert(peer.fingerprint(s)).second || d == 3) continue;
      actions.clear();
      peer.actions(s, actions);
      for (const auto& a : actions) work.emplace_back(peer.next(s, a), d + 1);
    }
    for (const auto& s : kmc::checker::symbolic_reachable<spin_peer::Spec>(params, 3))
      sym.insert(kmc::model::fingerprint(s));
    CHECK(sym == expl);
  }
}

TEST_CASE("spin peer: config names", "[bench][spin_peer]") {
  const auto p = spin_peer::parse_config("W3J4");
  CHECK(p.W == 3);
  CHECK(p.J == 4);
  CHECK(p.C == std::vector<std::int64_t>{4, 8, 8});  // series P: C0=4, the others 8
  CHECK(p.S == p.C);
  CHECK(p.MQ == 24);
  CHECK((p.RECL == 1 && p.PRTIMEOUT == 1 && p.MODE == 0 && p.PRC == 0 && p.GATE == 1));
  // Overrides move the dependent defaults with them: S0 follows C0, MQ the quotas.
  const auto o = spin_peer::parse_config("W2J2,C0=0,Q1=4,PRC=1");
  CHECK(o.C == std::vector<std::int64_t>{0, 8});
  CHECK(o.S == std::vector<std::int64_t>{0, 8});
  CHECK(o.MQ == 12);
  CHECK(o.PRC == 1);
  // The cross-check rows' base is SEMANTICS.md's defaults, not series P.
  const auto d = spin_peer::parse_config("J=2,W=2");
  CHECK((d.C == std::vector<std::int64_t>{8, 8} && d.RECL == 0 && d.PRTIMEOUT == 0));
  CHECK(spin_peer::spin_flags(spin_peer::parse_config("W2J2")) ==
        "-DJ=2 -DW=2 -DG=4 -DQ0=8 -DQ1=8 -DC0=4 -DC1=8 -DS0=4 -DS1=8 -DMQ=16 -DRECL=1 -DMODE=0 "
        "-DPRC=0 -DPRTIMEOUT=1 -DGATE=1 -DFIFO=0 -DTERM=1");
  for (const char* bad : {"W5J2", "W2J9", "W2J2,X=1", "W2J2,C0=9,S0=8", "W2J2,MODE=2", "W2", "Wj"})
    CHECK_THROWS_AS(spin_peer::parse_config(bad), std::invalid_argument);
  CHECK_THROWS_AS(spin_peer::spin_flags(spin_peer::parse_config("W2J2,BROKEN=1")),
                  std::invalid_argument);
}

// Many chunks of 8192 states, so the workers' shares, the parallel insertion
// by shard and the numbering in frontier order are all exercised.
TEST_CASE("spin peer: counts and the counterexample do not depend on the thread count",
          "[bench][spin_peer]") {
  for (const char* config : {"W2J3", "J=3,W=2,MODE=1,PRC=0,PRTIMEOUT=0,RECL=1,C0=4,S0=8,Q1=4"}) {
    INFO(config);
    const Peer peer(spin_peer::parse_config(config));
    std::optional<kmc::checker::Result> base;
    for (int threads : {1, 2, 3, 4}) {
      INFO(threads);
      kmc::checker::CheckOptions o;
      o.deadlock = true;
      o.threads = threads;
      const auto r = kmc::checker::Bfs(peer, o).run();
      if (!base) {
        base = r;
        continue;
      }
      CHECK(r.verdict == base->verdict);
      CHECK(r.stats.states == base->stats.states);
      CHECK(r.stats.transitions == base->stats.transitions);
      CHECK(r.stats.depth == base->stats.depth);
      CHECK(r.violation.has_value() == base->violation.has_value());
      if (r.violation && base->violation) {
        CHECK(r.violation->property == base->violation->property);
        CHECK(r.violation->path.choices == base->violation->path.choices);
      }
    }
  }
}
