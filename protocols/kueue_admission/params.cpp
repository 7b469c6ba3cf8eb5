// compile_admission: one cluster's manifests and kmc.yaml to the protocol's
// parameters. What Kueue would reject, or what changes admission and this
// protocol does not model yet, is an InputError naming file, line and field;
// what it accepts and does not change the answer is a warning.
#include "protocols/kueue_admission/params.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "model/cluster_queue_namespaces.hpp"
#include "protocols/kueue_admission/compile_parts.hpp"
#include "protocols/kueue_admission/quota.hpp"

namespace kmc::protocols::ka {

namespace {

using model::InputError;

const std::vector<std::string> kVariants = {
    "pre-805",    // no re-check within a cycle: two preemptors share a victim (K05)
    "pre-2641",   // one preemption per cohort per cycle, in-flight ones too (K11)
    "pre-6617",   // fair sharing's DRS in integers: small borrowers look lending (K01)
    "pre-7157",   // no sticky head: a preemptor may lose its freed quota (K14)
    "pre-7312",   // pods stuck terminating hold their quota forever (K13)
    "pre-15154",  // a restart re-adopts a deleted pod group's terminating pods (K12)
    "pre-11502",  // a late admission patch's lost eviction is never issued again (#11480)
    "broken-skip-cohort-limit",  // deliberately broken: borrowing ignores the cohort
};

std::string qualified(const model::ObjectMeta& m) {
  return m.namespace_ + "/" + m.name;
}

struct Compiler {
  const model::Scenario& sc;
  const model::ClusterManifests& m;
  AdmissionParams p;
  std::map<std::string, int> cohort_index;
  std::int64_t dump_time = 0;  // compile_reservation.cpp

  QuotaNode empty_node(const std::string& name) const {
    QuotaNode n;
    n.name = name;
    const std::size_t k = static_cast<std::size_t>(p.F()) * p.R();
    n.nominal.assign(k, 0);
    n.borrowing_limit.assign(k, kNoLimit);
    n.lending_limit.assign(k, kNoLimit);
    return n;
  }

  // A resource group's quotas into a node; returns the flavors in order.
  std::vector<int> read_groups(const std::vector<model::ResourceGroup>& groups,
                               const model::SourcePos& pos, bool has_parent, QuotaNode& node,
                               std::vector<int>* covered) {
    std::vector<int> flavors;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const auto& rg = groups[g];
      if (covered)
        for (const auto& r : rg.covered_resources) covered->push_back(index_of(p.resources, r));
      for (std::size_t j = 0; j < rg.flavors.size(); ++j) {
        const auto& fq = rg.flavors[j];
        const int f = index_of(p.flavors, fq.name);
        flavors.push_back(f);
        for (std::size_t k = 0; k < fq.resources.size(); ++k) {
          const auto& rq = fq.resources[k];
          const std::string at =
              fmt::format("spec.resourceGroups[{}].flavors[{}].resources[{}]", g, j, k);
          const int fr = f * p.R() + index_of(p.resources, rq.name);
          auto value = [&](const model::Quantity& q, const char* field) {
            const std::int64_t v = q.kueue_value(rq.name);
            if (v < 0)
              throw InputError(pos, at + "." + field,
                               fmt::format("{} must not be negative", field));
            return v;
          };
          node.nominal[fr] = value(rq.nominal_quota, "nominalQuota");
          for (const auto& [limit, field, out] :
               {std::tuple{&rq.borrowing_limit, "borrowingLimit", &node.borrowing_limit},
                std::tuple{&rq.lending_limit, "lendingLimit", &node.lending_limit}}) {
            if (!*limit) continue;
            if (!has_parent)
              throw InputError(
                  pos, at + "." + field,
                  fmt::format("{} needs a cohort (Kueue rejects it without one)", field));
            (*out)[fr] = value(**limit, field);
          }
        }
      }
    }
    return flavors;
  }

