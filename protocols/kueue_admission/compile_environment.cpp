// kmc.yaml's environment lists for compile_admission: the workloads that
// arrive during the run and those a user may delete.
#include <fmt/format.h>

#include <algorithm>

#include "protocols/kueue_admission/compile_parts.hpp"

namespace kmc::protocols::ka {

using model::InputError;

// environment.arrivals, once the workloads are in queue order. A workload
// created during the run gets a creationTimestamp later than every one there
// from the start, and the order arrivals come in is their timestamps' order:
// both are what the API server would stamp, so kmc asks the manifests to say so
// rather than changing them.
void compile_arrivals(const model::Scenario& sc, AdmissionParams& p) {
  const auto& env = sc.fleet.environment;
  std::vector<int> order;
  for (std::size_t i = 0; i < env.arrivals.size(); ++i) {
    const std::string field = fmt::format("environment.arrivals[{}]", i);
    auto it = std::find_if(p.workloads.begin(), p.workloads.end(),
                           [&](const WorkloadParams& w) { return w.name == env.arrivals[i]; });
    if (it == p.workloads.end())
      throw InputError(
          env.arrival_pos[i], field,
          fmt::format("no Workload or Job {} in {}/", env.arrivals[i], sc.manager.dir));
    if (it->initial_flavor >= 0 || it->initial_evicted)
      throw InputError(env.arrival_pos[i], field,
                       fmt::format("{} holds quota in its status.admission, so it is there from "
                                   "the start; a workload that arrives during the run cannot",
                                   it->name));
    it->arrives = true;
    order.push_back(static_cast<int>(it - p.workloads.begin()));
  }
  for (std::size_t i = 0; i < env.arrivals.size(); ++i) {
    const WorkloadParams& a = p.workloads[order[i]];
    for (const auto& w : p.workloads)
      if (!w.arrives && w.created >= a.created)
        throw InputError(env.arrival_pos[i], fmt::format("environment.arrivals[{}]", i),
                         fmt::format("{} arrives during the run, so its creationTimestamp must be "
                                     "later than that of every workload there from the start; "
                                     "{}'s is not earlier",
                                     a.name, w.name));
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const auto &x = p.workloads[a], &y = p.workloads[b];
    return x.created != y.created ? x.created < y.created : x.name < y.name;
  });
  for (std::size_t i = 1; i < order.size(); ++i) p.workloads[order[i]].arrives_after = order[i - 1];
}

// environment.deletions, before the workloads are sorted: each named workload
// may be deleted, and where Kueue may restart, a deleted pod group whose pods
// are still terminating may be re-adopted (K12): it gets a slot for the
// Workload a restart would build. That Workload is created at the restart,
// after every other, and its pods carry the node selector the ungater wrote
// (with TAS, the node itself), so it can never be placed again: kmc gives it
// no flavor.
void compile_deletions(const model::Scenario& sc, AdmissionParams& p) {
  const auto& env = sc.fleet.environment;
  std::int64_t newest = 0;
  for (const auto& w : p.workloads) newest = std::max(newest, w.created);
  std::vector<WorkloadParams> slots;
  for (std::size_t i = 0; i < env.deletions.size(); ++i) {
    auto it = std::find_if(p.workloads.begin(), p.workloads.end(),
                           [&](const WorkloadParams& w) { return w.name == env.deletions[i]; });
    if (it == p.workloads.end())
      throw InputError(
          env.deletion_pos[i], fmt::format("environment.deletions[{}]", i),
          fmt::format("no Workload or Job {} in {}/", env.deletions[i], sc.manager.dir));
    it->deletable = true;
    if (!it->pods || p.controller_restarts == 0) continue;
    WorkloadParams slot = *it;
    slot.name += kReadoptedSuffix;
    slot.created = newest + 1;
    slot.eligible.assign(p.F(), false);
    slot.initial_flavor = -1;
    slot.equivalence = -1;
    slot.arrives = slot.deletable = false;
    slot.readopts = -2;  // resolved once sorted
    slot.scheduling_shape += " pinned to its node";
    slots.push_back(std::move(slot));
  }
  for (auto& s : slots) p.workloads.push_back(std::move(s));
}

// environment.capacityRevocations: a budget nothing reads is exit 3; a pod
// group that needs a ProvisioningRequest is left out, with a warning.
void compile_revocations(const model::Scenario& sc, AdmissionParams& p) {
  const int n = sc.fleet.environment.capacity_revocations;
  if (n == 0) return;
  const auto& pos = sc.fleet.environment.capacity_revocations_pos;
  if (p.checks.empty())
    throw InputError(pos, "environment.capacityRevocations",
                     "no ClusterQueue of this cluster has a ProvisioningRequest admission "
                     "check, so there is no request whose capacity could be revoked");
  p.capacity_revocations = n < 0 ? p.W() : n;
}

}  // namespace kmc::protocols::ka
