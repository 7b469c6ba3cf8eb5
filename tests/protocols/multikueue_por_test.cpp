// Partial-order reduction on MultiKueue (issue 13): the footprints read off the
// rules are checked against the explicit protocol on every edge of small
// fleets (what an action writes, which guards it can change, and that actions
// the footprints call independent commute), and searches with and without the
// reduction must agree on every verdict.
#include <fmt/format.h>

#include <boost/hana.hpp>
#include <catch2/catch.hpp>
#include <deque>
#include <set>

#include "counterexamples/multikueue/symbolic.hpp"
#include "mk_check.hpp"
#include "mk_fixtures.hpp"

using kmc::checker::CheckOptions;
using kmc::checker::Verdict;
using kmc::protocols::MkParams;
using kmc::protocols::MultiKueue;
namespace hana = boost::hana;

namespace {

// Each job in its own ClusterQueue on the manager and on every worker, with room for all of them:
// jobs that never interact, whose unreduced states multiply (issue 13: 95, 95^2, 95^3).
MkParams separate_queues(int workers, int jobs) {
  MkParams p = mk_fixtures::fleet(workers, 1, 4, 4);
  for (auto& q : p.cqs) q.provisioning = false;
  MkParams out = p;
  out.jobs.clear(), out.request.clear(), out.manager_cq.clear(), out.cqs.clear();
  out.worker_cq.assign(workers, {});
  for (int j = 0; j < jobs; ++j) {
    out.jobs.push_back("team-" + std::to_string(j) + "/train");
    out.request.push_back(4);
    out.manager_cq.push_back(j);
    auto q = p.cqs[0];
    q.name = "team-" + std::to_string(j);
    out.cqs.push_back(q);
  }
  for (int w = 0; w < workers; ++w) {
    for (int j = 0; j < jobs; ++j) {
      auto q = p.cqs[1 + w];
      q.name = "team-" + std::to_string(j);
      out.worker_cq[w].push_back(static_cast<int>(out.cqs.size()));
      out.cqs.push_back(q);
    }
    out.capacity0[w] = out.snapshot0[w] = 4 * jobs;
  }
  return out;
}

std::vector<std::int64_t> flat(const MultiKueue::State& s) {
  std::vector<std::int64_t> out;
  hana::for_each(hana::accessors<MultiKueue::State>(), [&](const auto& acc) {
    for (auto v : hana::second(acc)(s)) out.push_back(v);
  });
  return out;
}

bool meets(const std::vector<int>& a, const std::vector<int>& b) {
  std::size_t i = 0, k = 0;
  while (i < a.size() && k < b.size()) {
    if (a[i] == b[k]) return true;
    a[i] < b[k] ? ++i : ++k;
  }
  return false;
}

// Every reachable state of a small instance, breadth first.
std::vector<MultiKueue::State> reachable(const MultiKueue& p, std::size_t limit) {
  std::set<std::vector<std::int64_t>> seen;
  std::vector<MultiKueue::State> out;
  const auto init = p.init_states();
  std::deque<MultiKueue::State> queue(init.begin(), init.end());
  while (!queue.empty() && out.size() < limit) {
    auto s = queue.front();
    queue.pop_front();
    if (!seen.insert(flat(s)).second) continue;
    out.push_back(s);
    std::vector<kmc::protocols::MkAction> as;
    p.actions(s, as);
    for (const auto& a : as) queue.push_back(p.next(s, a));
  }
  return out;
}

// The footprints' claims, on every state of `p` (up to `limit`).
void check_footprints(const MultiKueue& p, std::size_t limit) {
  const auto f = kmc::cx::multikueue_footprints(p);
  const auto& cands = p.candidates();
  REQUIRE(f->guard.size() == cands.size());
  std::size_t pairs = 0;
  for (const auto& s : reachable(p, limit)) {
    const auto before = flat(s);
    std::vector<kmc::protocols::MkAction> as;
    p.actions(s, as);
    std::vector<char> on(cands.size(), 0);
    for (const auto& a : as) on[p.instance(a)] = 1;
    // The compiled guard conjuncts agree with the explicit guard: a false one only where the
    // action is disabled, and with every conjunct compiled, all true where it is enabled.
    std::vector<std::int64_t> scratch;
    for (std::size_t c = 0; c < cands.size(); ++c) {
      bool all_compiled = true, all_true = true;
      for (const auto& cj : f->conjuncts[c]) {
        all_compiled = all_compiled && cj.compiled;
        if (cj.compiled && cj.formula.eval(before, scratch) == 0) all_true = false;
      }
      INFO(p.action_name(cands[c]));
      if (!all_true) CHECK_FALSE(on[c]);
      if (all_compiled) CHECK(all_true == static_cast<bool>(on[c]));
    }
    for (const auto& a : as) {
      const int i = p.instance(a);
      const auto next = p.next(s, a);
      const auto after = flat(next);
      // It changes only variables it may write.
      for (std::size_t v = 0; v < before.size(); ++v)
        if (before[v] != after[v])
          CHECK(std::binary_search(f->writes[i].begin(), f->writes[i].end(), static_cast<int>(v)));
      // It changes the enabledness only of actions whose guard reads what it writes.
      std::vector<kmc::protocols::MkAction> bs;
      p.actions(next, bs);
      std::vector<char> now(cands.size(), 0);
      for (const auto& b : bs) now[p.instance(b)] = 1;
      for (std::size_t c = 0; c < cands.size(); ++c)
        if (now[c] != on[c] && static_cast<int>(c) != i) {
          INFO(p.action_name(a) << " changes whether " << p.action_name(cands[c]) << " is enabled");
          CHECK(meets(f->writes[i], f->guard[c]));
        }
      // Independent enabled actions commute.
      for (const auto& b : as) {
        const int k = p.instance(b);
        if (k <= i || meets(f->writes[i], f->writes[k]) || meets(f->writes[i], f->reads[k]) ||
            meets(f->writes[i], f->guard[k]) || meets(f->writes[k], f->reads[i]) ||
            meets(f->writes[k], f->guard[i]))
          continue;
        ++pairs;
        CHECK(flat(p.next(p.next(s, a), b)) == flat(p.next(p.next(s, b), a)));
      }
    }
  }
  CHECK(pairs > 0);  // the check checked something
}

kmc::checker::Result check(const MultiKueue& p, std::vector<std::string> properties, bool por) {
  CheckOptions o;
  o.properties = std::move(properties);
  if (por) o.footprints = kmc::cx::multikueue_footprints(p);
  return mk_check::check(p, std::move(o));
}

const std::vector<std::string> kSafety{"no-job-on-two-workers", "cluster-queue-within-quota",
                                       "quota-counted-once"};

}  // namespace

