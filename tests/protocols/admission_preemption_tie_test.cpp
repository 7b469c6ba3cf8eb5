// Candidates of one priority ordered by reservation (the model's `rank`), where
// Kueue's whole-second quotaReservationTime ties and its UIDs are random: the
// later reservation goes first, and among holders a dump shows reserved in one
// second, the later created. The engine orders them the same way
// (tests/engine/preemption_tie_test.cpp), so replays agree on the victim.
#include <catch2/catch.hpp>

#include "ka_check.hpp"
#include "protocols/kueue_admission/params.hpp"
#include "protocols/kueue_admission/rules.hpp"

namespace ka = kmc::protocols::ka;

namespace {

// cq0 {cpu: 2}, withinClusterQueue LowerPriority: urgent (priority 10)
// pending; w1 and w2 (priority 0, created in that order) holding 1 cpu each,
// reserved in the same second (`tie`) or w1 a second later.
ka::AdmissionParams two_holders(bool tie) {
  ka::AdmissionParams p = ka_check::queue_of_one(0, 2);
  p.cqs[0].within = ka::WithinCq::LowerPriority;
  p.workloads.push_back(ka_check::workload("ns/urgent", 0, 10, {1}, -1, 2));
  p.workloads.push_back(ka_check::workload("ns/w1", 0, 0, {1}, 0, 0));
  p.workloads.push_back(ka_check::workload("ns/w2", 0, 0, {1}, 0, 1));
  p.workloads[1].reserved_at = tie ? 100 : 101;
  p.workloads[2].reserved_at = 100;
  p.finish();
  return p;
}

}  // namespace

TEST_CASE("preemption ties: the later reservation goes first, the later created on a tie",
          "[admission][preemption][ties]") {
  for (const bool tie : {true, false}) {
    CAPTURE(tie);
    const auto p = two_holders(tie);
    ka_check::Walk step(p);
    step(ka::Action{ka::kSchedule, -1});
    // On a tie, w2 (created later) ranks newer; otherwise w1 (reserved later).
    // A Job's quota goes with its eviction: the victim is back in its queue.
    CHECK(step.s.phase[tie ? 2 : 1] != ka::kAdmitted);
    CHECK(step.s.phase[tie ? 1 : 2] == ka::kAdmitted);
  }
}