  // Names first, so that every quota vector has its final size.
  void collect_names() {
    for (const auto& cq : m.cluster_queues)
      for (const auto& rg : cq.resource_groups) {
        for (const auto& r : rg.covered_resources) index_of(p.resources, r);
        for (const auto& fq : rg.flavors) {
          index_of(p.flavors, fq.name);
          for (const auto& rq : fq.resources) index_of(p.resources, rq.name);
        }
      }
    for (const auto& c : m.cohorts)
      for (const auto& rg : c.resource_groups)
        for (const auto& fq : rg.flavors) {
          if (!m.find_flavor(fq.name))
            throw InputError(c.meta.pos, "spec.resourceGroups",
                             fmt::format("no ResourceFlavor {}", fq.name));
          index_of(p.flavors, fq.name);
          for (const auto& rq : fq.resources) index_of(p.resources, rq.name);
        }
    for (const auto& wl : m.workloads)
      for (const auto& ps : wl.pod_sets)
        for (const auto& [r, q] : ps.requests) index_of(p.resources, r);
  }

  int cohort(const std::string& name) {
    auto [it, added] = cohort_index.emplace(name, p.C());
    if (added) p.cohorts.push_back(empty_node(name));  // implicit: no quota of its own
    return it->second;
  }

  void compile_cohorts() {
    for (const auto& c : m.cohorts) {
      const int i = cohort(c.meta.name);
      if (!c.parent.empty()) p.cohorts[i].parent = cohort(c.parent);
      read_groups(c.resource_groups, c.meta.pos, !c.parent.empty(), p.cohorts[i], nullptr);
    }
    // A cycle makes every member inactive in Kueue; in a scenario it is a mistake.
    for (int i = 0; i < p.C(); ++i) {
      std::set<int> seen;
      for (int a = i; a >= 0; a = p.cohorts[a].parent)
        if (!seen.insert(a).second) {
          const auto obj = std::find_if(m.cohorts.begin(), m.cohorts.end(), [&](const auto& c) {
            return c.meta.name == p.cohorts[i].name;
          });
          throw InputError(obj == m.cohorts.end() ? model::SourcePos{m.dir, 0} : obj->meta.pos,
                           "spec.parentName",
                           fmt::format("cohort {} is its own ancestor", p.cohorts[i].name));
        }
    }
  }

  void compile_cq(const model::ClusterQueue& q) {
    const auto& pos = q.meta.pos;
    CqParams c;
    c.quota = empty_node(q.meta.name);
    if (!q.cohort.empty()) c.quota.parent = cohort(q.cohort);
    for (int a = c.quota.parent; a >= 0 && p.cohorts[a].parent >= 0 && !c.cohort_object_above;
         a = p.cohorts[a].parent)
      c.cohort_object_above = std::any_of(m.cohorts.begin(), m.cohorts.end(), [&](const auto& o) {
        return o.meta.name == p.cohorts[a].name;
      });
    read_groups(q.resource_groups, pos, !q.cohort.empty(), c.quota, &c.covered);
    compile_flavor_choice(q, p, c);
    std::vector<int> all_flavors;  // of every group: a check's onFlavors may name any
    for (const auto& g : q.resource_groups)
      for (const auto& fq : g.flavors) all_flavors.push_back(index_of(p.flavors, fq.name));
    c.checks_on = compile_checks(m, p, q, all_flavors);
    c.stop = q.stop_policy;
    c.strict_fifo = q.queueing_strategy == model::QueueingStrategy::StrictFIFO;
    c.within = static_cast<WithinCq>(q.preemption.within_cluster_queue);
    c.reclaim = static_cast<Reclaim>(q.preemption.reclaim_within_cohort);
    c.borrow_within_cohort =
        q.preemption.borrow_within_cohort == model::BorrowWithinCohortPolicy::LowerPriority;
    if (q.preemption.max_priority_threshold)
      c.max_priority_threshold = *q.preemption.max_priority_threshold;
    c.try_next_when_borrow =
        q.flavor_fungibility.when_can_borrow == model::WhenCanBorrow::TryNextFlavor;
    c.try_next_when_preempt =
        q.flavor_fungibility.when_can_preempt == model::WhenCanPreempt::TryNextFlavor;
    c.fair_weight_milli = q.fair_sharing_weight.milli;
    c.preemption_over_borrowing =
        q.flavor_fungibility.preference == model::FungibilityPreference::PreemptionOverBorrowing;
    if (c.flavors.size() > 1)
      p.warnings.push_back(model::ignored_input(
          pos, "spec.flavorFungibility", "ClusterQueue.spec.flavorFungibility",
          "kueue-admission restarts the flavor scan every cycle; Kueue resumes "
          "it after the flavor it stopped at, for a workload nominated and not admitted "
          "(FlavorFungibilityPreserveScanProgress)"));
    p.cqs.push_back(std::move(c));
  }

