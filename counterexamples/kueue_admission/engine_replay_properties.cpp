// The kueue-admission properties decided on the engine's own objects after a
// replayed trace: its cache, its queues, and what its scheduler does on
// scratch copies (a cycle now; the victims' pods gone). Nothing here asks
// the model: the engine's answer is the second opinion.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "counterexamples/kueue_admission/engine_replay_internal.hpp"
#include "engine/controllers.hpp"
#include "protocols/kueue_admission/rules.hpp"

namespace kmc::cx::admission {

namespace {

using engine::Engine;
using engine::WorkloadInfo;
constexpr engine::TimeMs kDayMs = 24LL * 3600 * 1000;

// Every controller, timer and scheduling cycle of the engine for a virtual day.
void run_day(Engine& e) {
  e.run(-1, e.now() + kDayMs);
}

bool holds(const WorkloadInfo& w) {
  return !w.deleted && w.counts_in_cache();
}

// Evicted, its pods terminating (or stuck), its quota still held.
bool terminating(const WorkloadInfo& w) {
  return holds(w) && w.is_evicted() && w.pods_terminating;
}

std::vector<std::string> terminating_keys(const Engine& e) {
  std::vector<std::string> out;
  for (const auto& w : e.workloads)
    if (terminating(w)) out.push_back(w.key);
  return out;
}

// The pods of every terminating victim gone (stuck ones failed), as the kubelet
// or the PodTermination controller would report it.
void pods_gone(Engine& e) {
  for (auto& w : e.workloads) {
    if (!terminating(w)) continue;
    if (w.pods_stuck)
      engine::stuck_pods_failed(e, w);
    else
      engine::pods_terminated(e, w);
  }
  settle(e);
}

std::string names(const std::vector<std::string>& keys) {
  return keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", "));
}

PropertyCheck over_admission(const Engine& e) {
  // Victims whose pods still terminate are counted as gone by Kueue's
  // scheduler (scheduler.fits): the cache may exceed a limit until they stop.
  engine::QuotaTree t = e.tree;
  for (const auto& w : e.workloads)
    if (holds(w) && w.is_evicted())
      t.remove_usage(e.cluster_queues[static_cast<std::size_t>(w.cluster_queue)].node, w.usage);
  for (const auto& cq : e.cluster_queues)
    for (int fr = 0; fr < e.frs.size(); ++fr)
      if (t.available_raw(cq.node, fr) < 0)
        return {
            true, true,
            fmt::format("ClusterQueue {}'s admitted workloads use {} {} {}, more than its "
                        "quota and its cohort allow",
                        cq.name, t.usage(cq.node, fr), e.frs.at(fr).flavor, e.frs.at(fr).resource)};
  return {true, false, "every ClusterQueue's admitted workloads fit its quota and limits"};
}

PropertyCheck counted_twice(const Engine& e) {
  for (std::size_t q = 0; q < e.cluster_queues.size(); ++q) {
    engine::FrUsage held;
    for (const auto& w : e.workloads)
      if (holds(w) && w.cluster_queue == static_cast<int>(q))
        for (const auto& [fr, v] : w.usage) held[fr] += v;
    const auto& cq = e.cluster_queues[q];
    for (int fr = 0; fr < e.frs.size(); ++fr) {
      const engine::Amount counted = e.tree.usage(cq.node, fr),
                           holders = held.contains(fr) ? held.at(fr) : 0;
      if (counted != holders)
        return {true, true,
                fmt::format("ClusterQueue {} counts {} {} {} in use, but its workloads hold {}",
                            cq.name, counted, e.frs.at(fr).flavor, e.frs.at(fr).resource, holders)};
    }
  }
  return {true, false, "every ClusterQueue's usage is what its workloads hold"};
}

// Whether a workload of ClusterQueue `cq` other than `head`, waiting in `e`,
// goes ahead in `after`: it holds quota, or it preempted a workload there.
std::string went_ahead(const Engine& e, const Engine& after, int cq, int head) {
  for (const auto& x : e.workloads) {
    if (x.id == head || x.cluster_queue != cq || holds(x) || x.deleted || x.is_finished()) continue;
    if (holds(after.workloads[static_cast<std::size_t>(x.id)]))
      return fmt::format("reserves quota for {}", x.key);
    const std::string by = fmt::format("(UID: {},", x.uid);
    for (const auto& v : after.workloads) {
      const engine::WorkloadInfo& was = e.workloads[static_cast<std::size_t>(v.id)];
      const model::Condition* c = v.condition("Preempted");
      if (!was.is_evicted() && v.is_evicted() && c != nullptr &&
          c->message.find(by) != std::string::npos)
        return fmt::format("preempts {} for {}", v.key, x.key);
    }
  }
  return "";
}

