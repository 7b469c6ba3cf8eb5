// Fair sharing's dominant resource share (kueue-semantics.md §4.7;
// pkg/cache/scheduler/fair_sharing.go): how much of what its cohort could
// lend a ClusterQueue borrows, weighted, with the exact comparison of #6925,
// or the integer arithmetic before #6617 that made small borrowers look as
// if they did not borrow (K01, seed 5).
#pragma once

#include <cstdint>
#include <vector>

#include "protocols/kueue_admission/params.hpp"
#include "protocols/kueue_admission/quota.hpp"

namespace kmc::protocols::ka {

struct Drs {
  double ratio = 0;     // unweighted: borrowed * 1000 / lendable, the largest over resources
  double weighted = 0;  // ratio / weight; +inf for a zero weight that borrows
  bool zero_weight = false;
  bool borrowing = false;
};

// DRS of ClusterQueue cq with `extra` ([f * R + r]) added to its usage.
Drs drs(const AdmissionParams& p, const Snapshot& snap, int cq,
        const std::vector<std::int64_t>& extra);
// CompareDRS: negative when a is the smaller share.
int compare_drs(const Drs& a, const Drs& b);

}  // namespace kmc::protocols::ka