  static bool tolerated(const model::Taint& t, const std::vector<model::Toleration>& tols) {
    return std::any_of(tols.begin(), tols.end(), [&](const model::Toleration& tol) {
      const bool key = tol.key.empty() ? tol.op == "Exists" : tol.key == t.key;
      const bool value = tol.op == "Exists" || tol.value == t.value;
      return key && value && (tol.effect.empty() || tol.effect == t.effect);
    });
  }

  // checkFlavorForPodSets (§1.1): taints tolerated, selectors matched on the flavor's own keys.
  bool eligible(const model::Workload& wl, const model::ResourceFlavor& rf) const {
    for (const auto& ps : wl.pod_sets) {
      std::vector<model::Toleration> tols = ps.tolerations;
      tols.insert(tols.end(), rf.tolerations.begin(), rf.tolerations.end());
      for (const auto& t : rf.node_taints)
        if ((t.effect == "NoSchedule" || t.effect == "NoExecute") && !tolerated(t, tols))
          return false;
      for (const auto& [k, v] : ps.node_selector) {
        auto it = rf.node_labels.find(k);
        if (it != rf.node_labels.end() && it->second != v) return false;
      }
    }
    return true;
  }

  // The LocalQueue's index in p.local_queues, added at its first workload.
  int local_queue(const model::LocalQueue& lq) {
    const std::string name = lq.meta.namespace_ + "/" + lq.meta.name;
    for (int i = 0; i < static_cast<int>(p.local_queues.size()); ++i)
      if (p.local_queues[i].name == name) return i;
    p.local_queues.push_back({name, lq.stop_policy});
    return static_cast<int>(p.local_queues.size()) - 1;
  }