TEST_CASE("footprints read off the rules hold on every edge", "[protocols][multikueue][por]") {
  check_footprints(MultiKueue(separate_queues(2, 2)), 5000);
  check_footprints(MultiKueue(mk_fixtures::gpu_hunter()), 5000);
  auto faults = mk_fixtures::fleet(2, 2, 8, 16);
  for (auto& q : faults.cqs) q.provisioning = false;
  faults.worker_disconnects = 1;
  faults.spot_reclaims = 1;
  check_footprints(MultiKueue(faults), 5000);
}

TEST_CASE("partial-order reduction: jobs that share nothing are not interleaved",
          "[protocols][multikueue][por]") {
  for (int jobs = 1; jobs <= 3; ++jobs) {
    const MultiKueue p(separate_queues(2, jobs));
    const auto full = check(p, kSafety, false), reduced = check(p, kSafety, true);
    INFO(fmt::format("{} jobs: {} states unreduced, {} reduced", jobs, full.stats.states,
                     reduced.stats.states));
    CHECK(full.verdict == Verdict::Verified);
    CHECK(reduced.verdict == Verdict::Verified);
    // Unreduced, the jobs' 17 states each multiply; reduced, far fewer (pinned: a change in the
    // footprints or the stubborn sets shows here).
    CHECK(full.stats.states == std::vector<std::uint64_t>{17, 289, 4913}[jobs - 1]);
    CHECK(reduced.stats.states == std::vector<std::uint64_t>{17, 121, 1704}[jobs - 1]);
  }
}

TEST_CASE("partial-order reduction finds what the full search finds",
          "[protocols][multikueue][por]") {
  std::vector<MkParams> fleets{mk_fixtures::gpu_hunter(), mk_fixtures::gpu_hunter_fixed(),
                               separate_queues(2, 2)};
  for (const char* variant : {"broken-worker-ignores-quota", "broken-keep-losers"}) {
    auto p = mk_fixtures::fleet(2, 2, 8, 16);
    if (std::string(variant) == "broken-keep-losers")
      p.broken_keep_losers = true;
    else
      p.broken_worker_ignores_quota = true;
    fleets.push_back(p);
  }
  for (const auto& params : fleets) {
    const MultiKueue p(params);
    for (const auto& prop : kSafety) {
      const auto full = check(p, {prop}, false), reduced = check(p, {prop}, true);
      INFO(prop);
      CHECK(full.verdict == reduced.verdict);
      CHECK(reduced.stats.states <= full.stats.states);
    }
  }
}
