// Workloads arriving during the run (kmc.yaml environment.arrivals) as a user
// meets them: the example, a behaviour only an arrival opens, its replay in
// the engine, and every kind of bad list exit 3 naming file, line and field.
#include <catch2/catch.hpp>

#include "cli/fleet_refused.hpp"

namespace {

const std::string kArrivals = "  arrivals: [research/train-a, research/train-b]\n";

std::string late_arrivals_with(const std::string& arrivals_line) {
  std::string text =
      slurp(std::string(KMC_SOURCE_DIR) + "/examples/late-arrivals-reclaim/kmc.yaml");
  text.replace(text.find(kArrivals), kArrivals.size(), arrivals_line);
  return text;
}

}  // namespace

TEST_CASE("arrivals: the teams' jobs arrive after the sweep borrowed the pool and reclaim it",
          "[cli][admission][arrivals]") {
  auto r = kmc("check examples/late-arrivals-reclaim");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "some-preemption           Verified"));
  CHECK(has(r.out, "Stats: 41 states, 69 transitions"));
  // The same cluster with everyone there from the start: both teams are admitted in the first
  // cycle, the sweep never borrows, and nothing is ever preempted.
  const auto all_there = example_with("late-arrivals-reclaim", "kmc.yaml", late_arrivals_with(""));
  r = kmc("check " + all_there);
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Property some-preemption is violated"));
  CHECK(has(r.out, "Make a preemption possible"));
}

TEST_CASE("arrivals: a trace with an arrival replays in the engine", "[cli][admission][arrivals]") {
  const auto dir =
      example_with("late-arrivals-reclaim", "kmc.yaml",
                   slurp(std::string(KMC_SOURCE_DIR) + "/examples/late-arrivals-reclaim/kmc.yaml") +
                       "properties:\n  - name: nothing-evicted\n"
                       "    always: \"all w: workload. phase[w] != Evicted\"\n");
  const auto r = kmc("check " + dir + " --property nothing-evicted --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "State 2: <Arrive(research/train-a)>"));
  CHECK(has(r.out, "phase[research/train-a]              Absent -> Pending"));
  CHECK(has(r.out, "Result: Violated (Reproduced in the engine)"));
  CHECK(has(r.out, "research/train-a was created and queued: research/train-a Absent -> Pending"));
}

TEST_CASE("arrivals: bad lists are exit 3 naming the field",
          "[cli][admission][arrivals][bad-input]") {
  fleet_refused("late-arrivals-reclaim", late_arrivals_with("  arrivals: [research/train-z]\n"),
                "environment.arrivals[0]", "no Workload or Job research/train-z");
  fleet_refused("late-arrivals-reclaim",
                late_arrivals_with("  arrivals: [research/train-a, research/train-a]\n"),
                "environment.arrivals[1]", "listed twice");
  fleet_refused("late-arrivals-reclaim", late_arrivals_with("  arrivals: [train-a]\n"),
                "environment.arrivals[0]", "namespace/name");
  // The sweep is older than the trainers, which are there from the start.
  fleet_refused("late-arrivals-reclaim", late_arrivals_with("  arrivals: [research/sweep]\n"),
                "environment.arrivals[0]", "creationTimestamp must be later");
  // zombie-pod's sweep holds quota at the start.
  std::string zombie = slurp(std::string(KMC_SOURCE_DIR) + "/examples/zombie-pod/kmc.yaml");
  const std::string stuck = "environment: {stuckTerminating: 1}";
  zombie.replace(zombie.find(stuck), stuck.size(),
                 "environment: {stuckTerminating: 1, arrivals: [research/sweep]}");
  fleet_refused("zombie-pod", zombie, "environment.arrivals[0]",
                "holds quota in its status.admission");
  // MultiKueue has no arrivals.
  std::string hunter = slurp(std::string(KMC_SOURCE_DIR) + "/examples/gpu-hunter/kmc.yaml");
  const std::string refreshes = "environment: {snapshotRefreshes: -1}";
  hunter.replace(hunter.find(refreshes), refreshes.size(),
                 "environment: {snapshotRefreshes: -1, arrivals: [ml/llm-finetune]}");
  fleet_refused("gpu-hunter", hunter, "environment.arrivals", "only protocol kueue-admission");
}
