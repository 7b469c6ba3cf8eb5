// Preemption target selection (pkg/scheduler/preemption, kueue-semantics.md §4):
// classical (withinClusterQueue, hierarchical reclaimWithinCohort,
// borrowWithinCohort with maxPriorityThreshold) and fair sharing (DRS
// strategies), both followed by the fill-back pass that keeps the victim set
// minimal. Selection only simulates on the snapshot and restores it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/engine.hpp"

namespace kmc::engine {

struct Target {
  int workload = -1;
  std::string reason;  // InClusterQueue, InCohortReclamation, InCohortReclaimWhileBorrowing,
                       // InCohortFairSharing
  friend bool operator==(const Target&, const Target&) = default;
};

struct PreemptionCtx {
  const Engine& engine;
  Snapshot& snapshot;
  const WorkloadInfo& preemptor;
  int cq;                      // preemptor's ClusterQueue index
  FrUsage usage;               // workloadUsage: the preemptor's request per fr
  std::vector<FrId> frs_need;  // frsNeedPreemption
};

std::vector<Target> get_targets(PreemptionCtx& ctx);
std::vector<Target> classical_preemptions(PreemptionCtx& ctx);
std::vector<Target> fair_preemptions(PreemptionCtx& ctx);

enum class PreemptionPossibility { NoCandidates, Preempt, Reclaim };
// PreemptionOracle.SimulatePreemption, used by the flavor assigner per fr.
std::pair<PreemptionPossibility, int> simulate_preemption(const Engine& engine, Snapshot& snapshot,
                                                          const WorkloadInfo& wl, int cq, FrId fr,
                                                          Amount val);

// workloadFits: the preemptor fits its CQ on the current (simulated) snapshot.
bool workload_fits(const PreemptionCtx& ctx, bool allow_borrowing);
// Snapshot.RemoveWorkload / AddWorkload for a candidate, by workload id.
void remove_from_snapshot(PreemptionCtx& ctx, int id);
void add_to_snapshot(PreemptionCtx& ctx, int id);
// fillBackWorkloads: re-add earlier victims (newest first) while the preemptor still fits.
std::vector<Target> fill_back(PreemptionCtx& ctx, std::vector<Target> targets,
                              bool allow_borrowing);
// CandidatesOrdering: negative when a goes first.
int candidates_ordering(const Engine& engine, const WorkloadInfo& a, const WorkloadInfo& b,
                        int preemptor_cq);
bool satisfies_policy(const std::string& policy, const WorkloadInfo& preemptor,
                      const WorkloadInfo& candidate, const QueueOrdering& ordering);
// True if the candidate uses any of the frs (its admission's flavors).
bool uses_resources(const Engine& engine, const WorkloadInfo& w, const std::vector<FrId>& frs);

}  // namespace kmc::engine