// The ClusterQueues of cq's cohort tree other than cq.
std::vector<int> cohort_peers(const Engine& e, int cq) {
  std::vector<int> out;
  const int node = e.cluster_queues[static_cast<std::size_t>(cq)].node;
  if (!e.tree.has_parent(node)) return out;
  for (std::size_t q = 0; q < e.cluster_queues.size(); ++q)
    if (static_cast<int>(q) != cq &&
        e.tree.root_of(e.cluster_queues[q].node) == e.tree.root_of(node))
      out.push_back(static_cast<int>(q));
  return out;
}

// The quota properties' probes leave out what keeps a workload out of quota
// it is entitled to without being about quota: blockAdmission's cluster-wide
// wait for PodsReady (the property that catches it is another), and the
// PodsReady timeouts the environment's budget allows (faults, not limits).
void quota_only(Engine& e) {
  e.manifests.configuration.wait_for_pods_ready.block_admission = false;
  e.pods_ready_held.reset();
  e.options.pods_ready_on_start = true;
}

PropertyCheck head_of_line(const Engine& e) {
  const auto victims = terminating_keys(e);
  for (std::size_t q = 0; q < e.cluster_queues.size() && !victims.empty(); ++q) {
    const int cq = static_cast<int>(q);
    if (e.queues.active_count(cq) == 0) continue;
    const int head = e.queues.pending_ids(cq).front();
    const WorkloadInfo& h = e.workloads[static_cast<std::size_t>(head)];
    // A cycle now: the head is popped again and nothing in its queue moves.
    Engine now = e;
    const engine::CycleStats cycle_now = now.schedule();
    settle(now);
    if (holds(now.workloads[static_cast<std::size_t>(head)]) ||
        !went_ahead(e, now, cq, head).empty())
      continue;
    // The heads of its cohort's other queues that this cycle skipped (K11).
    std::vector<int> skipped_peers;
    for (int peer : cohort_peers(e, cq)) {
      if (e.queues.active_count(peer) == 0) continue;
      const int other = e.queues.pending_ids(peer).front();
      const auto& sk = cycle_now.skipped;
      if (std::find(sk.begin(), sk.end(), other) != sk.end() &&
          went_ahead(e, now, peer, -1).empty())
        skipped_peers.push_back(peer);
    }
    // Once the victims' pods are gone, the head has its quota, and the queue goes on.
    Engine after = e;
    quota_only(after);
    pods_gone(after);
    std::string ahead, peer_ahead;
    int peer_q = -1;
    for (int cycle = 0; cycle < 8 && ahead.empty() && peer_ahead.empty(); ++cycle) {
      after.schedule();
      settle(after);
      if (!holds(after.workloads[static_cast<std::size_t>(head)])) continue;
      ahead = went_ahead(e, after, cq, head);
      for (std::size_t i = 0; i < skipped_peers.size() && peer_ahead.empty(); ++i)
        peer_ahead = went_ahead(e, after, peer_q = skipped_peers[i], -1);
    }
    if (!ahead.empty())
      return {true, true,
              fmt::format("{} heads ClusterQueue {} and waits for the pods of {} to terminate; a "
                          "cycle now changes nothing in that queue, yet once they are gone and {} "
                          "has its quota, the engine's scheduler {}",
                          h.key, e.cluster_queues[q].name, names(victims), h.key, ahead)};
    if (!peer_ahead.empty())
      return {
          true, true,
          fmt::format("{} heads ClusterQueue {} and waits for the pods of {} to terminate; a "
                      "cycle now skips the head of ClusterQueue {} in its cohort, yet once "
                      "they are gone and {} has its quota, the engine's scheduler {}",
                      h.key, e.cluster_queues[q].name, names(victims),
                      e.cluster_queues[static_cast<std::size_t>(peer_q)].name, h.key, peer_ahead)};
  }
  return {true, false, "no queue's head waits for terminating pods while another could go ahead"};
}

