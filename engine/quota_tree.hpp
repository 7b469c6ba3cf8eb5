// The cohort tree and its quota arithmetic (kueue-semantics.md §3).
//
// Nodes are ClusterQueues (leaves) and Cohorts (internal nodes). Every node
// keeps, per (flavor, resource), its nominal quota, optional borrowing and
// lending limits, its SubtreeQuota and its Usage, exactly as Kueue's
// resourceNode does (pkg/cache/scheduler/resource_node.go). The tree is a
// plain value: copying it is the per-cycle snapshot.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/amount.hpp"

namespace kmc::engine {

class FrTable {
 public:
  FrId intern(const std::string& flavor, const std::string& resource);
  FrId find(const std::string& flavor, const std::string& resource) const;  // -1 if absent
  const FlavorResource& at(FrId id) const { return frs_[static_cast<size_t>(id)]; }
  int size() const { return static_cast<int>(frs_.size()); }

 private:
  std::vector<FlavorResource> frs_;
  std::map<FlavorResource, FrId> ids_;
};

struct QuotaNode {
  std::string name;
  bool is_cluster_queue = false;
  int parent = -1;
  std::vector<int> children;
  std::vector<Amount> nominal;
  std::vector<std::optional<Amount>> borrowing_limit, lending_limit;
  std::vector<Amount> subtree_quota;
  std::vector<Amount> usage;
  int height = 0;  // 0 for a ClusterQueue; see height_of
};

class QuotaTree {
 public:
  // Building: add nodes, link them, set quotas, then finalize().
  int add_node(const std::string& name, bool is_cluster_queue);
  void set_parent(int child, int parent);
  void set_quota(int node, FrId fr, Amount nominal, std::optional<Amount> borrowing_limit,
                 std::optional<Amount> lending_limit);
  // Sizes every vector to fr_count, computes SubtreeQuota bottom-up and heights.
  void finalize(int fr_count);
  // After set_quota on a finalized tree: SubtreeQuota and the cohorts' usage
  // again, from the quotas and the ClusterQueues' usage (updateCohortResourceNode).
  void refresh();
  // After a finalized tree's Cohort is deleted: child leaves its parent and
  // roots a tree of its own; quotas, usage and heights computed again.
  void detach(int child);
  // The inverse, for a Cohort created with a parent: child, a root, joins parent.
  void attach(int child, int parent);
  // The quotas of node n on fr as set: nominal, borrowing limit, lending limit.
  const std::optional<Amount>& borrowing_limit(int n, FrId fr) const {
    return node(n).borrowing_limit[idx(fr)];
  }
  const std::optional<Amount>& lending_limit(int n, FrId fr) const {
    return node(n).lending_limit[idx(fr)];
  }

  const QuotaNode& node(int n) const { return nodes_[static_cast<size_t>(n)]; }
  int node_count() const { return static_cast<int>(nodes_.size()); }
  int fr_count() const { return fr_count_; }
  bool has_parent(int n) const { return node(n).parent >= 0; }
  int root_of(int n) const;
  bool is_ancestor(int ancestor, int n) const;  // n itself counts

  Amount nominal(int n, FrId fr) const { return node(n).nominal[idx(fr)]; }
  Amount subtree_quota(int n, FrId fr) const { return node(n).subtree_quota[idx(fr)]; }
  Amount usage(int n, FrId fr) const { return node(n).usage[idx(fr)]; }
  Amount local_quota(int n, FrId fr) const;
  Amount local_available(int n, FrId fr) const;
  Amount available_raw(int n, FrId fr) const;  // may be negative ("in debt")
  Amount available(int n, FrId fr) const;      // ClusterQueueSnapshot.Available: clamped at 0
  Amount potential_available(int n, FrId fr) const;

  // A cycle's snapshot may go below 0 where Kueue's does: a negative reservation
  // (quotaResourcesToReserve past a lowered borrowing limit) then a victim's removal in
  // the same cycle. The cache never does: there it is a bug, and asserted.
  bool simulation = false;
  void add_usage(int n, FrId fr, Amount v);
  void remove_usage(int n, FrId fr, Amount v);
  void add_usage(int n, const FrUsage& u);
  void remove_usage(int n, const FrUsage& u);

  // CQ: Q < U + v; cohort: ST < U + v.
  bool borrowing_with(int n, FrId fr, Amount v) const;
  bool borrowing(int n, FrId fr) const { return borrowing_with(n, fr, 0); }
  // FindHeightOfLowestSubtreeThatFits: (borrowing level, mayReclaimInHierarchy).
  std::pair<int, bool> lowest_subtree_that_fits(int cq, FrId fr, Amount val) const;
  // QuantitiesFitInQuota: fits, and what is left once this node's local quota is used.
  std::pair<bool, FrUsage> quantities_fit_in_quota(int n, const FrUsage& requests) const;
  bool within_nominal_in(int n, const std::vector<FrId>& frs) const;

 private:
  size_t idx(FrId fr) const { return static_cast<size_t>(fr); }
  QuotaNode& mut(int n) { return nodes_[static_cast<size_t>(n)]; }
  void accumulate(int n, bool with_usage = false);
  int compute_height(int n);
  void reshaped();  // after a parent changed: quotas, usage and heights again

  std::vector<QuotaNode> nodes_;
  int fr_count_ = 0;
};

}  // namespace kmc::engine