  void compile_workload(const model::Workload& wl) {
    if (!wl.active) return;  // spec.active false: evicted and never requeued
    for (const auto& c : wl.conditions)
      if (c.type == "Finished" && c.status == "True") return;
    const auto* lq = m.find_local_queue(wl.meta.namespace_, wl.queue_name);
    if (!lq)
      throw InputError(wl.meta.pos, "spec.queueName",
                       fmt::format("no LocalQueue {}/{}", wl.meta.namespace_, wl.queue_name));
    WorkloadParams w;
    w.name = qualified(wl.meta);
    for (int q = 0; q < p.Q(); ++q)
      if (p.cqs[q].quota.name == lq->cluster_queue) w.cq = q;
    if (p.cqs[w.cq].quota.name != lq->cluster_queue)
      throw InputError(lq->meta.pos, "spec.clusterQueue",
                       fmt::format("no ClusterQueue {}", lq->cluster_queue));
    w.lq = local_queue(*lq);
    w.namespace_mismatch = !model::cluster_queue_selects(
        m, *m.find_cluster_queue(lq->cluster_queue), wl.meta.namespace_, p.warnings);
    w.priority = wl.priority;
    w.created = wl.meta.creation_order;
    w.req.assign(p.R(), 0);
    // computeSchedulingHash reads the priority and, per pod set, its name, counts, requests,
    // node selector and tolerations.
    w.scheduling_shape = fmt::format("{}", w.priority);
    for (const auto& ps : wl.pod_sets) {
      w.scheduling_shape += fmt::format("|{}/{}/{}", ps.name, ps.count, ps.min_count.value_or(-1));
      for (const auto& [r, q] : ps.requests)
        w.scheduling_shape += fmt::format(" {}={}", r, q.to_string());
      for (const auto& [k, v] : ps.node_selector)
        w.scheduling_shape += fmt::format(" ns:{}={}", k, v);
      for (const auto& t : ps.tolerations)
        w.scheduling_shape += fmt::format(" t:{}/{}/{}/{}", t.key, t.op, t.value, t.effect);
    }
    bool zero_noted = false;
    for (const auto& ps : wl.pod_sets) {
      for (const auto& [r, q] : ps.requests) {
        const int ri = index_of(p.resources, r);
        w.req[ri] += q.kueue_value(r) * ps.count;
        // Kueue keeps a request of 0 of a covered resource in the pod set's requests and
        // searches a flavor for it: the flavor's taints and selectors apply, and in a
        // ClusterQueue already borrowing it fitsResourceQuota raises the borrowing level, which
        // orders entries and decides whether the search stops. The model counts only what is
        // requested.
        const auto& covered = p.cqs[w.cq].covered;
        if (q.kueue_value(r) == 0 && !zero_noted &&
            std::find(covered.begin(), covered.end(), ri) != covered.end()) {
          zero_noted = true;
          p.warnings.push_back(model::ignored_input(
              wl.meta.pos, "spec.podSets.requests", "a request of 0",
              fmt::format("{} requests 0 of {}: kueue-admission leaves it out of flavor "
                          "assignment, where Kueue still matches the flavor's taints and "
                          "selectors for it and counts it toward the borrowing level",
                          w.name, r)));
        }
      }
      if (ps.min_count && *ps.min_count < ps.count)
        p.warnings.push_back(model::ignored_input(
            wl.meta.pos, "spec.podSets.minCount", "Workload.spec.podSets.minCount",
            "partial admission is not modelled: the full count is requested"));
    }
    add_implicit_pods(p, wl, w);
    if (wl.pod_sets.size() > 1 && p.cqs[w.cq].flavors.size() > 1)
      p.warnings.push_back(model::ignored_input(
          wl.meta.pos, "spec.podSets", "Workload.spec.podSets",
          "kueue-admission gives all pod sets one flavor; Kueue assigns each pod set its own"));
    w.eligible.assign(p.F(), true);
    for (int f = 0; f < p.F(); ++f)
      if (const auto* rf = m.find_flavor(p.flavors[f])) w.eligible[f] = eligible(wl, *rf);
    // A resource of a one-flavor group in a flavor the workload may not use
    // (taints, selectors): that group has no flavor for it, so no choice fits.
    // A workload that requests nothing of the group with several flavors gets
    // none of them in Kueue (assignFlavors looks at the groups it requests);
    // the model records that group's first flavor, whichever it may use.
    const CqParams& home = p.cqs[w.cq];
    if (!home.fixed_flavor.empty()) {
      bool fixed_ok = true, chooses = false;
      for (int r = 0; r < p.R(); ++r) {
        if (w.req[r] == 0) continue;
        if (home.fixed_flavor[r] < 0)
          chooses = true;
        else
          fixed_ok = fixed_ok && w.eligible[home.fixed_flavor[r]];
      }
      for (int f : home.flavors) w.eligible[f] = fixed_ok && (w.eligible[f] || !chooses);
    }
    // A pod group (Kueue annotates its Workload is-group-workload; kubectl users
    // label it with the group's name). (*Pod).IsActive counts a group's pods only,
    // so a lone plain Pod's quota goes at eviction, as a Job's does.
    const auto group = wl.meta.annotations.find("kueue.x-k8s.io/is-group-workload");
    w.pods = (group != wl.meta.annotations.end() && group->second == "true") ||
             wl.meta.labels.contains("kueue.x-k8s.io/pod-group-name");
    compile_reservation(p, wl, w);
    // The eviction first: a Job caught halfway through one holds nothing, and its
    // checks are read as those of a workload without a reservation.
    compile_requeue_state(p, wl, w, m.configuration, dump_time);
    compile_workload_checks(p, wl, w);
    p.workloads.push_back(std::move(w));
  }

