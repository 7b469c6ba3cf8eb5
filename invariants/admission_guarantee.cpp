// The guarantee (seed 3's first signal; L1, L3): a workload that fits its
// ClusterQueue's nominal quota, after what it may preempt, is admitted.
// As stuck-freedom: no state from which nothing ever changes such a
// workload's phase (a victim that never stops, K13). As liveness, under the
// run's fairness: every such workload is eventually admitted, unless an
// operator's edit withdraws the guarantee, or workloads its own queue orders
// ahead of it take the quota first (Kueue guarantees the queue its nominal
// quota, not each workload: two of one priority that each want all of it
// are admitted one after the other, and the first may run forever).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "invariants/admission_registry.hpp"
#include "protocols/kueue_admission/observe.hpp"

namespace kmc::invariants {

namespace {

std::string explain(const protocols::ka::AdmissionParams& p, const AdmissionInstance::State& s,
                    int w) {
  const auto& wl = p.workloads[w];
  std::string out =
      fmt::format("{} ({}) fits ClusterQueue {}'s nominal quota after what it may preempt", wl.name,
                  protocols::ka::phase_name(s.phase[w]), p.cqs[wl.cq].quota.name);
  if (p.block_admission && p.any_checks() &&
      (s.phase[w] == protocols::ka::kPending || s.phase[w] == protocols::ka::kInadmissible))
    out +=
        "; with waitForPodsReady.blockAdmission no Fit workload is admitted while another "
        "holds quota without being PodsReady, as one waiting for its admission checks does";
  if (s.phase[w] != protocols::ka::kReserved) return out;
  // Two-phase admission: name the checks whose ProvisioningRequests are unanswered.
  const auto pending = wl.checks[static_cast<std::size_t>(s.flavor[w])] & ~s.ready[w];
  std::vector<std::string> names;
  for (int k = 0; k < p.K(); ++k)
    if (pending >> k & 1) names.push_back(p.checks[k].name);
  return out + fmt::format("; it holds that quota and waits for admission check(s) {}",
                           fmt::join(names, ", "));
}

// The latest edit of environment.queueEdits took w's guarantee away: w is not
// within it now, and would be in the same state under the queues before that
// edit (a quota shrank, its queue stopped). That is the operator's doing, so
// the guarantee is no longer owed; one still in force after an edit is.
bool withdrawn(const protocols::ka::AdmissionParams& p, const AdmissionInstance::State& s, int w) {
  if (!p.any_queue_edits()) return false;
  const protocols::ka::Scheduler sched(p);
  if (sched.edits_done(s) == 0 || protocols::ka::guaranteed(sched, s, w)) return false;
  auto before = s;
  ++before.budget[p.budget_queue_edits()];
  return protocols::ka::guaranteed(sched, before, w);
}

}  // namespace

AdmissionProperty guarantee_not_stuck(const AdmissionInstance& p) {
  const auto* params = &p.params();
  return AdmissionProperty::stuck_free(
      "guarantee-not-stuck",
      "no workload within its ClusterQueue's guarantee waits forever whatever happens",
      {.subjects = params->W(),
       .key = [](const AdmissionInstance::State& s,
                 int w) { return static_cast<std::uint64_t>(s.phase[w]); },
       .should_move =
           [params](const AdmissionInstance::State& s, int w) {
             return protocols::ka::guaranteed(protocols::ka::Scheduler(*params), s, w);
           }},
      [params](const AdmissionInstance::State& s, int w) { return explain(*params, s, w); });
}

AdmissionProperty guarantee_eventually_admitted(const AdmissionInstance& p) {
  const auto* params = &p.params();
  return AdmissionProperty::leads_to(
      "guarantee-eventually-admitted",
      "every workload within its ClusterQueue's guarantee is eventually admitted",
      {.subjects = params->W(),
       .premise =
           [params](const AdmissionInstance::State& s, int w) {
             return protocols::ka::guaranteed(protocols::ka::Scheduler(*params), s, w);
           },
       .goal =
           [params](const AdmissionInstance::State& s, int w) {
             // Admitted, or gone from the queue for good: finished, deleted by
             // its user, or deactivated by a Rejected check (not starved of
             // quota); or an operator's edit withdrew the guarantee; or
             // workloads its own queue orders ahead of it took the quota first.
             using namespace protocols::ka;
             return s.phase[w] == kAdmitted || s.phase[w] == kFinished || s.phase[w] == kDeleted ||
                    s.phase[w] == kOrphanedPods || s.phase[w] == kOrphanedStuck ||
                    s.phase[w] == kDeactivated || withdrawn(*params, s, w) ||
                    overtaken(Scheduler(*params), s, w);
           }},
      [params](const AdmissionInstance::State& s, int w) { return explain(*params, s, w); });
}

}  // namespace kmc::invariants
