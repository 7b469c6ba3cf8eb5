#include "engine/drs.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace kmc::engine {

double Drs::precise_weighted_share() const {
  if (integer_share) return *integer_share;
  if (zero_weight_borrows()) return std::numeric_limits<double>::infinity();
  if (unweighted_ratio == 0) return 0;
  return unweighted_ratio / weight;
}

bool Drs::borrowing_on(const FrUsage& requested) const {
  for (FrId fr : borrowed_frs) {
    auto it = requested.find(fr);
    if (it != requested.end() && it->second > 0) return true;
  }
  return false;
}

int compare_drs(const Drs& a, const Drs& b) {
  auto cmp = [](double x, double y) { return x < y ? -1 : (x > y ? 1 : 0); };
  if (a.integer_share && b.integer_share) return cmp(*a.integer_share, *b.integer_share);
  const bool za = a.zero_weight_borrows(), zb = b.zero_weight_borrows();
  // Two weight-0 borrowers are both +Inf: Kueue falls back to the unweighted ratio.
  if (za && zb) return cmp(a.unweighted_ratio, b.unweighted_ratio);
  if (za) return 1;
  if (zb) return -1;
  return cmp(a.precise_weighted_share(), b.precise_weighted_share());
}

namespace {

// calculateLendable: per resource name, what the parent could ever lend,
// summed over every flavor of the root's tree.
std::map<std::string, Amount> lendable(const Engine& e, const QuotaTree& t, int parent) {
  std::map<std::string, Amount> out;
  for (FrId fr = 0; fr < t.fr_count(); ++fr) {
    Amount& slot = out[e.frs.at(fr).resource];
    slot = amount_add(slot, t.potential_available(parent, fr));
  }
  return out;
}

// Before #6617: ratio = borrowed*1000/lendable and dws = ratio*1000/weight, each an integer
// division; a weight of 0 makes any nonzero ratio the largest share. The old code's
// "borrowing" was a share that is not zero, which is what pruned small borrowers.
void to_integer_share(Drs& drs, const std::map<std::string, Amount>& borrowed,
                      const std::map<std::string, Amount>& lend) {
  std::int64_t ratio = 0;
  for (const auto& [resource, b] : borrowed) {
    auto it = lend.find(resource);
    if (it == lend.end() || it->second <= 0) continue;
    ratio = std::max<std::int64_t>(ratio, b * 1000 / it->second);
  }
  const auto weight_milli = static_cast<std::int64_t>(drs.weight * 1000.0 + 0.5);
  const std::int64_t dws = weight_milli == 0
                               ? (ratio > 0 ? std::numeric_limits<std::int64_t>::max() : 0)
                               : ratio * 1000 / weight_milli;
  drs.unweighted_ratio = static_cast<double>(ratio);
  drs.integer_share = static_cast<double>(dws);
  drs.weight = 1.0;  // the share above is already weighted; no +Inf special case remains
  drs.borrowing = dws != 0;
  if (!drs.borrowing) drs.borrowed_frs.clear();
}

}  // namespace

Drs dominant_resource_share(const Engine& e, const QuotaTree& t, int node, const FrUsage& wl_req) {
  Drs drs;
  drs.weight = e.fair_weights[static_cast<size_t>(node)];
  if (!t.has_parent(node)) return drs;
  std::map<std::string, Amount> borrowed;  // summed across flavors per resource name
  for (FrId fr = 0; fr < t.fr_count(); ++fr) {
    auto it = wl_req.find(fr);
    const Amount req = it == wl_req.end() ? 0 : it->second;
    const Amount b = amount_sub(amount_add(req, t.usage(node, fr)), t.subtree_quota(node, fr));
    if (b <= 0) continue;
    Amount& slot = borrowed[e.frs.at(fr).resource];
    slot = amount_add(slot, b);
    drs.borrowed_frs.push_back(fr);
  }
  if (borrowed.empty()) return drs;
  drs.borrowing = true;
  const std::map<std::string, Amount> lend = lendable(e, t, t.node(node).parent);
  for (const auto& [resource, b] : borrowed) {
    auto it = lend.find(resource);
    if (it == lend.end() || it->second <= 0) continue;
    const double ratio = static_cast<double>(b) * 1000.0 / static_cast<double>(it->second);
    // Ties keep the alphabetically smaller resource: the map iterates in that order.
    if (ratio > drs.unweighted_ratio) {
      drs.unweighted_ratio = ratio;
      drs.dominant_resource = resource;
    }
  }
  if (e.options.integer_drs) to_integer_share(drs, borrowed, lend);
  return drs;
}

}  // namespace kmc::engine
