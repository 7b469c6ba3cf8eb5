#include "engine/quota_tree.hpp"

#include <algorithm>

#include "model/assert.hpp"

namespace kmc::engine {

FrId FrTable::intern(const std::string& flavor, const std::string& resource) {
  FlavorResource key{flavor, resource};
  auto it = ids_.find(key);
  if (it != ids_.end()) return it->second;
  const FrId id = size();
  frs_.push_back(key);
  ids_.emplace(std::move(key), id);
  return id;
}

FrId FrTable::find(const std::string& flavor, const std::string& resource) const {
  auto it = ids_.find(FlavorResource{flavor, resource});
  return it == ids_.end() ? -1 : it->second;
}

int QuotaTree::add_node(const std::string& name, bool is_cluster_queue) {
  QuotaNode n;
  n.name = name;
  n.is_cluster_queue = is_cluster_queue;
  nodes_.push_back(std::move(n));
  return node_count() - 1;
}

void QuotaTree::set_parent(int child, int parent) {
  mut(child).parent = parent;
  mut(parent).children.push_back(child);
}

void QuotaTree::set_quota(int n, FrId fr, Amount nominal, std::optional<Amount> borrowing_limit,
                          std::optional<Amount> lending_limit) {
  QuotaNode& q = mut(n);
  const size_t need = idx(fr) + 1;
  if (q.nominal.size() < need) {
    q.nominal.resize(need, 0);
    q.borrowing_limit.resize(need);
    q.lending_limit.resize(need);
  }
  q.nominal[idx(fr)] = nominal;
  q.borrowing_limit[idx(fr)] = borrowing_limit;
  q.lending_limit[idx(fr)] = lending_limit;
}

void QuotaTree::finalize(int fr_count) {
  fr_count_ = fr_count;
  for (QuotaNode& q : nodes_) {
    q.nominal.resize(idx(fr_count), 0);
    q.borrowing_limit.resize(idx(fr_count));
    q.lending_limit.resize(idx(fr_count));
    q.subtree_quota.assign(idx(fr_count), 0);
    q.usage.assign(idx(fr_count), 0);
  }
  for (int n = 0; n < node_count(); ++n) {
    if (!has_parent(n)) {
      accumulate(n);
      compute_height(n);
    }
  }
}

// updateCohortResourceNode + accumulateFromChild: ST = Q + Σ (ST_c − LQ_c),
// and, `with_usage`, a cohort's U = Σ max(0, U_c − LQ_c).
void QuotaTree::accumulate(int n, bool with_usage) {
  QuotaNode& q = mut(n);
  for (int fr = 0; fr < fr_count_; ++fr) q.subtree_quota[idx(fr)] = q.nominal[idx(fr)];
  if (with_usage && !q.is_cluster_queue) q.usage.assign(idx(fr_count_), 0);
  const std::vector<int> children = q.children;
  for (int c : children) {
    accumulate(c, with_usage);
    for (int fr = 0; fr < fr_count_; ++fr) {
      const Amount delta = amount_sub(subtree_quota(c, fr), local_quota(c, fr));
      mut(n).subtree_quota[idx(fr)] = amount_add(subtree_quota(n, fr), delta);
      if (!with_usage) continue;
      const Amount stored = std::max<Amount>(0, amount_sub(usage(c, fr), local_quota(c, fr)));
      mut(n).usage[idx(fr)] = amount_add(usage(n, fr), stored);
    }
  }
}

void QuotaTree::refresh() {
  for (int n = 0; n < node_count(); ++n) {
    if (!has_parent(n)) accumulate(n, true);
  }
}

void QuotaTree::detach(int child) {
  const int parent = node(child).parent;
  if (parent < 0) return;
  std::erase(mut(parent).children, child);
  mut(child).parent = -1;
  reshaped();
}

void QuotaTree::attach(int child, int parent) {
  detach(child);
  mut(child).parent = parent;
  mut(parent).children.push_back(child);
  reshaped();
}

void QuotaTree::reshaped() {
  refresh();
  for (int n = 0; n < node_count(); ++n) {
    if (!has_parent(n)) compute_height(n);
  }
}

// A cohort with only ClusterQueue children has height 1; a CQ has height 0.
int QuotaTree::compute_height(int n) {
  QuotaNode& q = mut(n);
  if (q.is_cluster_queue) return q.height = 0;
  int h = q.children.empty() ? 0 : 1;
  const std::vector<int> children = q.children;
  for (int c : children) {
    const int ch = compute_height(c);
    if (!node(c).is_cluster_queue) h = std::max(h, ch + 1);
  }
  return mut(n).height = h;
}

int QuotaTree::root_of(int n) const {
  while (has_parent(n)) n = node(n).parent;
  return n;
}

bool QuotaTree::is_ancestor(int ancestor, int n) const {
  for (; n >= 0; n = node(n).parent) {
    if (n == ancestor) return true;
  }
  return false;
}

Amount QuotaTree::local_quota(int n, FrId fr) const {
  const auto& ll = node(n).lending_limit[idx(fr)];
  if (!ll) return 0;
  return std::max<Amount>(0, amount_sub(subtree_quota(n, fr), *ll));
}

Amount QuotaTree::local_available(int n, FrId fr) const {
  return std::max<Amount>(0, amount_sub(local_quota(n, fr), usage(n, fr)));
}

Amount QuotaTree::available_raw(int n, FrId fr) const {
  if (!has_parent(n)) return amount_sub(subtree_quota(n, fr), usage(n, fr));
  Amount parent_available = available_raw(node(n).parent, fr);
  if (const auto& bl = node(n).borrowing_limit[idx(fr)]) {
    const Amount lq = local_quota(n, fr);
    const Amount stored_in_parent = amount_sub(subtree_quota(n, fr), lq);
    const Amount used_in_parent = std::max<Amount>(0, amount_sub(usage(n, fr), lq));
    parent_available =
        std::min(parent_available, amount_add(amount_sub(stored_in_parent, used_in_parent), *bl));
  }
  return amount_add(local_available(n, fr), parent_available);
}

Amount QuotaTree::available(int n, FrId fr) const {
  return std::max<Amount>(0, available_raw(n, fr));
}

Amount QuotaTree::potential_available(int n, FrId fr) const {
  if (!has_parent(n)) return subtree_quota(n, fr);
  Amount avail = amount_add(local_quota(n, fr), potential_available(node(n).parent, fr));
  if (const auto& bl = node(n).borrowing_limit[idx(fr)]) {
    avail = std::min(avail, amount_add(subtree_quota(n, fr), *bl));
  }
  return avail;
}

void QuotaTree::add_usage(int n, FrId fr, Amount v) {
  // v < 0 only from quotaResourcesToReserve past a borrowing limit an edit lowered below the
  // usage: as Kueue's addUsage, it lowers this node's usage and nothing above (v < local).
  const Amount local = local_available(n, fr);
  mut(n).usage[idx(fr)] = amount_add(usage(n, fr), v);
  if (has_parent(n) && v > local) add_usage(node(n).parent, fr, amount_sub(v, local));
}

void QuotaTree::remove_usage(int n, FrId fr, Amount v) {
  const Amount stored_in_parent = amount_sub(usage(n, fr), local_quota(n, fr));
  mut(n).usage[idx(fr)] = amount_sub(usage(n, fr), v);
  KMC_ASSERT_MSG(simulation || usage(n, fr) >= 0,
                 "usage is never negative: only what was added is removed");
  if (stored_in_parent <= 0 || !has_parent(n)) return;
  remove_usage(node(n).parent, fr, std::min(v, stored_in_parent));
}

void QuotaTree::add_usage(int n, const FrUsage& u) {
  for (const auto& [fr, v] : u) add_usage(n, fr, v);
}

void QuotaTree::remove_usage(int n, const FrUsage& u) {
  for (const auto& [fr, v] : u) remove_usage(n, fr, v);
}

bool QuotaTree::borrowing_with(int n, FrId fr, Amount v) const {
  const Amount cap = node(n).is_cluster_queue ? nominal(n, fr) : subtree_quota(n, fr);
  return cap < amount_add(usage(n, fr), v);
}

std::pair<int, bool> QuotaTree::lowest_subtree_that_fits(int cq, FrId fr, Amount val) const {
  if (!borrowing_with(cq, fr, val) || !has_parent(cq)) return {0, has_parent(cq)};
  Amount remaining = amount_sub(val, local_available(cq, fr));
  int n = node(cq).parent;
  for (;; n = node(n).parent) {
    if (!borrowing_with(n, fr, remaining)) return {node(n).height, has_parent(n)};
    remaining = amount_sub(remaining, local_available(n, fr));
    if (!has_parent(n)) break;
  }
  return {node(n).height, false};
}

std::pair<bool, FrUsage> QuotaTree::quantities_fit_in_quota(int n, const FrUsage& requests) const {
  bool fits = true;
  FrUsage remaining;
  for (const auto& [fr, v] : requests) {
    if (subtree_quota(n, fr) < amount_add(usage(n, fr), v)) fits = false;
    remaining[fr] = std::max<Amount>(0, amount_sub(v, local_available(n, fr)));
  }
  return {fits, remaining};
}

bool QuotaTree::within_nominal_in(int n, const std::vector<FrId>& frs) const {
  for (FrId fr : frs) {
    if (subtree_quota(n, fr) < usage(n, fr)) return false;
  }
  return true;
}

}  // namespace kmc::engine
