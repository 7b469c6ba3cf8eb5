// Figures for `kmc check` on the MultiKueue protocol: states, states/s,
// bytes per stored state and wall time as workers and jobs grow, each run
// capped at a time limit (a capped run prints Incomplete, never a verdict),
// and the same run with 2 threads beside 1, measured in this process.
//   check_scaling [time-limit-seconds]
#include <fmt/format.h>

#include <string>

#include "checker/bfs.hpp"
#include "invariants/multikueue_registry.hpp"
#include "mk_fixtures.hpp"
#include "model/checked.hpp"
#include "protocols/multikueue.hpp"

namespace {

using kmc::protocols::MultiKueue;

// Default properties; with `liveness`, eventually-runs too, under the
// protocol's default fairness per family (what the CLI uses past 64 instances).
kmc::checker::Result run(const kmc::protocols::MkParams& params, double limit_s, int threads,
                         bool liveness = false) {
  MultiKueue p(params);
  kmc::model::Checked<MultiKueue> checked{p, kmc::invariants::multikueue_properties(p)};
  kmc::checker::CheckOptions o;
  o.time_limit_s = limit_s;
  o.threads = threads;
  o.max_states = 200'000'000;
  o.properties = kmc::invariants::default_properties(p);
  if (liveness) {
    o.properties.push_back("eventually-runs");
    for (int f : p.default_fairness()) o.fairness.push_back(static_cast<kmc::checker::Fairness>(f));
    o.fairness[4] = kmc::checker::Fairness::Strong;  // the autoscaler answers, eventually
  }
  return kmc::checker::Bfs(checked, o).run();
}

using mk_fixtures::grown;

void row(const std::string& name, const kmc::checker::Result& r) {
  const auto& s = r.stats;
  fmt::print(
      "{:<28} {:>10} {:>11} {:>6} {:>9.2f} {:>10.0f} {:>8.1f}  {}{}\n", name, s.states,
      s.transitions, s.depth, s.seconds, s.states_per_s, s.bytes_per_state,
      kmc::checker::to_string(r.verdict),
      r.verdict == kmc::checker::Verdict::Incomplete ? " (" + r.incomplete_reason + ")" : "");
}

}  // namespace

int main(int argc, char** argv) {
  const double limit = argc > 1 ? std::stod(argv[1]) : 60;
  fmt::print("{:<28} {:>10} {:>11} {:>6} {:>9} {:>10} {:>8}  {}\n", "configuration", "states",
             "transitions", "depth", "seconds", "states/s", "B/state", "verdict");
  row("gpu-hunter (2w 1j, pinned)", run(mk_fixtures::gpu_hunter(), limit, 1));
  row("gpu-hunter-fixed", run(mk_fixtures::gpu_hunter_fixed(), limit, 1));
  for (auto [w, j] :
       {std::pair{2, 1}, {2, 2}, {2, 3}, {3, 1}, {3, 2}, {3, 3}, {2, 4}, {4, 2}, {3, 4}})
    row(fmt::format("AllAtOnce {}w {}j", w, j), run(grown(w, j), limit, 1));
  const auto one = run(grown(3, 3), limit, 1), two = run(grown(3, 3), limit, 2);
  row("AllAtOnce 3w 3j, 2 threads", two);
  fmt::print("2 threads / 1 thread, states/s: {:.2f}\n",
             two.stats.states_per_s / one.stats.states_per_s);
  // The cost of liveness: the same searches with eventually-runs added.
  for (auto [w, j] : {std::pair{2, 3}, {3, 2}, {3, 3}}) {
    const auto off = run(grown(w, j), limit, 1), on = run(grown(w, j), limit, 1, true);
    row(fmt::format("AllAtOnce {}w {}j + liveness", w, j), on);
    // A small run reuses memory earlier runs in this process freed: its growth may be 0.
    const bool grew = on.stats.bytes_per_state > 0 && off.stats.bytes_per_state > 0;
    fmt::print("  liveness on / off: states/s {:.2f}, bytes/state {}, verdict {}\n",
               on.stats.states_per_s / off.stats.states_per_s,
               grew ? fmt::format("{:.2f}", on.stats.bytes_per_state / off.stats.bytes_per_state)
                    : std::string("n/a (no growth measured)"),
               kmc::checker::to_string(on.verdict));
  }
}