  void compile_options() {
    const auto& fleet = sc.fleet;
    const auto& gates = m.configuration.feature_gates;
    const auto& fs = m.configuration.fair_sharing;
    p.fair_sharing = fs.enable;
    if (fs.enable) {
      for (const auto& c : p.cohorts)
        if (c.parent >= 0)
          throw InputError(m.configuration.pos, "fairSharing",
                           fmt::format("kueue-admission models fair sharing over flat cohorts; "
                                       "cohort {} has a parent",
                                       c.name));
      for (const auto& name : fs.preemption_strategies) {
        if (name != "LessThanOrEqualToFinalShare" && name != "LessThanInitialShare")
          throw InputError(m.configuration.pos, "fairSharing.preemptionStrategies",
                           fmt::format("unknown strategy {}", name));
        p.fs_strategies.push_back(name == "LessThanOrEqualToFinalShare");
      }
      if (p.fs_strategies.empty()) p.fs_strategies = {true, false};  // parseStrategies' default
    }
    p.fs_preempt_within_nominal = gates.enabled("FairSharingPreemptWithinNominal");
    p.priority_sorting_within_cohort = gates.enabled("PrioritySortingWithinCohort");
    p.prioritize_preemptors = gates.enabled("PrioritizePreemptorWorkloads");
    p.equivalence_hashing = gates.enabled("SchedulingEquivalenceHashing");
    p.fast_quota_release = gates.enabled("FastQuotaReleaseInPodIntegration");
    const auto& wfpr = m.configuration.wait_for_pods_ready;
    const bool wfpr_on = wfpr.enable && !gates.enabled("DisableWaitForPodsReady");
    p.block_admission = wfpr_on && wfpr.block_admission;
    p.pods_ready_limit = wfpr.backoff_limit_count ? std::max(*wfpr.backoff_limit_count, 0) : -1;
    p.timeout_requeue_by_creation = wfpr.requeuing_timestamp == model::RequeuingTimestamp::Creation;
    if (fleet.environment.pods_ready_timeouts > 0 && !wfpr_on)
      throw InputError(m.configuration.pos, "waitForPodsReady",
                       fmt::format("environment.podsReadyTimeouts is {}, but waitForPodsReady is "
                                   "off in this Configuration (v1beta1 without enable: true, or "
                                   "the feature gate DisableWaitForPodsReady): no PodsReady "
                                   "timeout fires",
                                   fleet.environment.pods_ready_timeouts));
    p.recompute_on_overlap = gates.enabled("RecomputeAssignmentUponPreemptionTargetsOverlap");
    compile_gates(m.configuration, p);
    const auto& v = fleet.options.variant;
    if (!v.empty() && std::find(kVariants.begin(), kVariants.end(), v) == kVariants.end())
      throw InputError(fleet.pos, "options.variant",
                       fmt::format("unknown variant '{}' for kueue-admission; expected one of {}",
                                   v, fmt::join(kVariants, ", ")));
    p.recheck_in_cycle = v != "pre-805";
    p.multiple_preemptions = v != "pre-2641";
    p.integer_drs = v == "pre-6617";
    p.sticky_head = v != "pre-7157";
    p.force_fail_stuck_pods = v != "pre-7312";
    p.readopt_terminating_groups = v == "pre-15154";
    p.satisfy_expectation_on_admission = v != "pre-11502";
    p.broken_skip_cohort_limit = v == "broken-skip-cohort-limit";
    p.answer = fleet.autoscaler;
    p.stuck_terminating = fleet.environment.stuck_terminating;
    p.controller_restarts = fleet.environment.controller_restarts;
    p.pods_ready_timeouts = fleet.environment.pods_ready_timeouts;
    p.admission_write_failures = fleet.environment.admission_write_failures;
    p.eviction_write_failures = fleet.environment.eviction_write_failures;
    p.late_admission_writes = fleet.environment.late_admission_writes;
    p.pod_failures = fleet.environment.pod_failures;
    p.recovery_times_out = wfpr.recovery_timeout_s > 0;
    if (p.pod_failures > 0 && !p.block_admission)
      throw InputError(fleet.environment.pod_failures_pos, "environment.podFailures",
                       fmt::format("is {}, but waitForPodsReady.blockAdmission is off in this "
                                   "Configuration: a pod failure matters to kmc only where "
                                   "blockAdmission waits on it (without it, podsReadyTimeouts "
                                   "covers a pod that fails and does not recover)",
                                   p.pod_failures));
  }
};

}  // namespace

