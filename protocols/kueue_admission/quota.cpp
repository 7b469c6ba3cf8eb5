#include "protocols/kueue_admission/quota.hpp"

#include <algorithm>
#include <limits>

#include "model/assert.hpp"

namespace kmc::protocols::ka {

QuotaTree::QuotaTree(const AdmissionParams& p, int edits, int removed)
    : q_(p.Q()), frs_(p.F() * p.R()), r_(p.R()) {
  for (const CqParams& cq : p.cqs) fixed_.push_back(cq.fixed_flavor);
  const int n = p.Q() + p.C();
  parent_.assign(n, -1);
  nominal_.assign(n, {});
  bl_.assign(n, {});
  std::vector<std::vector<std::int64_t>> ll(n);
  for (int i = 0; i < n; ++i) {
    const QuotaNode& node = i < q_ ? p.cqs[i].quota : p.cohorts[i - q_];
    parent_[i] = node.parent < 0 ? -1 : q_ + node.parent;
    nominal_[i] = node.nominal;
    bl_[i] = node.borrowing_limit;
    ll[i] = node.lending_limit;
  }
  // Kueue recomputes the whole tree's quotas on a ClusterQueue's or Cohort's
  // update (updateCohortTreeResources), which is what building it again does.
  for (int k = 0; k < edits; ++k) {
    const QueueEdit& e = p.queue_edits[static_cast<std::size_t>(k)];
    if (e.local) continue;
    const int i = e.cohort ? q_ + e.queue : e.queue;
    // A deleted Cohort leaves an implicit one of its name for its children,
    // detached from its parent (hierarchy Manager.DeleteCohort): a root now.
    if (e.cohort && e.deletes) parent_[i] = -1;
    // A created Cohort joins the parent its manifest names (AddOrUpdateCohort).
    if (e.cohort && e.creates) parent_[i] = e.cohort_parent < 0 ? -1 : q_ + e.cohort_parent;
    for (const QuotaSet& c : e.quotas) {
      if (c.nominal) nominal_[i][c.fr] = *c.nominal;
      if (c.borrowing_limit) bl_[i][c.fr] = *c.borrowing_limit;
      if (c.lending_limit) ll[i][c.fr] = *c.lending_limit;
    }
  }
  // A ClusterQueue gone from the cache (cache.DeleteClusterQueue) adds nothing
  // to its cohort's subtree quota: as a leaf without quota, it holds nothing either.
  for (std::size_t b = 0; b < p.deleted_cqs.size(); ++b)
    if (removed >> b & 1) {
      const int i = p.deleted_cqs[b];
      std::fill(nominal_[i].begin(), nominal_[i].end(), 0);
      std::fill(bl_[i].begin(), bl_[i].end(), kNoLimit);
      std::fill(ll[i].begin(), ll[i].end(), kNoLimit);
    }
  // Heights and subtree quotas bottom-up: a node's children all come before
  // it in an order by depth, deepest first.
  std::vector<int> depth(n, 0), order(n);
  for (int i = 0; i < n; ++i)
    for (int a = parent_[i]; a >= 0; a = parent_[a]) ++depth[i];
  for (int i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return depth[a] > depth[b]; });
  height_.assign(n, 0);
  st_ = nominal_;
  lq_.assign(n, std::vector<std::int64_t>(frs_, 0));
  for (int i : order) {
    for (int fr = 0; fr < frs_; ++fr)
      lq_[i][fr] = ll[i][fr] == kNoLimit ? 0 : std::max<std::int64_t>(0, st_[i][fr] - ll[i][fr]);
    const int up = parent_[i];
    if (up < 0) continue;
    for (int fr = 0; fr < frs_; ++fr) st_[up][fr] += st_[i][fr] - lq_[i][fr];
    // height(cohort) = max(min(#children, 1), max over child cohorts of height + 1)
    height_[up] = std::max({height_[up], 1, is_cq(i) ? 0 : height_[i] + 1});
  }
}

int QuotaTree::root(int n) const {
  while (parent_[n] >= 0) n = parent_[n];
  return n;
}

bool QuotaTree::contains(int a, int b) const {
  for (; b >= 0; b = parent_[b])
    if (b == a) return true;
  return false;
}

std::vector<int> QuotaTree::ancestors(int n) const {
  std::vector<int> out;
  for (int a = parent_[n]; a >= 0; a = parent_[a]) out.push_back(a);
  return out;
}

