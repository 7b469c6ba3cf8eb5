// A dumped Workload's reservation: the flavor its status.admission holds quota
// in, since when, and whether its pods are ready; and the dump's time, which
// tells a backoff still ahead from one that is over (model/dump_clock.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "model/dump_clock.hpp"
#include "protocols/kueue_admission/compile_parts.hpp"

namespace kmc::protocols::ka {

void compile_reservation(const AdmissionParams& p, const model::Workload& wl, WorkloadParams& w) {
  const CqParams& home = p.cqs[w.cq];
  for (const auto& c : wl.conditions)
    if (c.type == "QuotaReserved" && c.status == "True" && wl.admission &&
        !wl.admission->pod_set_assignments.empty() &&
        !wl.admission->pod_set_assignments[0].flavors.empty()) {
      // The chosen group's flavor (compile_flavor_choice), where it has one.
      const auto& assigned = wl.admission->pod_set_assignments[0].flavors;
      std::string name = assigned.begin()->second;
      bool chosen = false;
      for (const auto& [r, f] : assigned)
        for (int c : home.flavors)
          if (p.flavors[static_cast<std::size_t>(c)] == f) name = f, chosen = true;
      if (!chosen && !home.fixed_flavor.empty() && !home.flavors.empty())
        name = p.flavors[static_cast<std::size_t>(home.flavors[0])];  // its first (params.cpp)
      auto it = std::find(p.flavors.begin(), p.flavors.end(), name);
      if (it == p.flavors.end())
        throw model::InputError(wl.meta.pos, "status.admission.podSetAssignments[0].flavors",
                                fmt::format("flavor {} is in no ClusterQueue", name));
      w.initial_flavor = static_cast<int>(it - p.flavors.begin());
      w.reserved_at = c.last_transition_s;
    }
  if (w.initial_flavor >= 0)
    w.initial_pods_ready =
        std::any_of(wl.conditions.begin(), wl.conditions.end(),
                    [](const auto& c) { return c.type == "PodsReady" && c.status == "True"; });
}

std::int64_t dump_time(const model::Scenario& sc) {
  // The engine loads the workloads there from the start only (an arrival is created later).
  const auto& arrivals = sc.fleet.environment.arrivals;
  std::int64_t t = 0;
  for (const auto& wl : sc.manager.workloads)
    if (std::find(arrivals.begin(), arrivals.end(), wl.meta.namespace_ + "/" + wl.meta.name) ==
        arrivals.end())
      t = std::max(t, model::newest_time_s(wl));
  return t;
}

}  // namespace kmc::protocols::ka