int index_of(std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<int>(it - names.begin());
  names.push_back(name);
  return static_cast<int>(names.size() - 1);
}

bool AdmissionParams::preemption_configured() const {
  return std::any_of(cqs.begin(), cqs.end(), [](const CqParams& c) {
    return c.within != WithinCq::Never || c.reclaim != Reclaim::Never;
  });
}

bool AdmissionParams::any_deletions() const {
  return std::any_of(workloads.begin(), workloads.end(),
                     [](const WorkloadParams& w) { return w.deletable; });
}

int AdmissionParams::readoption_of(int w) const {
  for (int v = 0; v < W(); ++v)
    if (workloads[v].readopts == w) return v;
  return -1;
}

bool AdmissionParams::any_arrivals() const {
  return std::any_of(workloads.begin(), workloads.end(),
                     [](const WorkloadParams& w) { return w.arrives; });
}

bool AdmissionParams::may_be_revoked(int w) const {
  if (!revocations()) return false;
  return std::any_of(workloads[w].checks.begin(), workloads[w].checks.end(),
                     [](std::int64_t m) { return m != 0; });
}

void AdmissionParams::finish() {
  tree = std::make_shared<const QuotaTree>(*this);
  finish_stops();
  finish_quota_edits();
}

const std::vector<std::string>& admission_variants() {
  return kVariants;
}

AdmissionParams compile_admission(const model::Scenario& sc) {
  if (!sc.fleet.workers.empty())
    throw InputError(sc.fleet.workers.front().pos, "workers",
                     "protocol kueue-admission checks one cluster and has no workers");
  Compiler c{sc, sc.manager, {}, {}};
  c.collect_names();
  c.compile_cohorts();
  for (const auto& q : sc.manager.cluster_queues) c.compile_cq(q);
  c.dump_time = dump_time(sc);
  for (const auto& wl : sc.manager.workloads) c.compile_workload(wl);
  if (c.p.workloads.empty())
    throw InputError({sc.manager.dir, 0}, "",
                     "no Workload or Job to admit; kueue-admission needs at least one");
  c.compile_options();
  auto& p = c.p;
  compile_revocations(sc, p);
  compile_deletions(sc, p);
  // Queue order: priority, then creation, then name (the heap's order).
  std::stable_sort(p.workloads.begin(), p.workloads.end(),
                   [](const WorkloadParams& a, const WorkloadParams& b) {
                     if (a.priority != b.priority) return a.priority > b.priority;
                     if (a.created != b.created) return a.created < b.created;
                     return a.name < b.name;
                   });
  warn_queue_order_ties(sc.manager, p);
  // Equivalence classes, in queue order: only a class of two or more counts.
  if (p.equivalence_hashing) {
    std::map<std::pair<int, std::string>, int> first;
    for (int w = 0; w < p.W(); ++w) {
      auto& wl = p.workloads[w];
      const auto [it, fresh] = first.try_emplace({wl.cq, wl.scheduling_shape}, w);
      if (!fresh) {
        wl.equivalence = it->second;
        p.workloads[it->second].equivalence = it->second;
      }
    }
  }
  compile_arrivals(sc, p);
  compile_queue_edits(sc, p);
  compile_queue_creations(sc, p);
  for (auto& w : p.workloads)  // re-adoption slots to their originals, now in queue order
    if (w.readopts == -2) {
      const std::string name =
          w.name.substr(0, w.name.size() - std::string(kReadoptedSuffix).size());
      w.readopts =
          static_cast<int>(std::find_if(p.workloads.begin(), p.workloads.end(),
                                        [&](const WorkloadParams& o) { return o.name == name; }) -
                           p.workloads.begin());
    }
  p.user_properties = sc.fleet.properties;
  if (p.late_writes() && !p.preemption_configured())
    p.warnings.push_back({sc.fleet.pos, "environment.lateAdmissionWrites",
                          "no ClusterQueue may preempt, so no eviction can race an admission "
                          "patch: the budget only makes the patches asynchronous"});
  p.finish();
  check_start_without_created_cohorts(sc, p);
  return p;
}

}  // namespace kmc::protocols::ka