// Whether some sequence of the environment's events (up to `depth`; only the
// fairly scheduled ones when `fair_only`) changes key's phase from `phase`,
// each followed by a virtual day of the engine.
bool moved(const Engine& e, const protocols::ka::AdmissionParams& p, const Environment& env,
           const std::string& key, const std::string& phase, bool fair_only, int depth, int& probes,
           std::string& how) {
  for (const Move& m : env.moves) {
    if (m.kind == protocols::ka::kKubeletLost || (fair_only && !m.fair)) continue;
    if (probes-- <= 0) return false;
    Engine next = e;
    if (!apply_step(next, p, *env.manifests, m.kind, m.workload, m.check, m.cluster_queue).ok)
      continue;
    run_day(next);
    const std::string step =
        step_name(p, env.kinds.at(m.kind), m.workload, m.check, m.cluster_queue);
    const std::string then = engine_phase(next, key);
    if (then != phase) {
      how = fmt::format("after {} it is {}", step, then);
      return true;
    }
    if (depth > 1 && moved(next, p, env, key, phase, fair_only, depth - 1, probes, how)) {
      how = step + ", then " + how;
      return true;
    }
  }
  return false;
}

// Stuck (guarantee-not-stuck: any action counts) or stopped (a leads-to
// behaviour that stops: only fair ones), and within its guarantee at the end
// or, for a stop, after step `premise`.
PropertyCheck waits_forever(const Engine& e0, const protocols::ka::AdmissionParams& p,
                            const Environment& env, int w, bool fair_only,
                            std::optional<std::size_t> premise) {
  const std::string key = p.workloads[w].name;
  Engine e = e0;
  run_day(e);
  const std::string phase = engine_phase(e, key);
  if (phase != "Pending" && phase != "Inadmissible" && phase != "QuotaReserved")
    return {true, false, fmt::format("after a virtual day of the engine, {} is {}", key, phase)};
  int probes = 256;
  std::string how;
  if (moved(e, p, env, key, phase, fair_only, 3, probes, how))
    return {true, false, fmt::format("the environment may still move {}: {}", key, how)};
  const auto& cq = e.cluster_queues.at(static_cast<std::size_t>(e.find(key)->cluster_queue)).name;
  const std::string within = fmt::format(
      "the engine's scheduler would reserve quota for it within ClusterQueue {}'s nominal quota "
      "were it the only workload waiting and the pods of the evicted workloads ({}) gone",
      cq, names(terminating_keys(e)));
  const std::string day = fmt::format(
      "after a virtual day of every controller and timer, {} is {} and nothing the environment "
      "{} changes that",
      key, phase,
      fair_only ? "must eventually do (its pods terminating, stuck pods failed)" : "may still do");
  if (fair_only) {
    if (!premise)
      return {true, false, fmt::format("{} is never within its guarantee in the engine", key)};
    return {true, true,
            fmt::format("{}; yet after step {} {}", day, *premise,
                        "it was within its guarantee by the engine's scheduler, which would "
                        "have reserved quota for it within its ClusterQueue's nominal quota were "
                        "it the only workload waiting")};
  }
  if (phase == "QuotaReserved") {
    // Its reservation is within its ClusterQueue's nominal quota: only its
    // admission checks keep it from Admitted (accept-then-hang).
    const WorkloadInfo& w = *e.find(key);
    const int node = e.cluster_queues[static_cast<std::size_t>(w.cluster_queue)].node;
    for (const auto& [fr, v] : w.usage)
      if (e.tree.usage(node, fr) > e.tree.nominal(node, fr))
        return {true, false,
                fmt::format("{} holds quota its ClusterQueue {} borrows, beyond its guarantee", key,
                            cq)};
    std::vector<std::string> pending;
    for (const auto& st : w.obj.admission_checks)
      if (st.state != model::CheckState::Ready)
        pending.push_back(fmt::format("{} ({})", st.name, st.message));
    return {true, true,
            fmt::format("{}; it holds its reservation within ClusterQueue {}'s nominal quota, "
                        "and waits for its admission checks: {}",
                        day, cq, fmt::join(pending, ", "))};
  }
  if (!guaranteed_in_engine(e, key))
    return {true, false,
            fmt::format("{} waits, but is not within its guarantee in the engine: {} "
                        "would not be admitted within {}'s nominal quota even alone",
                        key, key, cq)};
  return {true, true, fmt::format("{}; yet {}", day, within)};
}

}  // namespace

