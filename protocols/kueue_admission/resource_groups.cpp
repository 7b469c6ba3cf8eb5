// A ClusterQueue's resource groups, for compile_admission: which group's
// flavor the scheduler chooses, and the one flavor of each other group.
#include <fmt/format.h>

#include <algorithm>

#include "protocols/kueue_admission/compile_parts.hpp"

namespace kmc::protocols::ka {

using model::InputError;

// Kueue assigns each resource group a flavor of its own. The model chooses
// one flavor per workload: that of the group with several flavors (or of
// the first group); every other group must have one flavor, which its
// resources always take (CqParams::fixed_flavor). Two groups with several
// flavors would need a choice per group: refused, not half-modelled.
void compile_flavor_choice(const model::ClusterQueue& q, AdmissionParams& p, CqParams& c) {
  const auto& groups = q.resource_groups;
  std::size_t chosen = 0;
  bool several = false;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].flavors.size() < 2) continue;
    if (several)
      throw InputError(q.meta.pos, fmt::format("spec.resourceGroups[{}]", g),
                       fmt::format("kueue-admission models one resource group with several "
                                   "flavors per ClusterQueue; resourceGroups[{}] has {} too "
                                   "(a group of one flavor each is fine)",
                                   chosen, groups[chosen].flavors.size()));
    chosen = g, several = true;
  }
  if (groups.empty()) return;
  for (const auto& fq : groups[chosen].flavors) c.flavors.push_back(index_of(p.flavors, fq.name));
  if (groups.size() == 1) return;
  c.fixed_flavor.assign(p.R(), -1);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (g == chosen || groups[g].flavors.empty()) continue;
    const int f = index_of(p.flavors, groups[g].flavors[0].name);
    for (const auto& r : groups[g].covered_resources)
      c.fixed_flavor[static_cast<std::size_t>(index_of(p.resources, r))] = f;
  }
}

// assignFlavors (flavorassigner.go): where a resource group of the
// ClusterQueue covers `pods`, each pod set requests one per pod, charged to
// quota like its other requests (a `pods` request in its spec is replaced).
void add_implicit_pods(const AdmissionParams& p, const model::Workload& wl, WorkloadParams& w) {
  const auto it = std::find(p.resources.begin(), p.resources.end(), "pods");
  if (it == p.resources.end()) return;
  const int r = static_cast<int>(it - p.resources.begin());
  const auto& covered = p.cqs[w.cq].covered;
  if (std::find(covered.begin(), covered.end(), r) == covered.end()) return;
  std::int64_t pods = 0;
  bool asked = false;
  for (const auto& ps : wl.pod_sets) {
    pods += ps.count;
    asked = asked || ps.requests.contains("pods");
  }
  w.req[r] = pods;
  if (!asked) w.implicit_pods = r;
}

}  // namespace kmc::protocols::ka
