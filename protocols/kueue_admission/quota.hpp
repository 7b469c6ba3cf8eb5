// Kueue's quota arithmetic over the cohort tree (kueue-semantics.md §3):
// subtree quota, lending, borrowing limits, available and potentially
// available capacity, the height of the lowest subtree that fits. A
// Snapshot is the scheduler's per-cycle copy of usage (§2.2): CQ usage from
// the state, cohort usage derived bottom-up, mutated as a cycle admits.
#pragma once

#include <cstdint>
#include <vector>

#include "protocols/kueue_admission/params.hpp"

namespace kmc::protocols::ka {

// The cohort tree as nodes: 0..Q-1 the ClusterQueues, Q..Q+C-1 the cohorts.
// Its shape is constant; its quantities are those after the first `edits`
// edits of environment.queueEdits (an edit may set quotas, never the shape).
class QuotaTree {
 public:
  // The tree after the first `edits` queue edits; the deleted ClusterQueues of
  // mask `removed` (AdmissionParams::deleted_cqs) are gone from it.
  explicit QuotaTree(const AdmissionParams& p, int edits = 0, int removed = 0);

  int nodes() const { return static_cast<int>(parent_.size()); }
  int parent(int n) const { return parent_[n]; }
  int height(int n) const { return height_[n]; }
  bool is_cq(int n) const { return n < q_; }
  // The root of n's tree (n itself for a standalone ClusterQueue).
  int root(int n) const;
  // Whether a's subtree holds b (a == b included).
  bool contains(int a, int b) const;
  // Nodes from n's parent up to the root.
  std::vector<int> ancestors(int n) const;

  std::int64_t nominal(int n, int fr) const { return nominal_[n][fr]; }
  std::int64_t subtree_quota(int n, int fr) const { return st_[n][fr]; }
  std::int64_t local_quota(int n, int fr) const { return lq_[n][fr]; }
  std::int64_t borrowing_limit(int n, int fr) const { return bl_[n][fr]; }
  // The largest request that could ever fit in ClusterQueue cq (potentialAvailable).
  std::int64_t potential_available(int n, int fr) const;
  int frs() const { return frs_; }
  // AdmissionParams::cell: the cell resource r of ClusterQueue cq's workload of flavor f uses.
  int cell(int cq, int f, int r) const {
    const int x = fixed_[cq].empty() ? -1 : fixed_[cq][r];
    return (x >= 0 ? x : f) * r_ + r;
  }

 private:
  int q_ = 0, frs_ = 0, r_ = 0;
  std::vector<std::vector<int>> fixed_;  // [cq]: CqParams::fixed_flavor
  std::vector<int> parent_, height_;
  std::vector<std::vector<std::int64_t>> nominal_, st_, lq_, bl_;
};

// Usage per node and (flavor, resource), for one cycle.
class Snapshot {
 public:
  // usage: the state's [cq][f][r] cells. skip_cohort: the deliberately broken
  // variant whose ClusterQueues see no cohort above them when they borrow.
  template <class Usage>
  Snapshot(const QuotaTree& tree, const Usage& usage, bool skip_cohort = false)
      : tree_(&tree), skip_cohort_(skip_cohort) {
    const int n = tree.nodes(), k = tree.frs();
    u_.assign(static_cast<std::size_t>(n) * k, 0);
    for (int cq = 0; cq < n && tree.is_cq(cq); ++cq)
      for (int fr = 0; fr < k; ++fr) u_[cq * k + fr] = usage[cq * k + fr];
    refresh();
  }

  // The tree whose quotas this snapshot is measured against.
  const QuotaTree& tree() const { return *tree_; }
  std::int64_t usage(int n, int fr) const { return u_[n * tree_->frs() + fr]; }
  // Adds (sign +1) or removes (-1) a request on one ClusterQueue's flavor.
  void add(int cq, int f, const std::vector<std::int64_t>& req, int sign);
  // The same with the request already per (flavor, resource) cell.
  void add_cells(int cq, const std::vector<std::int64_t>& cells, int sign);

  std::int64_t local_available(int n, int fr) const;
  std::int64_t available(int cq, int fr) const;  // clamped at 0
  // A borrows on fr with an extra v: Q < U + v (CQ), ST < U + v (cohort).
  bool borrowing_with(int n, int fr, std::int64_t v) const;
  bool within_nominal(int n, int fr) const { return tree_->subtree_quota(n, fr) >= usage(n, fr); }
  // FindHeightOfLowestSubtreeThatFits: (height, whether a subtree smaller than the whole tree
  // fits).
  std::pair<int, bool> lowest_fitting_height(int cq, int fr, std::int64_t v) const;

 private:
  std::int64_t available_raw(int n, int fr) const;
  void refresh();  // cohort usage from the ClusterQueues'

  const QuotaTree* tree_;
  bool skip_cohort_ = false;
  std::vector<std::int64_t> u_;
};

}  // namespace kmc::protocols::ka
