// Flavor assignment (pkg/scheduler/flavorassigner, kueue-semantics.md §2.4):
// per pod set and resource group, scan the ClusterQueue's flavors in
// preference order from where the last scan stopped, grade each flavor
// (fit, reclaim, preempt, no candidates, no fit; with a borrowing level) and
// stop or go on by the flavorFungibility rules.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace kmc::engine {

enum class FlavorMode { NoFit = 0, Preempt = 1, DeferredFit = 2, Fit = 3 };
const char* to_string(FlavorMode m);

struct FlavorChoice {
  std::string flavor;
  FlavorMode mode = FlavorMode::NoFit;
  int borrow = 0;
  int tried_idx = -1;
};

struct PodSetPlan {
  std::string name;
  std::int32_t count = 0;
  std::map<std::string, Amount> requests;  // total for count pods
  std::map<std::string, FlavorChoice> flavors;
  std::vector<std::string> reasons;  // why not Fit; empty means Fit
  // Where no flavor fits: NoMatchingFlavor, ExceedsMaxQuota or WaitingForQuota
  // (resolveNoFitReason), or empty.
  std::string no_fit_reason;
  FlavorMode mode() const;
};

struct Assignment {
  std::vector<PodSetPlan> pod_sets;
  int borrowing = 0;
  FrUsage usage;
  std::optional<FlavorMode> forced_mode;  // DeferredFit after an overlap recompute
  LastAssignment last;
  FlavorMode mode() const;  // RepresentativeMode: the worst pod set
  std::string message() const;
  // The QuotaReserved reason of a NoFit (UnadmittedWorkloadsObservability): the most severe of
  // its failed pod sets'; empty when none is known.
  std::string no_fit_reason() const;
  std::vector<FrId> frs_need_preemption(const FrTable& frs) const;
};

// Assign(counts): counts empty means the full counts of the spec.
Assignment assign_flavors(const Engine& engine, Snapshot& snapshot, const WorkloadInfo& wl,
                          const std::vector<std::int32_t>& counts);

}  // namespace kmc::engine
