// Dominant resource share (pkg/cache/scheduler/fair_sharing.go,
// kueue-semantics.md §4.7): how far a ClusterQueue or cohort borrows beyond
// its SubtreeQuota, relative to what its parent could lend, divided by its
// fair-sharing weight. Compared as float64 exactly as CompareDRS does.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace kmc::engine {

struct Drs {
  double weight = 1.0;
  double unweighted_ratio = 0;  // max over resources of borrowed*1000/lendable
  std::string dominant_resource;
  bool borrowing = false;  // usage exceeds SubtreeQuota on some fr (even with ratio 0)
  std::vector<FrId> borrowed_frs;
  // EngineOptions::integer_drs: the weighted share as the old code computed it, in integers.
  std::optional<double> integer_share;

  // zeroWeightBorrows: weight 0 and a share that is not zero (DRS.IsZero reads
  // the ratio, so a node borrowing what nobody lends has share 0).
  bool zero_weight_borrows() const { return weight == 0 && unweighted_ratio != 0; }
  // +Inf for a node of weight 0 with a share that is not zero.
  double precise_weighted_share() const;
  // IsBorrowingOn: borrows on an fr the request asks for (> 0).
  bool borrowing_on(const FrUsage& requested) const;
};

// CompareDRS: <0 when a is the fairer (lower) share.
int compare_drs(const Drs& a, const Drs& b);

// dominantResourceShare(node, wlReq) on the given tree; roots are never borrowing.
Drs dominant_resource_share(const Engine& engine, const QuotaTree& tree, int node,
                            const FrUsage& wl_req = {});

}  // namespace kmc::engine
