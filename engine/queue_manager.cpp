#include "engine/queue_manager.hpp"

#include <fmt/format.h>

namespace kmc::engine {

void QueueManager::add_cluster_queue(bool strict_fifo) {
  Pending p;
  p.strict_fifo = strict_fifo;
  queues_.push_back(std::move(p));
}

QueueManager::Key QueueManager::key_of(const Pending& p, const WorkloadInfo& w) const {
  return Key{!p.strict_fifo && p.preemptor == w.id ? 0 : 1, -w.priority(),
             w.queue_order_ms(ordering_), w.uid, w.id};
}

void QueueManager::push_active(Pending& p, const WorkloadInfo& w) {
  erase_active(p, w.id);
  p.inadmissible.erase(w.id);
  const Key k = key_of(p, w);
  p.active.insert(k);
  p.active_keys[w.id] = k;
}

void QueueManager::erase_active(Pending& p, int id) {
  auto it = p.active_keys.find(id);
  if (it == p.active_keys.end()) return;
  p.active.erase(it->second);
  p.active_keys.erase(it);
}

// backoffWaitingTimeExpired: Requeued=False blocks; else requeueAt must have passed.
bool QueueManager::backoff_expired(const WorkloadInfo& w, TimeMs now) {
  const model::Condition* c = w.condition("Requeued");
  if (c != nullptr && c->status == "False") return false;
  return !w.requeue_at_ms || now >= *w.requeue_at_ms;
}

void QueueManager::push_or_update(const WorkloadInfo& w, TimeMs now) {
  if (w.cluster_queue < 0 || !w.admissible()) return;
  Pending& p = q(w.cluster_queue);
  if (p.inflight == w.id) return;
  const bool be = !p.strict_fifo;
  // One in the active heap already is updated in place (PushOrUpdateActive):
  // the backoff and the parked hashes are read only for one that is not.
  const bool active = p.active_keys.contains(w.id);
  if (!active && (!backoff_expired(w, now) || (be && !w.scheduling_hash.empty() &&
                                               p.bulk_moved_hashes.contains(w.scheduling_hash)))) {
    erase_active(p, w.id);
    p.inadmissible.insert(w.id);
    return;
  }
  push_active(p, w);
}

void QueueManager::push_active_if_not_present(const WorkloadInfo& w) {
  if (w.cluster_queue < 0 || !w.admissible()) return;
  Pending& p = q(w.cluster_queue);
  if (p.inflight == w.id || p.inadmissible.contains(w.id) || p.active_keys.contains(w.id)) return;
  push_active(p, w);
}

int QueueManager::pop(int cq) {
  Pending& p = q(cq);
  if (p.active.empty()) return -1;
  const int id = std::get<4>(*p.active.begin());
  erase_active(p, id);
  p.pop_cycle++;
  p.inflight = id;
  return id;
}

void QueueManager::requeue(const WorkloadInfo& w, RequeueReason reason, TimeMs now,
                           const std::vector<WorkloadInfo>& all) {
  if (w.cluster_queue < 0) return;
  Pending& p = q(w.cluster_queue);
  if (p.inflight == w.id) p.inflight = -1;
  if (!w.admissible()) return;  // e.g. it got quota meanwhile
  const bool be = !p.strict_fifo;
  if (reason == RequeueReason::PendingPreemption && sticky_head_) p.preemptor = w.id;
  bool immediate = false;
  if (p.strict_fifo) {
    immediate = reason != RequeueReason::NamespaceMismatch;
  } else {
    immediate = reason == RequeueReason::FailedAfterNomination ||
                reason == RequeueReason::PendingPreemption ||
                reason == RequeueReason::PreemptionFailed ||
                reason == RequeueReason::WaitingForPodsReady;
  }
  const bool pending_flavors = w.last_assignment && w.last_assignment->pending_flavors();
  if (backoff_expired(w, now) &&
      (immediate || p.queue_inadmissible_cycle >= p.pop_cycle || pending_flavors)) {
    push_active(p, w);
    return;
  }
  if (p.inadmissible.contains(w.id) || p.active_keys.contains(w.id)) return;
  p.inadmissible.insert(w.id);
  if (be && !w.scheduling_hash.empty() &&
      (reason == RequeueReason::NoFit || reason == RequeueReason::PreemptionNoCandidates)) {
    // handleInadmissibleHash: park every equivalent workload with this head.
    const std::string& hash = w.scheduling_hash;
    p.bulk_moved_hashes.insert(hash);
    std::vector<int> moved;
    for (const auto& [id, key] : p.active_keys) {
      if (all[static_cast<size_t>(id)].scheduling_hash == hash) moved.push_back(id);
    }
    for (int id : moved) {
      erase_active(p, id);
      p.inadmissible.insert(id);
    }
  }
}

void QueueManager::reset_cluster_queue(int cq) {
  Pending fresh;
  fresh.strict_fifo = q(cq).strict_fifo;
  q(cq) = std::move(fresh);
}

void QueueManager::forget(const WorkloadInfo& w, bool keep_preemptor) {
  if (w.cluster_queue < 0) return;
  Pending& p = q(w.cluster_queue);
  erase_active(p, w.id);
  p.inadmissible.erase(w.id);
  if (p.inflight == w.id) p.inflight = -1;
  if (!keep_preemptor) clear_preemptor(w);
}

void QueueManager::clear_preemptor(const WorkloadInfo& w) {
  if (w.cluster_queue >= 0 && q(w.cluster_queue).preemptor == w.id)
    q(w.cluster_queue).preemptor = -1;
}

void QueueManager::queue_inadmissible(int cq, TimeMs now, const std::vector<WorkloadInfo>& all,
                                      const std::function<bool(const WorkloadInfo&)>& selected) {
  Pending& p = q(cq);
  p.queue_inadmissible_cycle = p.pop_cycle;
  p.bulk_moved_hashes.clear();
  const std::set<int> parked = p.inadmissible;
  for (int id : parked) {
    const WorkloadInfo& w = all[static_cast<size_t>(id)];
    if (!w.admissible()) {
      p.inadmissible.erase(id);
      continue;
    }
    if (selected(w) && backoff_expired(w, now)) push_active(p, w);
  }
}

bool QueueManager::in_inadmissible(const WorkloadInfo& w) const {
  return w.cluster_queue >= 0 && q(w.cluster_queue).inadmissible.contains(w.id);
}

bool QueueManager::in_active(const WorkloadInfo& w) const {
  return w.cluster_queue >= 0 && q(w.cluster_queue).active_keys.contains(w.id);
}

std::vector<int> QueueManager::pending_ids(int cq) const {
  std::vector<int> out;
  for (const Key& k : q(cq).active) out.push_back(std::get<4>(k));
  if (q(cq).inflight >= 0) out.push_back(q(cq).inflight);
  out.insert(out.end(), q(cq).inadmissible.begin(), q(cq).inadmissible.end());
  return out;
}

// computeSchedulingHash: priority and the pod sets' scheduling shape.
std::string scheduling_hash(const WorkloadInfo& w) {
  std::string s = fmt::format("p{}", w.priority());
  for (size_t i = 0; i < w.pod_sets.size(); ++i) {
    const PodSetRequest& ps = w.pod_sets[i];
    s += fmt::format("|{}:{}:{}", ps.name, ps.count, ps.min_count.value_or(-1));
    for (const auto& [r, v] : ps.per_pod) s += fmt::format(",{}={}", r, v);
    if (i < w.obj.pod_sets.size()) {
      for (const auto& [k, v] : w.obj.pod_sets[i].node_selector) s += fmt::format(";{}={}", k, v);
      for (const auto& t : w.obj.pod_sets[i].tolerations)
        s += fmt::format(";t{}{}{}{}", t.key, t.op, t.value, t.effect);
    }
  }
  return s;
}

}  // namespace kmc::engine
