#include "protocols/kueue_admission/fair_sharing.hpp"

#include <algorithm>
#include <limits>

namespace kmc::protocols::ka {

Drs drs(const AdmissionParams& p, const Snapshot& snap, int cq,
        const std::vector<std::int64_t>& extra) {
  const QuotaTree& tree = snap.tree();  // quotas after the edits so far
  Drs d;
  const int up = tree.parent(cq);
  if (up < 0) return d;  // roots and standalone queues never borrow
  const int R = p.R(), F = p.F();
  const std::int64_t weight = p.cqs[cq].fair_weight_milli;
  d.zero_weight = weight == 0;
  for (int r = 0; r < R; ++r) {
    std::int64_t borrowed = 0, lendable = 0;
    for (int f = 0; f < F; ++f) {
      const int fr = p.fr(f, r);
      const std::int64_t b =
          (extra.empty() ? 0 : extra[fr]) + snap.usage(cq, fr) - tree.subtree_quota(cq, fr);
      if (b > 0) borrowed += b, d.borrowing = true;
      lendable += tree.potential_available(up, fr);
    }
    if (lendable <= 0 || borrowed <= 0) continue;
    double ratio;
    if (p.integer_drs) {  // before #6617: ratio = b*1000/lr, dws = ratio*1000/weight, in integers
      const std::int64_t r_int = borrowed * 1000 / lendable;
      ratio = static_cast<double>(r_int);
    } else {
      ratio = static_cast<double>(borrowed) * 1000.0 / static_cast<double>(lendable);
    }
    d.ratio = std::max(d.ratio, ratio);
  }
  if (p.integer_drs) {
    const std::int64_t dws = weight == 0
                                 ? (d.ratio > 0 ? std::numeric_limits<std::int64_t>::max() : 0)
                                 : static_cast<std::int64_t>(d.ratio) * 1000 / weight;
    d.weighted = static_cast<double>(dws);
    d.zero_weight = false;
    d.borrowing = dws != 0;  // the old code's "borrowing": a share that is not zero
    return d;
  }
  // PreciseWeightedShare: the ratio divided by the weight as a float64, the
  // same operations, so that shares equal in Kueue are equal here too.
  d.weighted = d.ratio == 0  ? 0
               : weight == 0 ? std::numeric_limits<double>::infinity()
                             : d.ratio / (static_cast<double>(weight) / 1000.0);
  return d;
}

int compare_drs(const Drs& a, const Drs& b) {
  const bool za = a.zero_weight && a.ratio != 0, zb = b.zero_weight && b.ratio != 0;
  auto cmp = [](double x, double y) { return x < y ? -1 : x > y ? 1 : 0; };
  if (za && zb) return cmp(a.ratio, b.ratio);
  if (za) return 1;
  if (zb) return -1;
  return cmp(a.weighted, b.weighted);
}

}  // namespace kmc::protocols::ka
