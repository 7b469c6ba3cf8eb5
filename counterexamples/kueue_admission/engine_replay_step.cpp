// One step of a kueue-admission trace in the engine, and the engine read
// back as the protocol's cells.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "counterexamples/kueue_admission/engine_replay_internal.hpp"
#include "engine/controllers.hpp"
#include "model/assert.hpp"
#include "protocols/kueue_admission/rules.hpp"

namespace kmc::cx::admission {

namespace {

using namespace protocols::ka;  // Kind

// The reactions settle() runs: quota released after a stop, and the batched requeue.
bool immediate(const engine::Event& e) {
  return std::holds_alternative<engine::ev::JobStopped>(e) ||
         std::holds_alternative<engine::ev::RequeueInadmissible>(e);
}

// The protocol's name for an engine workload: a re-adopted one is its
// original's name, marked (protocols::ka::kReadoptedSuffix).
std::string model_name(const engine::WorkloadInfo& w) {
  return w.readopted_from >= 0 ? w.key + kReadoptedSuffix : w.key;
}

// The engine workload a protocol name stands for, deleted or not: the
// original Workload of that key, or the Workload re-adopted from its pods.
const engine::WorkloadInfo* resolve(const engine::Engine& e, const std::string& name) {
  const std::string suffix = kReadoptedSuffix;
  const bool readopted = name.size() > suffix.size() &&
                         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  const std::string key = readopted ? name.substr(0, name.size() - suffix.size()) : name;
  const engine::WorkloadInfo* out = nullptr;
  for (const auto& w : e.workloads)
    if (w.key == key && (w.readopted_from >= 0) == readopted && (out == nullptr || readopted))
      out = &w;
  return out;
}

// One cycle with a fault picked for the eviction of workload `id` (the
// engine's `pick`, reset to -1 by the cycle once it struck): whether it struck.
bool cycle_with_pick(engine::Engine& e, int& pick, int id) {
  pick = id;
  settle(e);
  e.schedule();
  settle(e);
  const bool struck = pick < 0;
  pick = -1;
  return struck;
}

// The same, while it exists.
const engine::WorkloadInfo* find(const engine::Engine& e, const std::string& name) {
  const engine::WorkloadInfo* w = resolve(e, name);
  return w == nullptr || w->deleted ? nullptr : w;
}

bool in_cache(const engine::Engine& e, const engine::WorkloadInfo& w) {
  return w.cluster_queue >= 0 &&
         e.cq_workloads[static_cast<std::size_t>(w.cluster_queue)].contains(w.id);
}

// The flavor the workload holds quota in: its admission's flavors, one name
// per distinct flavor ("a+b" when its pod sets or resources got several).
// Where its ClusterQueue has several resource groups, the model's `flavor` is
// that of the group with several flavors (or of the first): the flavors of the
// other groups, one each, are left out.
std::string held_flavor(const engine::Engine& e, const engine::WorkloadInfo& w) {
  if (!in_cache(e, w) || !w.obj.admission) return "";
  const auto& groups =
      e.cluster_queues[static_cast<std::size_t>(w.cluster_queue)].spec.resource_groups;
  std::set<std::string> fixed;
  if (groups.size() > 1) {
    std::size_t chosen = 0;
    for (std::size_t g = 0; g < groups.size(); ++g)
      if (groups[g].flavors.size() > 1) chosen = g;
    for (std::size_t g = 0; g < groups.size(); ++g)
      if (g != chosen)
        for (const auto& fq : groups[g].flavors) fixed.insert(fq.name);
  }
  std::set<std::string> flavors;
  for (const auto& psa : w.obj.admission->pod_set_assignments)
    for (const auto& [r, f] : psa.flavors)
      if (!fixed.contains(f)) flavors.insert(f);
  // One that requested nothing of the group with several flavors: the model
  // records that group's first (compile_workload).
  if (flavors.empty() && !fixed.empty())
    for (const auto& g : groups)
      if (!g.flavors.empty() && !fixed.contains(g.flavors[0].name)) return g.flavors[0].name;
  return fmt::format("{}", fmt::join(flavors, "+"));
}

Outcome refuse(const engine::Engine& e, const std::string& key, const std::string& why) {
  return {false, fmt::format("{} {} in the engine (it is {})", key, why, engine_phase(e, key))};
}

}  // namespace

std::map<std::string, std::string> all_phases(const engine::Engine& e) {
  std::map<std::string, std::string> out;
  for (const auto& w : e.workloads) out[model_name(w)] = engine_phase(e, model_name(w));
  return out;
}

// "research/sweep Admitted -> Evicted; research/train-a Pending -> Admitted".
std::string changes(const std::map<std::string, std::string>& before, const engine::Engine& e) {
  std::vector<std::string> out;
  for (const auto& [key, now] : all_phases(e)) {
    auto it = before.find(key);
    const std::string was = it == before.end() ? "Absent" : it->second;
    if (was != now) out.push_back(fmt::format("{} {} -> {}", key, was, now));
  }
  return out.empty() ? "no workload changed phase" : fmt::format("{}", fmt::join(out, "; "));
}

engine::Engine make_engine(const model::Scenario& sc, const protocols::ka::AdmissionParams& p) {
  model::ClusterManifests m = sc.manager;
  std::erase_if(m.workloads, [&](const model::Workload& w) {
    const std::string key = w.meta.namespace_ + "/" + w.meta.name;
    return std::any_of(p.workloads.begin(), p.workloads.end(),
                       [&](const auto& x) { return x.arrives && x.name == key; });
  });
  for (auto& w : m.workloads) w.runtime_s = 0;  // jobs finish when the trace says so
  engine::EngineOptions o;
  o.job_stop_delay_ms = 0;  // a Job's terminating pods do not count: released at eviction
  o.pod_termination_on_event = true;
  o.sticky_preemptor_head = p.sticky_head;
  o.integer_drs = p.integer_drs;
  o.recheck_in_cycle = p.recheck_in_cycle;
  o.multiple_preemptions = p.multiple_preemptions;
  o.readopt_terminating_pod_groups = p.readopt_terminating_groups;
  o.admission_write_failures = p.admission_write_failures;
  o.late_admission_writes = p.late_admission_writes;
  o.satisfy_expectation_on_admission = p.satisfy_expectation_on_admission;
  // Late pods where blockAdmission waits on them and a timeout may evict them.
  o.pods_ready_on_start = !p.pods_may_be_late();
  if (p.pods_may_be_late()) o.pods_ready_timeouts_left = p.pods_ready_timeouts;
  engine::Engine e(m, o);
  // A queue whose first edit creates it does not exist yet
  // (compile_queue_creations refuses a workload holding quota through a
  // ClusterQueue or LocalQueue of such an edit). One created again after its
  // deletion exists until then.
  std::set<std::pair<int, int>> named;  // (kind: 0 ClusterQueue, 1 LocalQueue, 2 Cohort, queue)
  for (const auto& edit : p.queue_edits) {
    const int kind = edit.local ? 1 : edit.cohort ? 2 : 0;
    if (!named.insert({kind, edit.queue}).second || !edit.creates) continue;
    const auto q = static_cast<std::size_t>(edit.queue);
    if (edit.cohort) {
      KMC_ASSERT(engine::cohort_absent(e, p.cohorts[q].name));
    } else if (edit.local) {
      const auto& name = p.local_queues[q].name;
      const auto slash = name.find('/');
      KMC_ASSERT(engine::local_queue_absent(e, name.substr(0, slash), name.substr(slash + 1)));
    } else {
      KMC_ASSERT(engine::cluster_queue_absent(e, p.cqs[q].quota.name));
    }
  }
  settle(e);
  engine::reconcile_all_workloads(e);
  settle(e);
  return e;
}

void settle(engine::Engine& e) {
  for (int n = 0; !e.events.empty(); ++n) {
    KMC_ASSERT(n < 1000000);
    if (e.events.next_time() > e.now_ms && !immediate(e.events.next_event())) break;
    e.now_ms = std::max(e.now_ms, e.events.next_time());
    e.handle(e.events.pop().second);
  }
}

Outcome apply_step(engine::Engine& e, const protocols::ka::AdmissionParams& p,
                   const model::ClusterManifests& m, int kind, int workload, int check_index,
                   int cluster_queue) {
  // Each step is its own instant, after every earlier one: an eviction's time
  // (the queue order of a workload a check evicted) and an arrival's creation
  // are then ordered as the trace took them, as the model's timeline has them.
  e.now_ms += 1;
  const auto before = all_phases(e);
  const std::string key = workload >= 0 ? p.workloads[workload].name : "";
  if (kind == kArrive) {
    if (find(e, key) != nullptr) return refuse(e, key, "exists already");
    auto it = std::find_if(m.workloads.begin(), m.workloads.end(), [&](const model::Workload& x) {
      return x.meta.namespace_ + "/" + x.meta.name == key;
    });
    KMC_ASSERT_MSG(it != m.workloads.end(), "an arrival is one of the scenario's workloads");
    model::Workload obj = *it;
    obj.runtime_s = 0;  // its job finishes when the trace says so
    e.create_workload(std::move(obj));
    settle(e);
    return {true, key + " was created and queued: " + changes(before, e)};
  }
  // A deleted pod group's pods go on terminating (or get stuck) after it.
  if (workload >= 0 && (kind == kPodsTerminated || kind == kKubeletLost)) {
    auto* gone = const_cast<engine::WorkloadInfo*>(resolve(e, key));
    if (gone != nullptr && gone->deleted) {
      if (!gone->pods_terminating || gone->pods_stuck)
        return refuse(e, key, "has no terminating pods");
      if (kind == kPodsTerminated) {
        engine::pods_terminated(e, *gone);
      } else {
        engine::pods_stuck_terminating(e, *gone);
      }
      settle(e);
      return {true, kind == kPodsTerminated
                        ? "the deleted group's pods are gone: " + changes(before, e)
                        : "the deleted group's pods are stuck terminating on a node whose "
                          "kubelet is gone"};
    }
  }
  const engine::WorkloadInfo* w = workload >= 0 ? find(e, key) : nullptr;
  if (workload >= 0 && w == nullptr) return {false, key + " is not in the engine"};
  auto post = [&](engine::Event ev) {
    e.post(e.now(), std::move(ev));
    settle(e);
  };
  switch (static_cast<Kind>(kind)) {
    case kSchedule: {
      settle(e);
      // The model's goroutine wakes only with every workload PodsReady, as the engine's does.
      const bool held = e.pods_ready_blocked();
      if (held && e.waiting_for_pods_ready())
        return {false, "the engine's scheduler still sleeps in WaitForPodsReady"};
      const engine::CycleStats s = e.schedule();
      settle(e);
      if (held)
        return {true, "the woken scheduler admits the entry it held: " + changes(before, e)};
      if (s.heads == 0) return {false, "the engine's queues had no head to pop"};
      return {true, fmt::format("one cycle, {} head{}: {}", s.heads, s.heads == 1 ? "" : "s",
                                changes(before, e))};
    }
    case kEvictionWriteFailed:
      if (!cycle_with_pick(e, e.fail_next_eviction, w->id))
        return refuse(e, key, "was not evicted by the engine's cycle");
      return {true, fmt::format("one cycle, whose eviction patch of {} failed: {}", key,
                                changes(before, e))};
    case kEvictionOverwritten:
      if (!cycle_with_pick(e, e.overwrite_next_eviction, w->id))
        return refuse(e, key, "was not evicted by the engine's cycle with its admission in flight");
      return {true, fmt::format("one cycle, whose eviction of {} its late admission patch "
                                "overwrote: {}",
                                key, changes(before, e))};
    case kFinish:
      // An evicted job is being stopped: its pods are terminating, not completing.
      if (!w->job_active || !w->is_admitted() || w->is_evicted())
        return refuse(e, key, "has no running job");
      post(engine::ev::JobFinished{key});
      return {find(e, key)->is_finished(),
              "the job completed: " + key + " is Finished, its quota released"};
    case kPodsTerminated:
      if (!w->pods_terminating || w->pods_stuck) return refuse(e, key, "has no terminating pods");
      post(engine::ev::PodsTerminated{key});
      return {!find(e, key)->has_quota_reservation(),
              "its pods are gone: the job reconciler released the quota; " + changes(before, e)};
    case kKubeletLost:
      if (!w->pods_terminating || w->pods_stuck) return refuse(e, key, "has no terminating pods");
      post(engine::ev::PodsStuckTerminating{key});
      return {find(e, key)->pods_stuck,
              "its pods are stuck terminating on a node whose kubelet is gone; the quota stays"};
    case kRestart:
      engine::restart_kueue(e);
      settle(e);
      return {true,
              "Kueue restarted and rebuilt its queues from the Workloads: " + changes(before, e)};
    case kForceFail:
      if (!w->pods_stuck) return refuse(e, key, "has no pods stuck terminating");
      post(engine::ev::StuckPodsFailed{key});
      return {!find(e, key)->has_quota_reservation(),
              "the PodTermination controller failed the stuck pods: " + changes(before, e)};
    case kArrive:
      break;  // handled above: the workload is not in the engine yet
    case kDelete:
      engine::delete_by_user(e, *const_cast<engine::WorkloadInfo*>(w));
      settle(e);
      return {true, "the user deleted it: " + changes(before, e)};
    case kProvisioned:
    case kProvisioningFailed: {
      const std::string& check = p.checks[static_cast<std::size_t>(check_index)].name;
      auto* mut = const_cast<engine::WorkloadInfo*>(w);
      auto st = std::find_if(w->obj.admission_checks.begin(), w->obj.admission_checks.end(),
                             [&](const auto& c) { return c.name == check; });
      if (!w->has_quota_reservation() || w->is_admitted() || st == w->obj.admission_checks.end())
        return refuse(e, key, "waits for no check " + check);
      if (w->admission_in_flight)
        return refuse(e, key, "has no ProvisioningRequest yet: its admission patch is in flight");
      // A request already Provisioned can only see its booking expire.
      const bool booked = st->state == model::CheckState::Ready;
      // The scenario's autoscaler (kmc.yaml autoscaler.answer) bounds what it may say.
      if (kind == kProvisioned && !p.may_provision(check_index))
        return refuse(e, key, "is never provisioned by this autoscaler (" + check + ")");
      if (kind == kProvisioningFailed && !booked && !p.may_fail(check_index))
        return refuse(e, key, "is never failed by this autoscaler (" + check + ")");
      const std::string cond = kind == kProvisioned ? "Provisioned"
                               : booked             ? "BookingExpired"
                                                    : "Failed";
      engine::provisioning_condition(e, *mut, check, cond);
      settle(e);
      return {true, fmt::format("the autoscaler set the ProvisioningRequest of {} for check {} "
                                "{}: {}",
                                key, check, cond, changes(before, e))};
    }
    case kPodsReadyTimeout:
      if (!engine::time_out_pods_ready(e, *const_cast<engine::WorkloadInfo*>(w)))
        return refuse(e, key, "has no admitted job whose pods could time out");
      settle(e);
      return {true, "its pods were not ready by waitForPodsReady's timeout: " + changes(before, e)};
    case kPodFailed:
      if (!w->job_active || !w->pods_ready || w->is_evicted())
        return refuse(e, key, "has no running job whose pods are all ready");
      post(engine::ev::PodsNotReady{key});
      return {!find(e, key)->pods_ready,
              "a pod failed: PodsReady False (WaitForRecovery); " + changes(before, e)};
    case kPodsReady:
      if (!w->job_active || w->pods_ready || w->is_evicted())
        return refuse(e, key, "has no running job whose pods are not ready");
      post(engine::ev::PodsReady{key});
      return {find(e, key)->pods_ready,
              "its pods are all ready: PodsReady True; " + changes(before, e)};
    case kAdmissionWritten:
      if (!engine::land_admission_write(e, *const_cast<engine::WorkloadInfo*>(w)))
        return refuse(e, key, "has no admission patch in flight");
      settle(e);
      return {true, "its admission patch reached the API server: " + changes(before, e)};
    case kAdmissionWriteFailed:
      if (!engine::fail_admission_write(e, *const_cast<engine::WorkloadInfo*>(w)))
        return refuse(e, key, "has no admission patch in flight that may fail");
      settle(e);
      return {true,
              "its admission patch failed: the cache forgot it and it is back in its "
              "queue; " +
                  changes(before, e)};
    case kCapacityRevoked: {
      const std::string& check = p.checks[static_cast<std::size_t>(check_index)].name;
      if (!w->has_quota_reservation() || w->is_evicted() || w->admission_in_flight)
        return refuse(e, key, "holds no quota");
      engine::provisioning_condition(e, *const_cast<engine::WorkloadInfo*>(w), check,
                                     "CapacityRevoked");
      settle(e);
      return {true, fmt::format("the autoscaler revoked the capacity of the ProvisioningRequest "
                                "of {} for check {}: {}",
                                key, check, changes(before, e))};
    }
    case kQueueEdited:
      return apply_queue_edit(e, p);
    case kClusterQueueFinalized: {
      const std::string& queue = p.cqs[static_cast<std::size_t>(cluster_queue)].quota.name;
      if (!engine::finalize_cluster_queue(e, queue))
        return {false, fmt::format("ClusterQueue {} is not terminating with no workload holding "
                                   "quota in it",
                                   queue)};
      settle(e);
      return {true, fmt::format("the ClusterQueue controller removed ClusterQueue {}'s finalizer: "
                                "it is gone, its quota out of its cohort: {}",
                                queue, changes(before, e))};
    }
    case kClusterQueueTerminating: {
      const std::string& queue = p.cqs[static_cast<std::size_t>(cluster_queue)].quota.name;
      if (!engine::terminate_cluster_queue(e, queue))
        return {false,
                fmt::format("ClusterQueue {} is not deleted, or terminating already", queue)};
      settle(e);
      return {true, fmt::format("the ClusterQueue controller marked ClusterQueue {} terminating: "
                                "it admits nothing more: {}",
                                queue, changes(before, e))};
    }
    case kQueueStopped: {
      engine::reconcile_stop_policy(e, *const_cast<engine::WorkloadInfo*>(w));
      settle(e);
      const std::string did = changes(before, e);
      if (all_phases(e) == before)
        return refuse(e, key, "is not acted on for a stopped or deleted queue");
      return {true, "the workload controller acted on it for its stopped or deleted queue: " + did};
    }
    case kBackoffExpired:
      if (!engine::expire_backoff(e, *const_cast<engine::WorkloadInfo*>(w)))
        return refuse(e, key, "waits for no backoff");
      settle(e);
      return {true, "its backoff passed and it is back in its queue: " + changes(before, e)};
  }
  return {false, "not an action of kueue-admission"};
}

std::string engine_phase(const engine::Engine& e, const std::string& key) {
  const engine::WorkloadInfo* w = resolve(e, key);
  if (w == nullptr) return "Absent";
  if (w->deleted) {
    if (w->readopted_from >= 0 || !w->pods_terminating) return "Deleted";
    return w->pods_stuck ? "DeletedPodsStuck" : "DeletedPodsTerminating";
  }
  if (w->is_finished()) return "Finished";
  if (in_cache(e, *w)) {
    if (w->is_evicted()) return w->pods_stuck ? "StuckTerminating" : "Evicted";
    return w->is_admitted() ? "Admitted" : "QuotaReserved";
  }
  if (!w->obj.active) return "Deactivated";
  // Requeued=False: its backoff is ahead. It is out of the heaps, unless a
  // LocalQueue's addition pushed it there anyway (AddFromLocalQueue).
  if (const model::Condition* r = w->condition("Requeued"); r != nullptr && r->status == "False")
    return e.queues.in_active(*w) ? "PendingInBackoff" : "Backoff";
  if (w->cluster_queue < 0) return "Pending (no ClusterQueue)";
  // Requeued, with a requeueAt ahead all the same (a dump's): the queue keeps it
  // parked until then (backoffWaitingTimeExpired), and nothing else moves it.
  if (e.queues.in_inadmissible(*w) && w->requeue_at_ms && *w->requeue_at_ms > e.now_ms)
    return "Backoff";
  if (e.queues.in_inadmissible(*w)) return "Inadmissible";
  // A stopped LocalQueue's workloads are out of the queues, and still Pending.
  if (e.local_queue_stopped(*w)) return "Pending";
  const auto ids = e.queues.pending_ids(w->cluster_queue);
  if (std::find(ids.begin(), ids.end(), w->id) == ids.end()) return "Pending (in no queue)";
  return "Pending";
}

std::vector<model::Cell> engine_cells(const engine::Engine& e, const model::Cells& like) {
  std::vector<model::Cell> out;
  for (const model::Cell& c : like.all()) {
    model::Cell mine{c.field, c.entity, std::string()};
    if (c.field == "phase") {
      mine.value = engine_phase(e, c.entity.at(0));
    } else if (c.field == "flavor") {
      const engine::WorkloadInfo* w = find(e, c.entity.at(0));
      mine.value = w == nullptr ? "" : held_flavor(e, *w);
    } else if (c.field == "usage") {
      const int cq = e.cq_index(c.entity.at(0));
      const engine::FrId fr = e.frs.find(c.entity.at(1), c.entity.at(2));
      mine.value = cq < 0 || fr < 0 ? std::int64_t{0} : e.tree.usage(e.cluster_queues[cq].node, fr);
    } else if (c.field == "sticky") {
      const int cq = e.cq_index(c.entity.at(0));
      const bool tracked = e.gate("PrioritizePreemptorWorkloads");  // StrictFIFO's too
      const int id = cq < 0 ? -1 : tracked ? e.queues.preemptor(cq) : e.queues.sticky(cq);
      mine.value = id < 0 ? "" : model_name(e.workloads[static_cast<std::size_t>(id)]);
    } else if (c.field == "retries") {
      // The check's retryCount in the Workload's status; a Retry check holding
      // the reservation counts the attempt its eviction will add
      // (resetChecksOnEviction), as the model counts it at the Retry.
      const engine::WorkloadInfo* w = find(e, c.entity.at(0));
      std::int64_t n = 0;
      if (w != nullptr)
        for (const auto& st : w->obj.admission_checks)
          if (st.name == c.entity.at(1))
            n = st.retry_count + (st.state == model::CheckState::Retry &&
                                          w->has_quota_reservation() && !w->is_evicted()
                                      ? 1
                                      : 0);
      mine.value = n;
    } else if (c.field == "unready") {
      // A running job whose pods are not all ready, while it holds quota: 2
      // once they had been (WaitForRecovery), else 1.
      const engine::WorkloadInfo* w = find(e, c.entity.at(0));
      std::int64_t v = 0;
      if (w != nullptr && in_cache(e, *w) && w->job_active && !w->pods_ready) {
        const model::Condition* r = w->condition("PodsReady");
        v = r != nullptr && r->reason == "WaitForRecovery" ? kRecovering : kNotStarted;
      }
      mine.value = v;
    } else if (c.field == "writing") {
      const engine::WorkloadInfo* w = find(e, c.entity.at(0));
      mine.value = std::int64_t{w != nullptr && w->admission_in_flight ? 1 : 0};
    } else if (c.field == "expecting") {
      // An expectation the preemptors read: of a workload holding quota, unevicted.
      const engine::WorkloadInfo* w = find(e, c.entity.at(0));
      mine.value = std::int64_t{w != nullptr && w->preemption_expected && in_cache(e, *w) &&
                                        !w->is_evicted() && !w->is_finished()
                                    ? 1
                                    : 0};
    } else if (c.field == "deletion") {
      const int cq = e.cq_index(c.entity.at(0));
      const engine::ClusterQueueInfo* q =
          cq < 0 ? nullptr : &e.cluster_queues[static_cast<size_t>(cq)];
      mine.value = std::string(q != nullptr && q->removed       ? "Gone"
                               : q != nullptr && q->terminating ? "Terminating"
                                                                : "InCache");
    } else {
      continue;  // rank, budget, ready, requeued, born, before_edit, reclaimed: nothing to
                 // compare with
    }
    out.push_back(std::move(mine));
  }
  return out;
}

std::vector<std::string> cell_differences(const engine::Engine& e, const model::Cells& trace) {
  std::vector<std::string> out;
  for (const model::Cell& mine : engine_cells(e, trace)) {
    const model::CellValue* theirs = trace.find(mine.field, mine.entity);
    KMC_ASSERT(theirs != nullptr);
    if (*theirs == mine.value) continue;
    out.push_back(fmt::format("{}: trace {}, engine {}", model::key_text(mine.field, mine.entity),
                              model::to_string(*theirs), model::to_string(mine.value)));
  }
  return out;
}

}  // namespace kmc::cx::admission
