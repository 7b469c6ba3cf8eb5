// Queues created during the run (kmc.yaml environment.queueEdits with
// `create: true`): a ClusterQueue, LocalQueue or Cohort of the manifests
// that is absent until its edit, for an operator onboarding a team while the
// cluster runs.
//
// Kueue's pieces, each read from its source:
// - a workload whose LocalQueue is missing is in no queue (queue manager
//   AddOrUpdateWorkload: ErrLocalQueueDoesNotExistOrInactive); one whose
//   ClusterQueue is missing waits in its LocalQueue's items, in no heap
//   (ErrClusterQueueDoesNotExist). The workload controller leaves an Admitted
//   workload of a missing queue running (a missing queue's stopPolicy reads
//   None) and unsets a reservation that is not Admitted ("terminating or
//   missing"). In the model that is stopPolicy Hold.
// - a missing ClusterQueue is in no cache: its quota is in no cohort.
// - creating a ClusterQueue (queue manager AddClusterQueue) pushes the
//   workloads of the LocalQueues pointing to it into its heap and requeues
//   the parked workloads of its cohort tree (notifyRetryInadmissible); the
//   cache adds it to its cohort, whose subtree quota grows. Creating a
//   LocalQueue (AddLocalQueue) pushes its pending workloads.
// So the model starts such a ClusterQueue with stopPolicy Hold and no quota,
// and its creation is an edit that sets its manifest's stopPolicy and
// quotas: the requeue and the new tree come with it (stop_policy.cpp,
// quota_edits.cpp). A LocalQueue starts on Hold, and its creation sets its
// manifest's stopPolicy.
//
// A Cohort whose first edit creates it is absent until then: the
// ClusterQueues and Cohorts that name it are in an implicit cohort of its
// name, without quota, limits or parent (the hierarchy manager's implicit
// cohorts), as after a Cohort's deletion. Its creation (cohort controller
// Reconcile: the cache's and the queue manager's AddOrUpdateCohort) sets its
// manifest's quotas and parent, and requeues the parked workloads of the
// tree it is in now (notifyCohort of its root). A deleted Cohort may be
// created again the same way, and a deleted LocalQueue; a deleted
// ClusterQueue too, once its old object is gone (cluster_queue_deletion.cpp).
//
// A workload holding quota through a queue that does not exist yet has no
// such start in Kueue's cache (the cache counts it once its ClusterQueue is
// added); it is refused rather than modelled loosely.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "protocols/kueue_admission/compile_parts.hpp"
#include "protocols/kueue_admission/observe.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace kmc::protocols::ka {

using model::InputError;

namespace {

// The manifest's quotas of a ClusterQueue or Cohort, every flavor and
// resource (a node's quota maps lack the others: nominal 0, no limits).
std::vector<QuotaSet> manifest_quotas(const QuotaNode& node, const AdmissionParams& p) {
  std::vector<QuotaSet> out;
  for (int fr = 0; fr < p.F() * p.R(); ++fr) {
    const auto i = static_cast<std::size_t>(fr);
    out.push_back({fr, node.nominal[i], node.borrowing_limit[i], node.lending_limit[i]});
  }
  return out;
}

}  // namespace