bool guaranteed_in_engine(const Engine& e0, const std::string& key) {
  const WorkloadInfo* w0 = e0.find(key);
  if (w0 == nullptr || w0->deleted || !w0->admissible() || w0->cluster_queue < 0) return false;
  // A stopped queue admits nothing by its operator's choice: no guarantee holds there.
  const auto& own = e0.cluster_queues[static_cast<std::size_t>(w0->cluster_queue)];
  if (own.spec.stop_policy != model::StopPolicy::None || e0.local_queue_stopped(*w0)) return false;
  Engine e = e0;
  // Elsewhere the contract stands: what another queue borrows stays reclaimable
  // although a stopped queue is out of the scheduler's snapshot.
  for (const auto& cq : e0.cluster_queues)
    if (cq.spec.stop_policy != model::StopPolicy::None)
      engine::set_cluster_queue_stop_policy(e, cq.name, model::StopPolicy::None, false);
  // The guarantee is the contract, judged by today's scheduler: a workload within its nominal
  // quota may reclaim what others borrow. Before #6617 the integer share broke exactly that
  // (K01), so the probe uses the exact share, as it removes stuck pods for K13;
  // and victims chosen with the pods a ClusterQueue charges, which Kueue leaves out.
  e.options.integer_drs = false;
  e.options.preemption_counts_pods = true;
  quota_only(e);
  for (auto& v : e.workloads)
    if (v.id != w0->id && !v.deleted && v.admissible()) engine::delete_workload(e, v);
  const WorkloadInfo& w = e.workloads[static_cast<std::size_t>(w0->id)];
  // Were it the only workload waiting, the scheduler would look at it: a parked
  // one is requeued for the probe (the guarantee is quota, not the queue's timing).
  e.notify_requeue_inadmissible(w.cluster_queue);
  // Each round lets the victims' pods go, then a day of scheduling, which may
  // preempt again; it ends once no victim is left terminating.
  for (std::size_t round = 0; round <= e.workloads.size() && !holds(w); ++round) {
    pods_gone(e);
    run_day(e);
    if (terminating_keys(e).empty()) break;
  }
  if (!holds(w)) return false;
  const int node = e.cluster_queues[static_cast<std::size_t>(w.cluster_queue)].node;
  for (const auto& [fr, v] : w.usage)
    if (e.tree.usage(node, fr) > e.tree.nominal(node, fr)) return false;
  return true;
}

bool engine_decides(const std::string& property) {
  static const std::vector<std::string> known = {"no-over-admission",
                                                 "usage-counted-once",
                                                 "no-head-of-line-blocking",
                                                 "guarantee-not-stuck",
                                                 "guarantee-eventually-admitted",
                                                 "no-preemption-livelock",
                                                 "no-workload-for-terminating-pods",
                                                 "no-requeue-before-backoff"};
  return std::find(known.begin(), known.end(), property) != known.end();
}

PropertyCheck property_in_engine(const std::string& property, const Engine& e,
                                 const protocols::ka::AdmissionParams& p, const Environment& env,
                                 int subject, std::optional<std::size_t> premise) {
  if (property == "no-over-admission") return over_admission(e);
  if (property == "usage-counted-once") return counted_twice(e);
  if (property == "no-head-of-line-blocking") return head_of_line(e);
  if (property == "guarantee-not-stuck") return waits_forever(e, p, env, subject, false, {});
  if (property == "no-workload-for-terminating-pods") {
    for (const auto& w : e.workloads)
      if (w.readopted_from >= 0 && !w.deleted)
        return {true, true,
                fmt::format("the engine's restarted Kueue built Workload {} from the pods of the "
                            "deleted pod group, which are still terminating",
                            w.key)};
    return {true, false, "no Workload was built from a deleted pod group's pods"};
  }
  if (property == "no-requeue-before-backoff") {
    for (const auto& w : e.workloads) {
      const model::Condition* r = w.condition("Requeued");
      if (!w.deleted && r != nullptr && r->status == "False" && e.queues.in_active(w))
        return {true, true,
                fmt::format("the engine's queue manager has Workload {} in its ClusterQueue's "
                            "active heap while its backoff is ahead (Requeued=False)",
                            w.key)};
    }
    return {true, false, "no workload in backoff is in an active heap"};
  }
  // A behaviour that stops (no loop steps) where only fairly scheduled actions must happen.
  if (property == "guarantee-eventually-admitted")
    return waits_forever(e, p, env, subject, true, premise);
  return {false, false,
          fmt::format("kmc has no engine predicate for {} at a trace's end", property)};
}

}  // namespace kmc::cx::admission
