// Queues created during the run (kmc.yaml environment.queueEdits with
// `create: true`): a ClusterQueue or a LocalQueue of the manifests that is
// absent until its edit, for an operator onboarding a team while the cluster
// runs.
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
// A workload holding quota through a queue that does not exist yet has no
// such start in Kueue's cache (the cache counts it once its ClusterQueue is
// added); it is refused rather than modelled loosely.
#include <fmt/format.h>

#include <map>

#include "protocols/kueue_admission/compile_parts.hpp"

namespace kmc::protocols::ka {

using model::InputError;

namespace {

// The manifest's quotas of the flavors and resources of ClusterQueue q's
// resource group, which its creation sets.
std::vector<QuotaSet> manifest_quotas(const AdmissionParams& p, int q) {
  const CqParams& cq = p.cqs[static_cast<std::size_t>(q)];
  std::vector<QuotaSet> out;
  for (int f : cq.flavors)
    for (int r : cq.covered) {
      const int fr = p.fr(f, r);
      out.push_back({fr, cq.quota.nominal[static_cast<std::size_t>(fr)],
                     cq.quota.borrowing_limit[static_cast<std::size_t>(fr)],
                     cq.quota.lending_limit[static_cast<std::size_t>(fr)]});
    }
  return out;
}

}  // namespace

void compile_queue_creations(const model::Scenario& sc, AdmissionParams& p) {
  const auto& edits = sc.fleet.environment.queue_edits;
  std::map<std::pair<bool, int>, std::size_t> first;  // (local, queue) -> its first edit
  std::vector<int> created_cqs;
  for (std::size_t k = 0; k < p.queue_edits.size(); ++k) {
    QueueEdit& e = p.queue_edits[k];
    if (e.cohort) continue;
    const auto [it, fresh] = first.try_emplace({e.local, e.queue}, k);
    if (!e.creates) continue;
    const std::string field = fmt::format("environment.queueEdits[{}].create", k);
    const std::string queue = e.local ? "LocalQueue " + p.local_queues[e.queue].name
                                      : "ClusterQueue " + p.cqs[e.queue].quota.name;
    if (!fresh)
      throw InputError(edits[k].pos, field,
                       fmt::format("{} is edited by environment.queueEdits[{}] before it is "
                                   "created: a queue's creation is the first edit naming it",
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
      e.quotas = manifest_quotas(p, e.queue);
      created_cqs.push_back(e.queue);
    }
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

}  // namespace kmc::protocols::ka