void compile_queue_creations(const model::Scenario& sc, AdmissionParams& p) {
  const auto& edits = sc.fleet.environment.queue_edits;
  std::map<std::pair<bool, int>, std::size_t> first;  // (local, queue) -> its first edit
  std::vector<int> created_cqs;
  std::set<int> deleted_lqs;  // LocalQueues deleted by the edits so far
  std::set<int> deleted_cqs;  // ClusterQueues deleted by the edits so far
  // The manifest's quotas of ClusterQueue q, which its creation sets.
  auto cq_quotas = [&](int q) {
    const CqParams& cq = p.cqs[static_cast<std::size_t>(q)];
    std::vector<QuotaSet> out;
    for (const QuotaSet& s : manifest_quotas(cq.quota, p))
      if (p.cell(q, s.fr / p.R(), s.fr % p.R()) == s.fr &&
          std::find(cq.covered.begin(), cq.covered.end(), s.fr % p.R()) != cq.covered.end())
        out.push_back(s);
    return out;
  };
  std::vector<bool> cohort_named(p.cohorts.size(), false);
  std::vector<int> absent_cohorts;
  for (std::size_t k = 0; k < p.queue_edits.size(); ++k) {
    QueueEdit& e = p.queue_edits[k];
    if (e.cohort) {
      // compile_queue_edits checked that it is absent: from the start where
      // no edit named it before, else deleted since.
      const auto c = static_cast<std::size_t>(e.queue);
      if (e.creates) {
        if (!cohort_named[c]) absent_cohorts.push_back(e.queue);
        e.quotas = manifest_quotas(p.cohorts[c], p);
        e.cohort_parent = p.cohorts[c].parent;
      }
      cohort_named[c] = true;
      continue;
    }
    const auto [it, fresh] = first.try_emplace({e.local, e.queue}, k);
    if (e.deletes_local) deleted_lqs.insert(e.queue);
    if (e.deletes && !e.local) deleted_cqs.insert(e.queue);
    if (!e.creates) continue;
    // A LocalQueue created again after its deletion: compile_queue_edits gave
    // it its manifest's policy, which the edit machinery sets.
    if (e.local && deleted_lqs.erase(e.queue) > 0) continue;
    // A ClusterQueue created again: its manifest's policy (compile_queue_edits)
    // and quotas, from the start in force until its deletion.
    if (!e.local && deleted_cqs.erase(e.queue) > 0) {
      e.quotas = cq_quotas(e.queue);
      continue;
    }
    const std::string field = fmt::format("environment.queueEdits[{}].create", k);
    const std::string queue = e.local ? "LocalQueue " + p.local_queues[e.queue].name
                                      : "ClusterQueue " + p.cqs[e.queue].quota.name;
    if (!fresh)
      throw InputError(
          edits[k].pos, field,
          fmt::format("{} is edited by environment.queueEdits[{}] before it is "
                      "created: a queue's creation is the first edit naming it (or, for a "
                      "LocalQueue or Cohort, follows its deletion)",
                      queue, it->second));
    for (const auto& w : p.workloads) {
      if (w.initial_flavor < 0 || (e.local ? w.lq != e.queue : w.cq != e.queue)) continue;
      throw InputError(edits[k].pos, field,
                       fmt::format("{} holds quota through {}, which this edit creates: a "
                                   "workload of a queue that does not exist yet holds none",
                                   w.name, queue));
    }
    if (e.local) {
      p.local_queues[static_cast<std::size_t>(e.queue)].stop = model::StopPolicy::Hold;
    } else {
      const auto quotas = cq_quotas(e.queue);
      e.quotas.insert(e.quotas.end(), quotas.begin(), quotas.end());
      created_cqs.push_back(e.queue);
    }
  }
  // An absent Cohort is an implicit one: no quota, no limits, no parent.
  for (int c : absent_cohorts) {
    QuotaNode& node = p.cohorts[static_cast<std::size_t>(c)];
    node.parent = -1;
    std::fill(node.nominal.begin(), node.nominal.end(), 0);
    std::fill(node.borrowing_limit.begin(), node.borrowing_limit.end(), kNoLimit);
    std::fill(node.lending_limit.begin(), node.lending_limit.end(), kNoLimit);
  }
  // Absent until created: on Hold, and no quota in any cohort. Done after the
  // loop, as every creation's quotas are read from the manifest first.
  for (int q : created_cqs) {
    CqParams& cq = p.cqs[static_cast<std::size_t>(q)];
    cq.stop = model::StopPolicy::Hold;
    std::fill(cq.quota.nominal.begin(), cq.quota.nominal.end(), 0);
    std::fill(cq.quota.borrowing_limit.begin(), cq.quota.borrowing_limit.end(), kNoLimit);
    std::fill(cq.quota.lending_limit.begin(), cq.quota.lending_limit.end(), kNoLimit);
  }
}

// The manifests show workloads holding quota; a Cohort the run creates is
// implicit until then, so what they borrowed through it must fit without
// it. Otherwise the start is above the limits, which no-over-admission would
// blame on the scheduler: refused at the creation's line instead.
void check_start_without_created_cohorts(const model::Scenario& sc, const AdmissionParams& p) {
  std::set<int> named;
  for (std::size_t k = 0; k < p.queue_edits.size(); ++k) {
    const QueueEdit& e = p.queue_edits[k];
    if (!e.cohort || !named.insert(e.queue).second || !e.creates) continue;
    const std::string over = over_admission(Scheduler(p), Spec::initial(p));
    if (over.empty()) return;
    throw InputError(sc.fleet.environment.queue_edits[k].pos,
                     fmt::format("environment.queueEdits[{}].create", k),
                     fmt::format("at the start, before this edit creates Cohort {}, {}: the "
                                 "workloads holding quota must fit without it",
                                 p.cohorts[static_cast<std::size_t>(e.queue)].name, over));
  }
}

}  // namespace kmc::protocols::ka
