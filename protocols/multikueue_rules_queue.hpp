// Queue order within a ClusterQueue, on the manager and on each worker: Kueue's
// ClusterQueue heap orders pending Workloads by priority, then by
// GetQueueOrderTimestamp (workload.go): the creation time, except for one
// evicted by an admission check or (requeuingStrategy.timestamp Eviction, the
// default) by a PodsReady timeout, which waits from its eviction's time.
//
// A copy on a worker is created there by the MultiKueue controller
// (cloneForCreate keeps no creationTimestamp), so the worker orders copies by
// when the manager got to them, not by the manager's order. Every eviction in
// this protocol is one of those two kinds: a job requeued on the manager (a
// Retry of the MultiKueue check), or a copy on a worker (a Retry of its
// ProvisioningRequest check, or a PodsReady timeout after a spot reclaim).
// So a queue's order is the order its members joined it, and the state keeps
// that as a dense rank: 1 for the first, 0 for a member not queued. Ranks move
// up when a member leaves, so two states with the same order are one state.
// Included by multikueue_rules.hpp only.
#pragma once

namespace kmc::protocols {

template <class V>
std::vector<V>& MkRules<V>::ranks(S& s, int cq) const {
  return p_.cqs[cq].cluster < 0 ? s.queue_rank : s.remote_rank;
}

template <class V>
int MkRules<V>::rank_cell(int cq, int j) const {
  const int w = p_.cqs[cq].cluster;
  return w < 0 ? j : jw(j, w);
}

template <class V>
bool MkRules<V>::shared(int cq) const {
  int n = 0;
  for (int k = 0; k < J_ && n < 2; ++k) n += p_.queues_in(cq, k);
  return n >= 2;
}

template <class V>
auto MkRules<V>::ahead(const S& s, int cq, int k, int j) const -> B {
  const std::int64_t pk = p_.priority_of(k), pj = p_.priority_of(j);
  if (pk != pj) return val_.truth(pk > pj);
  const std::vector<V>& rank = p_.cqs[cq].cluster < 0 ? s.queue_rank : s.remote_rank;
  return rank[rank_cell(cq, k)] < rank[rank_cell(cq, j)];
}

template <class V>
void MkRules<V>::enqueue(S& s, int cq, int j, const B* when) const {
  if (!shared(cq)) return;  // alone in its queue: no order to keep
  std::vector<V>& rank = ranks(s, cq);
  V queued = val_.lit(0);
  for (int k = 0; k < J_; ++k)
    if (k != j && p_.queues_in(cq, k))
      queued = queued + ite(rank[rank_cell(cq, k)] > 0, val_.lit(1), val_.lit(0));
  V& mine = rank[rank_cell(cq, j)];
  if constexpr (model::is_explicit<V>)
    KMC_ASSERT_MSG(when != nullptr || mine == 0, "a job joins a queue it is not in");
  mine = when != nullptr ? ite(*when, queued + 1, mine) : queued + 1;
}

template <class V>
void MkRules<V>::dequeue(S& s, int cq, int j, const B* when) const {
  if (!shared(cq)) return;
  std::vector<V>& rank = ranks(s, cq);
  const V mine = rank[rank_cell(cq, j)];
  // A member not queued (rank 0) leaves nothing behind it to move up.
  const B leaving = when != nullptr ? (*when && mine > 0) : mine > 0;
  for (int k = 0; k < J_; ++k) {
    if (k == j || !p_.queues_in(cq, k)) continue;
    V& theirs = rank[rank_cell(cq, k)];
    theirs = ite(leaving && theirs > mine, theirs - 1, theirs);
  }
  rank[rank_cell(cq, j)] = ite(leaving, val_.lit(0), mine);
}

// The ranks of a shared queue are 1..n over its queued members, 0 elsewhere: checked after each
// action on the queues its job is in (an action changes the ranks of no other queue).
template <class V>
void MkRules<V>::check_queue_order(const S& s, int j) const {
  if constexpr (model::is_explicit<V>) {
    // No allocation: this runs after every action wherever assertions are on.
    for (int w = -1; w < W_; ++w) {
      const int cq = w < 0 ? p_.manager_cq[j] : p_.worker_cq[w][j];
      if (cq < 0 || !shared(cq)) continue;
      const bool manager = p_.cqs[cq].cluster < 0;
      const std::vector<V>& rank = manager ? s.queue_rank : s.remote_rank;
      std::uint64_t seen = 0;
      int queued = 0;
      for (int k = 0; k < J_; ++k) {
        if (!p_.queues_in(cq, k)) continue;
        const V r = rank[rank_cell(cq, k)];
        const bool in = manager ? (s.phase[k] == kMgrPending || s.phase[k] == kMgrEvicted)
                                : s.remote[rank_cell(cq, k)] == kRemotePending;
        KMC_ASSERT_MSG(in == (r > 0), "a job has a queue rank exactly while it is queued");
        if (r > 0) seen |= std::uint64_t{1} << (r - 1), ++queued;
      }
      KMC_ASSERT_MSG(seen == (std::uint64_t{1} << queued) - 1, "queue ranks are 1..n");
    }
  }
}

}  // namespace kmc::protocols
