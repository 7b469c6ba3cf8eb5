#include "engine/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string_view>

#include "engine/controllers.hpp"
#include "engine/lookup.hpp"
#include "model/dump_clock.hpp"
#include "model/label_selector.hpp"

namespace kmc::engine {

namespace {

std::optional<Amount> opt_value(const std::string& res, const std::optional<model::Quantity>& q) {
  if (!q) return std::nullopt;
  return resource_value(res, *q);
}

}  // namespace

void Snapshot::add_workload(int cq_node, int cq, const WorkloadInfo& w) {
  tree.add_usage(cq_node, w.usage);
  workloads[static_cast<size_t>(cq)].insert(w.id);
}

void Snapshot::remove_workload(int cq_node, int cq, const WorkloadInfo& w) {
  tree.remove_usage(cq_node, w.usage);
  workloads[static_cast<size_t>(cq)].erase(w.id);
}

Engine::Engine(const model::ClusterManifests& m, EngineOptions opts) : manifests(m), options(opts) {
  build_quota_tree();
  cq_workloads.resize(cluster_queues.size());
  queues = make_queues();
  // The clock starts at the newest time the manifests show (a creation or a condition's
  // change), so every loaded object and condition is in the past.
  TimeMs start = 0;
  for (const auto& w : manifests.workloads) start = std::max(start, model::newest_time_s(w) * 1000);
  now_ms = start;
  std::vector<model::Workload> initial = manifests.workloads;
  std::stable_sort(initial.begin(), initial.end(), [](const auto& a, const auto& b) {
    return a.meta.creation_order < b.meta.creation_order;
  });
  for (auto& w : initial) {
    const TimeMs created = w.meta.creation_order * 1000;
    const int id = create_workload(std::move(w));
    workloads[static_cast<size_t>(id)].created_ms = created;
    enqueue(workloads[static_cast<size_t>(id)]);
  }
  // The loaded reservations' order (WorkloadInfo::reservation_seq), as the model ranks them:
  // by reservation time, then creation.
  std::vector<WorkloadInfo*> holders;
  for (auto& w : workloads)
    if (w.counts_in_cache()) holders.push_back(&w);
  std::stable_sort(holders.begin(), holders.end(), [&](const auto* a, const auto* b) {
    const TimeMs ta = a->quota_reserved_ms(now_ms), tb = b->quota_reserved_ms(now_ms);
    return ta != tb ? ta < tb : a->created_ms < b->created_ms;
  });
  for (WorkloadInfo* w : holders) w->reservation_seq = next_reservation_seq++;
  // Waiting out a backoff in the manifests (Requeued False after a PodsReady
  // timeout or a check's Retry, or a requeueState.requeueAt ahead): the workload
  // controller requeues it once requeueAt has passed.
  for (const auto& w : workloads) {
    const model::Condition* r = w.condition("Requeued");
    const bool backoff = r != nullptr && r->status == "False" &&
                         (r->reason == "PodsReadyTimeout" || r->reason == "AdmissionCheck");
    if ((backoff || w.requeue_at_ms) && w.obj.active && !w.obj.admission)
      post(std::max(now_ms, w.requeue_at_ms.value_or(now_ms)), ev::BackoffExpired{w.key});
  }
  // Queues loaded stopped: their reserved workloads go through the controller too.
  for (const auto& cq : manifests.cluster_queues) {
    if (cq.stop_policy != model::StopPolicy::None)
      post(now_ms, ev::ClusterQueueStopPolicy{cq.meta.name, cq.stop_policy});
  }
  for (const auto& lq : manifests.local_queues) {
    if (lq.stop_policy != model::StopPolicy::None) {
      post(now_ms, ev::LocalQueueStopPolicy{lq.meta.namespace_, lq.meta.name, lq.stop_policy});
    }
  }
}

void Engine::enqueue(const WorkloadInfo& w) {
  if (!local_queue_stopped(w)) queues.push_or_update(w, now_ms);
}

void Engine::push_from_local_queue(const WorkloadInfo& w) {
  if (!local_queue_stopped(w)) queues.push_active_if_not_present(w);
}

bool Engine::local_queue_stopped(const WorkloadInfo& w) const {
  const model::LocalQueue* lq =
      find_local_queue(manifests, w.obj.meta.namespace_, w.obj.queue_name);
  return local_queue_deleted(w) || (lq != nullptr && lq->stop_policy != model::StopPolicy::None);
}

// Kueue's gate defaults are vocabulary, kept once in model/ (FeatureGates);
// the engine's independence is from protocols/, not from the facts about Kueue.
bool Engine::reads_gate(const std::string& name) {
  static constexpr std::string_view kRead[] = {"DisableWaitForPodsReady",
                                               "FairSharingPreemptWithinNominal",
                                               "FairSharingPrioritizeNonBorrowing",
                                               "FastQuotaReleaseInPodIntegration",
                                               "FlavorFungibilityPreserveScanProgress",
                                               "MultiKueueBatchJobWithManagedBy",
                                               "MultiKueueIncrementalDispatcherConfig",
                                               "MultiKueueIncrementalDispatcherRespectConfigOrder",
                                               "MultiKueueRedoAdmissionOnEvictionInWorker",
                                               "MultiKueueWaitForWorkloadAdmitted",
                                               "PartialAdmission",
                                               "PrioritizePreemptorWorkloads",
                                               "PrioritySortingWithinCohort",
                                               "RecomputeAssignmentUponPreemptionTargetsOverlap",
                                               "SchedulingEquivalenceHashing",
                                               "UnadmittedWorkloadsObservability"};
  return std::find(std::begin(kRead), std::end(kRead), std::string_view(name)) != std::end(kRead);
}

bool Engine::gate(const std::string& name) const {
  return manifests.configuration.feature_gates.enabled(name);
}

QueueManager Engine::make_queues() const {
  QueueManager q;
  q.set_sticky_head(options.sticky_preemptor_head);
  q.set_ordering(ordering());
  for (const auto& cq : cluster_queues)
    q.add_cluster_queue(cq.spec.queueing_strategy == model::QueueingStrategy::StrictFIFO);
  return q;
}

QueueOrdering Engine::ordering() const {
  return {
      .pods_ready_by_eviction = manifests.configuration.wait_for_pods_ready.requeuing_timestamp ==
                                model::RequeuingTimestamp::Eviction,
      .priority_sorting_within_cohort = gate("PrioritySortingWithinCohort")};
}

void Engine::build_cluster_queue(const model::ClusterQueue& spec) {
  ClusterQueueInfo cq;
  cq.name = spec.meta.name;
  cq.spec = spec;
  cq.fair_weight = static_cast<double>(spec.fair_sharing_weight.milli) / 1000.0;
  for (const auto& rg : spec.resource_groups) {
    ResourceGroupInfo g;
    g.covered = rg.covered_resources;
    for (const auto& f : rg.flavors) {
      g.flavors.push_back(f.name);
      if (find_flavor(manifests, f.name) == nullptr && cq.active) {
        cq.active = false;
        cq.inactive_reason = fmt::format("flavor {} not found", f.name);
      }
      for (const auto& r : f.resources) frs.intern(f.name, r.name);
    }
    for (const auto& r : rg.covered_resources) cq.group_of[r] = static_cast<int>(cq.groups.size());
    cq.groups.push_back(std::move(g));
  }
  if (spec.stop_policy != model::StopPolicy::None) {
    cq.active = false;
    cq.inactive_reason = "stopped";
  }
  for (const auto& rule : spec.admission_checks) {
    if (find_admission_check(manifests, rule.name) == nullptr && cq.active) {
      cq.active = false;
      cq.inactive_reason = fmt::format("admission check {} not found", rule.name);
    }
  }
  cq.node = tree.add_node(cq.name, true);
  cluster_queues.push_back(std::move(cq));
}

void Engine::set_spec_quotas(int node, const std::vector<model::ResourceGroup>& groups) {
  for (const auto& rg : groups) {
    for (const auto& f : rg.flavors) {
      for (const auto& r : f.resources) {
        tree.set_quota(node, frs.find(f.name, r.name), resource_value(r.name, r.nominal_quota),
                       opt_value(r.name, r.borrowing_limit), opt_value(r.name, r.lending_limit));
      }
    }
  }
}

void Engine::build_quota_tree() {
  for (const auto& c : manifests.cohorts) {
    for (const auto& rg : c.resource_groups) {
      for (const auto& f : rg.flavors) {
        for (const auto& r : f.resources) frs.intern(f.name, r.name);
      }
    }
  }
  for (const auto& cq : manifests.cluster_queues) build_cluster_queue(cq);
  // Cohorts, explicit and implicit (named as a parent but never defined: no quota).
  auto cohort_node = [&](const std::string& name) {
    auto it = cohort_nodes.find(name);
    if (it != cohort_nodes.end()) return it->second;
    const int n = tree.add_node(name, false);
    cohort_nodes[name] = n;
    return n;
  };
  for (const auto& c : manifests.cohorts) cohort_node(c.meta.name);
  std::set<std::string> cyclic;
  for (const auto& c : manifests.cohorts) {
    if (c.parent.empty()) continue;
    // A cycle makes every member inactive; we cut the link that would close it.
    bool cycle = false;
    for (std::string p = c.parent; !p.empty();) {
      if (p == c.meta.name) {
        cycle = true;
        break;
      }
      auto it = std::find_if(manifests.cohorts.begin(), manifests.cohorts.end(),
                             [&](const auto& x) { return x.meta.name == p; });
      p = it == manifests.cohorts.end() ? "" : it->parent;
      if (cyclic.contains(p)) break;
    }
    if (cycle) {
      cyclic.insert(c.meta.name);
      continue;
    }
    tree.set_parent(cohort_node(c.meta.name), cohort_node(c.parent));
  }
  for (auto& cq : cluster_queues) {
    if (cq.spec.cohort.empty()) continue;
    tree.set_parent(cq.node, cohort_node(cq.spec.cohort));
  }
  for (auto& cq : cluster_queues) {
    set_spec_quotas(cq);
    for (int n = cq.node; n >= 0; n = tree.node(n).parent) {
      if (cyclic.contains(tree.node(n).name) && !tree.node(n).is_cluster_queue && cq.active) {
        cq.active = false;
        cq.inactive_reason = "cohort cycle";
      }
      if (tree.node(n).parent < 0 && !tree.node(n).is_cluster_queue) {
        for (const auto& name : cyclic) {
          if (tree.node(n).name == name) cq.active = false;
        }
      }
    }
  }
  for (const auto& c : manifests.cohorts)
    set_spec_quotas(cohort_nodes.at(c.meta.name), c.resource_groups);
  tree.finalize(frs.size());
  // Fair-sharing weights per tree node; an implicit cohort (no object) weighs 1.
  fair_weights.assign(static_cast<size_t>(tree.node_count()), 1.0);
  for (const auto& cq : cluster_queues) fair_weights[static_cast<size_t>(cq.node)] = cq.fair_weight;
  for (const auto& c : manifests.cohorts) {
    fair_weights[static_cast<size_t>(cohort_nodes.at(c.meta.name))] =
        static_cast<double>(c.fair_sharing_weight.milli) / 1000.0;
  }
}

int Engine::cq_index(const std::string& name) const {
  for (size_t i = 0; i < cluster_queues.size(); ++i) {
    if (cluster_queues[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const WorkloadInfo* Engine::find(const std::string& key) const {
  auto it = workload_ids.find(key);
  return it == workload_ids.end() ? nullptr : &workloads[static_cast<size_t>(it->second)];
}

WorkloadInfo* Engine::find(const std::string& key) {
  auto it = workload_ids.find(key);
  return it == workload_ids.end() ? nullptr : &workloads[static_cast<size_t>(it->second)];
}

void Engine::load_workload_requests(WorkloadInfo& w) const {
  w.pod_sets.clear();
  for (const auto& ps : w.obj.pod_sets) {
    PodSetRequest r;
    r.name = ps.name;
    r.count = ps.count;
    r.min_count = ps.min_count;
    for (const auto& [res, q] : ps.requests)
      r.per_pod[res] = std::max<Amount>(0, resource_value(res, q));
    w.pod_sets.push_back(std::move(r));
  }
}

// An object loaded with status.admission and QuotaReserved=True starts counted.
void Engine::adopt_admission(WorkloadInfo& w) {
  const int cq = cq_index(w.obj.admission->cluster_queue);
  if (cq < 0) {
    log_line(fmt::format("{}: admitted to unknown ClusterQueue {}; ignored", w.key,
                         w.obj.admission->cluster_queue));
    return;
  }
  w.cluster_queue = cq;
  w.usage.clear();
  for (const auto& psa : w.obj.admission->pod_set_assignments) {
    for (const auto& [res, q] : psa.resource_usage) {
      auto f = psa.flavors.find(res);
      if (f == psa.flavors.end()) continue;
      const FrId fr = frs.find(f->second, res);
      if (fr < 0) continue;
      w.usage[fr] = amount_add(w.usage[fr], resource_value(res, q));
    }
  }
  cache_add(w);
  w.job_active = w.is_admitted();
  const bool loaded_unready = options.pods_ready_as_loaded && w.condition("PodsReady") != nullptr;
  w.pods_ready =
      w.is_true("PodsReady") || (w.job_active && options.pods_ready_on_start && !loaded_unready);
  // Reconcile times an admitted workload's pods from its Admitted condition's
  // lastTransitionTime, whoever admitted it; one past it is evicted at once. (A
  // replay's timeouts are its trace's: time_out_pods_ready.)
  if (w.job_active && !w.is_evicted()) {
    w.first_admitted_ms = w.condition_ms.at("Admitted");
    if (options.pods_ready_timeouts_left < 0) post_pods_ready_timeout(*this, w);
  }
  // Loaded halfway through its eviction: the job reconciler goes on stopping it.
  if (w.is_evicted()) stop_evicted_job(*this, w);
}

int Engine::create_workload(model::Workload obj) {
  WorkloadInfo w;
  w.id = static_cast<int>(workloads.size());
  w.key = obj.meta.namespace_ + "/" + obj.meta.name;
  w.uid = next_uid++;
  w.created_ms = now_ms;
  w.runtime_ms = obj.runtime_s * 1000;
  w.requeue_count = obj.requeue_count;
  if (obj.requeue_at_s) w.requeue_at_ms = *obj.requeue_at_s * 1000;
  w.obj = std::move(obj);
  load_workload_requests(w);
  // With the gate off the hash is SchedulingHashUnknown (empty here): nothing is parked by it.
  if (gate("SchedulingEquivalenceHashing")) w.scheduling_hash = scheduling_hash(w);
  for (const auto& c : w.obj.conditions) w.condition_ms[c.type] = c.last_transition_s * 1000;
  if (const auto* lq = find_local_queue(manifests, w.obj.meta.namespace_, w.obj.queue_name)) {
    w.cluster_queue = cq_index(lq->cluster_queue);
  }
  workload_ids[w.key] = w.id;
  workloads.push_back(std::move(w));
  WorkloadInfo& ref = workloads.back();
  // Kueue's cache counts an active reservation only (HasActiveQuotaReservation): a
  // deactivated workload's quota is free at once, while its pods still stop.
  if (ref.obj.admission && ref.has_quota_reservation() && ref.obj.active) {
    adopt_admission(ref);
  } else {
    ref.obj.admission.reset();
    if (ref.cluster_queue < 0)
      ref.pending_message = fmt::format("LocalQueue {} doesn't exist", ref.obj.queue_name);
    enqueue(ref);
    if (ref.cluster_queue >= 0) status_changed(ref.cluster_queue);  // pendingWorkloads
  }
  return ref.id;
}

Snapshot Engine::make_snapshot() const {
  Snapshot s;
  s.tree = tree;
  s.tree.simulation = true;
  s.workloads = cq_workloads;
  // Kueue's snapshot leaves inactive ClusterQueues out (skipInactiveCQReason):
  // their workloads are no preemption candidates, while the cohort's usage,
  // cloned from the cache, still counts them.
  for (size_t i = 0; i < cluster_queues.size(); ++i)
    if (!cluster_queues[i].active) s.workloads[i].clear();
  return s;
}

void Engine::cache_add(WorkloadInfo& w) {
  const ClusterQueueInfo& cq = cluster_queues[static_cast<size_t>(w.cluster_queue)];
  if (!cq_workloads[static_cast<size_t>(w.cluster_queue)].insert(w.id).second) return;
  tree.add_usage(cq.node, w.usage);
  status_changed(w.cluster_queue);  // reservingWorkloads
}

void Engine::cache_remove(WorkloadInfo& w) {
  if (w.cluster_queue < 0 || !cq_workloads[static_cast<size_t>(w.cluster_queue)].contains(w.id))
    return;
  cache_forget(w);
  requeue_associated_inadmissible(w);
}

void Engine::requeue_associated_inadmissible(const WorkloadInfo& w) {
  // QueueAssociatedInadmissibleWorkloadsAfter finds the tree through the
  // workload's LocalQueue: one stopped or deleted is gone from the queue
  // manager, so nothing is requeued, unless a Cohort object above the
  // ClusterQueue, other than the root (the Cohort controller requeues the
  // tree on every status update of the queue: cohortCqHandler, whose
  // ClusterQueueAncestors leaves the root out).
  if (w.cluster_queue >= 0 && (!local_queue_stopped(w) || cohort_object_above(w.cluster_queue)))
    notify_requeue_inadmissible(w.cluster_queue);
}

// clusterqueue_controller.go notifies its watchers on every Update event, status-only ones too;
// the Cohort controller's cohortCqHandler reconciles every ancestor but the root
// (ClusterQueueAncestors), and reconciling an existing Cohort object calls AddOrUpdateCohort,
// which requeues the root's tree (notifyCohort). Implicit cohorts have no object to reconcile.
void Engine::status_changed(int cq) {
  if (cohort_object_above(cq)) notify_requeue_inadmissible(cq);
}

bool Engine::cohort_object_above(int cq) const {
  for (int n = tree.node(cluster_queues[static_cast<size_t>(cq)].node).parent;
       n >= 0 && tree.node(n).parent >= 0; n = tree.node(n).parent)
    if (find_cohort(manifests, tree.node(n).name) != nullptr) return true;
  return false;
}

void Engine::cache_forget(WorkloadInfo& w) {
  if (w.cluster_queue < 0) return;
  ClusterQueueInfo& cq = cluster_queues[static_cast<size_t>(w.cluster_queue)];
  if (cq_workloads[static_cast<size_t>(w.cluster_queue)].erase(w.id) == 0) return;
  tree.remove_usage(cq.node, w.usage);
  cq.allocatable_generation++;
}

bool Engine::namespace_selected(int cq, const WorkloadInfo& w) const {
  const std::string& ns = w.obj.meta.namespace_;
  return model::selector_matches(cluster_queues[static_cast<size_t>(cq)].spec.namespace_selector,
                                 model::namespace_labels(find_namespace(manifests, ns), ns));
}

void Engine::notify_requeue_inadmissible(int cq) {
  notify_requeue_tree(cluster_queues[static_cast<size_t>(cq)].node);
}

void Engine::notify_requeue_tree(int node) {
  const int root = tree.root_of(node);
  if (!pending_requeue_roots.insert(root).second) return;
  post(now_ms + options.inadmissible_batch_ms, ev::RequeueInadmissible{root});
}

long Engine::run(long cycles_max, TimeMs until_ms) {
  long cycles = 0;
  int at_instant = 0;
  for (;;) {
    while (!events.empty() && events.next_time() <= now_ms) handle(events.pop().second);
    if (cycles_max >= 0 && cycles >= cycles_max) break;
    const CycleStats stats = schedule();
    if (stats.heads > 0) ++cycles;
    if (stats.heads > 0 && !stats.idle() && ++at_instant < options.max_cycles_per_instant) continue;
    if (!events.empty() && events.next_time() <= now_ms) continue;
    if (events.empty() || (until_ms >= 0 && events.next_time() > until_ms)) break;
    now_ms = events.next_time();
    at_instant = 0;
  }
  return cycles;
}

bool Engine::step() {
  const TimeMs before = now_ms;
  const size_t queued = events.size();
  run(-1, now_ms);
  if (events.empty()) return now_ms != before || queued != events.size();
  now_ms = events.next_time();
  return true;
}

}  // namespace kmc::engine
