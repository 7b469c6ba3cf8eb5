// One scheduling cycle (pkg/scheduler/scheduler.go, kueue-semantics.md §2):
// pop one head per active ClusterQueue, plan every head against one snapshot,
// order the entries (classical or the fair-sharing tournament), then for each
// re-check the projected fit, preempt or assume, and requeue the rest.
#pragma once

#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/flavor_assigner.hpp"
#include "engine/preemption.hpp"

namespace kmc::engine {

enum class EntryStatus { NotNominated, Skipped, Nominated, Assumed };

struct Entry {
  int workload = -1;
  int cq = -1;
  Assignment assignment;
  std::vector<Target> targets;
  EntryStatus status = EntryStatus::NotNominated;
  RequeueReason reason = RequeueReason::Generic;
  std::string message;       // inadmissibleMsg
  std::string quota_reason;  // QuotaReserved=False reason
  // Not processed: blockAdmission stopped the cycle earlier (Kueue processes it later).
  bool deferred = false;
  // Its queue's preemptor, under PrioritizePreemptorWorkloads (entry.IsPreemptor).
  bool preemptor = false;
};

// getAssignments: flavors, then preemption targets, then partial admission.
void get_assignments(Engine& engine, Snapshot& snapshot, WorkloadInfo& wl,
                     Assignment& out_assignment, std::vector<Target>& out_targets);
// The classical iterator's order (makeClassicalIterator).
void order_classical(const Engine& engine, std::vector<Entry*>& entries);
// The fair-sharing tournament order, one pop at a time (fair_sharing.cpp).
Entry* pop_fair_sharing(const Engine& engine, Snapshot& snapshot, std::vector<Entry*>& remaining);

}  // namespace kmc::engine
