// Pending workloads per ClusterQueue (pkg/cache/queue): the active heap, the
// inadmissible set and the one in-flight head, with Kueue's requeue rules
// (kueue-semantics.md §2.1): StrictFIFO puts a failed head straight back,
// BestEffortFIFO parks it until a requeue event, and equivalent workloads
// (same scheduling hash) are parked with it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine/workload_info.hpp"

namespace kmc::engine {

enum class RequeueReason {
  Generic,
  NoFit,
  PreemptionNoCandidates,
  FailedAfterNomination,
  PendingPreemption,
  PreemptionFailed,
  NamespaceMismatch,
  PendingEvaluation,
  // blockAdmission stopped the cycle before this entry: it goes back to the heap
  // unchanged, since Kueue would admit it once the scheduler wakes up.
  WaitingForPodsReady
};

class QueueManager {
 public:
  void add_cluster_queue(bool strict_fifo);
  // A ClusterQueue created again: a new heap, empty, nothing parked or kept at its head.
  void reset_cluster_queue(int cq);
  // The sticky preemptor head (#7157); off: Kueue before it.
  void set_sticky_head(bool on) { sticky_head_ = on; }
  void set_ordering(const QueueOrdering& o) { ordering_ = o; }
  size_t cluster_queue_count() const { return queues_.size(); }

  // ClusterQueue.PushOrUpdate.
  void push_or_update(const WorkloadInfo& w, TimeMs now);
  // PushActiveIfNotPresent (AddFromLocalQueue: a LocalQueue added or resumed, a
  // ClusterQueue created, Kueue restarted): into the active heap unless in
  // flight, parked or there already. It reads neither the backoff
  // (requeueAt, Requeued=False) nor the parked scheduling hashes.
  void push_active_if_not_present(const WorkloadInfo& w);
  // Pop: the head of the active heap becomes in flight; -1 if empty.
  int pop(int cq);
  // RequeueWorkload/requeueIfNotPresent after a cycle; `w` is re-read by the caller.
  void requeue(const WorkloadInfo& w, RequeueReason reason, TimeMs now,
               const std::vector<WorkloadInfo>& all);
  // Admitted or deleted: leaves every bucket. A reservation still being
  // written keeps its queue's preemptor until the write lands (clear_preemptor):
  // Kueue forgets it only when the workload controller sees the reservation.
  void forget(const WorkloadInfo& w, bool keep_preemptor = false);
  void clear_preemptor(const WorkloadInfo& w);
  // QueueInadmissibleWorkloads for one ClusterQueue.
  // `selected`: whether the ClusterQueue's namespaceSelector selects a workload's
  // namespace; one it does not stays parked (queueInadmissibleWorkloads).
  void queue_inadmissible(int cq, TimeMs now, const std::vector<WorkloadInfo>& all,
                          const std::function<bool(const WorkloadInfo&)>& selected);

  size_t active_count(int cq) const { return q(cq).active.size(); }
  size_t inadmissible_count(int cq) const { return q(cq).inadmissible.size(); }
  bool in_inadmissible(const WorkloadInfo& w) const;
  bool in_active(const WorkloadInfo& w) const;
  // The queue's preemptor, waiting for its victims to stop (preemptorWorkload,
  // #7157; ClusterQueue.IsPreemptor); -1: none. A BestEffortFIFO queue keeps
  // it at its head (the sticky head); a StrictFIFO one only tracks it.
  int preemptor(int cq) const { return q(cq).preemptor; }
  int sticky(int cq) const { return q(cq).strict_fifo ? -1 : q(cq).preemptor; }
  std::vector<int> pending_ids(int cq) const;  // active in heap order, then inadmissible

 private:
  // Heap order: sticky preemptor, higher priority, earlier timestamp, lower UID.
  using Key = std::tuple<int, std::int64_t, TimeMs, std::int64_t, int>;
  struct Pending {
    bool strict_fifo = false;
    std::set<Key> active;
    std::map<int, Key> active_keys;
    std::set<int> inadmissible;
    int inflight = -1;
    std::int64_t pop_cycle = 0, queue_inadmissible_cycle = -1;
    int preemptor = -1;
    std::set<std::string> bulk_moved_hashes;
  };
  const Pending& q(int cq) const { return queues_[static_cast<size_t>(cq)]; }
  Pending& q(int cq) { return queues_[static_cast<size_t>(cq)]; }
  Key key_of(const Pending& p, const WorkloadInfo& w) const;
  void push_active(Pending& p, const WorkloadInfo& w);
  void erase_active(Pending& p, int id);
  static bool backoff_expired(const WorkloadInfo& w, TimeMs now);

  std::vector<Pending> queues_;
  bool sticky_head_ = true;
  QueueOrdering ordering_;
};

std::string scheduling_hash(const WorkloadInfo& w);

}  // namespace kmc::engine