std::int64_t QuotaTree::potential_available(int n, int fr) const {
  if (parent_[n] < 0) return st_[n][fr];
  std::int64_t v = lq_[n][fr] + potential_available(parent_[n], fr);
  if (bl_[n][fr] != kNoLimit) v = std::min(v, st_[n][fr] + bl_[n][fr]);
  return v;
}

void Snapshot::refresh() {
  const QuotaTree& t = *tree_;
  const int k = t.frs();
  for (int n = 0; n < t.nodes(); ++n)
    if (!t.is_cq(n))
      for (int fr = 0; fr < k; ++fr) u_[n * k + fr] = 0;
  // Each node adds what it stores above its local quota to its parent, deepest first.
  std::vector<int> order;
  for (int n = 0; n < t.nodes(); ++n) order.push_back(n);
  std::vector<int> depth(t.nodes(), 0);
  for (int n = 0; n < t.nodes(); ++n)
    for (int a = t.parent(n); a >= 0; a = t.parent(a)) ++depth[n];
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return depth[a] > depth[b]; });
  for (int n : order) {
    const int up = t.parent(n);
    if (up < 0) continue;
    for (int fr = 0; fr < k; ++fr)
      u_[up * k + fr] += std::max<std::int64_t>(0, u_[n * k + fr] - t.local_quota(n, fr));
  }
}

void Snapshot::add(int cq, int f, const std::vector<std::int64_t>& req, int sign) {
  const int R = static_cast<int>(req.size()), k = tree_->frs();
  KMC_ASSERT_MSG(tree_->is_cq(cq) && f >= 0 && (f + 1) * R <= k, "usage of a flavor the cell has");
  for (int r = 0; r < R; ++r) u_[cq * k + tree_->cell(cq, f, r)] += sign * req[r];
  refresh();
}

void Snapshot::add_cells(int cq, const std::vector<std::int64_t>& cells, int sign) {
  const int k = tree_->frs();
  KMC_ASSERT(tree_->is_cq(cq) && static_cast<int>(cells.size()) == k);
  for (int fr = 0; fr < k; ++fr) u_[cq * k + fr] += sign * cells[fr];
  refresh();
}

std::int64_t Snapshot::local_available(int n, int fr) const {
  return std::max<std::int64_t>(0, tree_->local_quota(n, fr) - usage(n, fr));
}

std::int64_t Snapshot::available_raw(int n, int fr) const {
  const QuotaTree& t = *tree_;
  const int up = t.parent(n);
  if (up < 0) return t.subtree_quota(n, fr) - usage(n, fr);
  if (skip_cohort_)  // broken: only the ClusterQueue's own nominal and borrowing limit count
    return t.borrowing_limit(n, fr) == kNoLimit
               ? std::numeric_limits<std::int64_t>::max() / 4
               : t.subtree_quota(n, fr) + t.borrowing_limit(n, fr) - usage(n, fr);
  std::int64_t pa = available_raw(up, fr);
  if (t.borrowing_limit(n, fr) != kNoLimit) {
    const std::int64_t stored = t.subtree_quota(n, fr) - t.local_quota(n, fr);
    const std::int64_t used = std::max<std::int64_t>(0, usage(n, fr) - t.local_quota(n, fr));
    pa = std::min(pa, stored - used + t.borrowing_limit(n, fr));
  }
  return local_available(n, fr) + pa;
}

std::int64_t Snapshot::available(int cq, int fr) const {
  return std::max<std::int64_t>(0, available_raw(cq, fr));
}

bool Snapshot::borrowing_with(int n, int fr, std::int64_t v) const {
  return tree_->subtree_quota(n, fr) < usage(n, fr) + v;
}

std::pair<int, bool> Snapshot::lowest_fitting_height(int cq, int fr, std::int64_t v) const {
  const QuotaTree& t = *tree_;
  const bool has_parent = t.parent(cq) >= 0;
  if (!borrowing_with(cq, fr, v) || !has_parent) return {0, has_parent};
  std::int64_t remaining = v - local_available(cq, fr);
  int node = t.parent(cq);
  for (; node >= 0; node = t.parent(node)) {
    if (!borrowing_with(node, fr, remaining)) return {t.height(node), t.parent(node) >= 0};
    remaining -= local_available(node, fr);
    if (t.parent(node) < 0) break;
  }
  return {t.height(t.root(cq)), false};
}

}  // namespace kmc::protocols::ka
