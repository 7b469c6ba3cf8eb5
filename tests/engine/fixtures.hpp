// Small builders for ClusterManifests, so engine tests read like Kueue's
// table-driven scheduler tests (utiltesting wrappers) without YAML.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "model/kueue_objects.hpp"

namespace kmc::engine::testing {

inline model::Quantity units(std::int64_t n) {
  return model::Quantity::from_units(n);
}

struct Quota {
  std::string resource;
  std::int64_t nominal;
  std::optional<std::int64_t> borrowing_limit = std::nullopt, lending_limit = std::nullopt;
};
struct FlavorQuota {
  std::string flavor;
  std::vector<Quota> quotas;
};

inline model::ResourceGroup group(std::vector<std::string> covered,
                                  std::vector<FlavorQuota> flavors) {
  model::ResourceGroup g;
  g.covered_resources = std::move(covered);
  for (auto& f : flavors) {
    model::FlavorQuotas fq;
    fq.name = f.flavor;
    for (auto& q : f.quotas) {
      model::ResourceQuota rq;
      rq.name = q.resource;
      rq.nominal_quota = units(q.nominal);
      if (q.borrowing_limit) rq.borrowing_limit = units(*q.borrowing_limit);
      if (q.lending_limit) rq.lending_limit = units(*q.lending_limit);
      fq.resources.push_back(rq);
    }
    g.flavors.push_back(fq);
  }
  return g;
}

struct Cluster {
  model::ClusterManifests m;
  // References returned by cq()/wl()/cohort() stay valid while a test keeps adding objects.
  Cluster() {
    m.cluster_queues.reserve(256);
    m.local_queues.reserve(256);
    m.cohorts.reserve(256);
    m.workloads.reserve(4096);
  }

  Cluster& flavor(const std::string& name) {
    model::ResourceFlavor f;
    f.meta.name = name;
    m.resource_flavors.push_back(f);
    return *this;
  }
  // A ClusterQueue with one LocalQueue "lq-<name>" in namespace "ns".
  model::ClusterQueue& cq(const std::string& name, const std::string& cohort,
                          std::vector<model::ResourceGroup> groups) {
    model::ClusterQueue q;
    q.meta.name = name;
    q.cohort = cohort;
    q.resource_groups = std::move(groups);
    q.namespace_selector.present = true;
    m.cluster_queues.push_back(q);
    model::LocalQueue lq;
    lq.meta.name = "lq-" + name;
    lq.meta.namespace_ = "ns";
    lq.cluster_queue = name;
    m.local_queues.push_back(lq);
    return m.cluster_queues.back();
  }
  // Another LocalQueue of ClusterQueue cq in namespace "ns".
  model::LocalQueue& lq(const std::string& name, const std::string& cq) {
    model::LocalQueue q;
    q.meta.name = name;
    q.meta.namespace_ = "ns";
    q.cluster_queue = cq;
    m.local_queues.push_back(q);
    return m.local_queues.back();
  }
  model::Cohort& cohort(const std::string& name, const std::string& parent = "") {
    model::Cohort c;
    c.meta.name = name;
    c.parent = parent;
    m.cohorts.push_back(c);
    return m.cohorts.back();
  }
  // A workload in namespace "ns" queued to lq-<cq>; creation order is its position.
  model::Workload& wl(const std::string& name, const std::string& cq, std::int32_t priority,
                      std::vector<std::pair<std::string, std::int64_t>> per_pod,
                      std::int32_t count = 1) {
    model::Workload w;
    w.meta.name = name;
    w.meta.namespace_ = "ns";
    w.meta.creation_order = static_cast<std::int64_t>(m.workloads.size());
    w.queue_name = "lq-" + cq;
    w.priority = priority;
    model::PodSet ps;
    ps.count = count;
    for (auto& [r, v] : per_pod) ps.requests[r] = units(v);
    w.pod_sets.push_back(ps);
    m.workloads.push_back(w);
    return m.workloads.back();
  }
};

// w as a dump shows it holding quota: status.admission in ClusterQueue cq,
// each resource of its first pod set in `flavor`, QuotaReserved and Admitted
// since `at_s`.
inline model::Workload& loaded_admitted(model::Workload& w, const std::string& cq,
                                        const std::string& flavor, std::int64_t at_s) {
  w.admission = model::Admission{};
  w.admission->cluster_queue = cq;
  model::PodSetAssignment psa;
  const model::PodSet& ps = w.pod_sets.at(0);
  for (const auto& [r, q] : ps.requests) {
    psa.flavors[r] = flavor;
    psa.resource_usage[r] = model::Quantity{q.milli * ps.count};
  }
  w.admission->pod_set_assignments.push_back(psa);
  w.conditions.push_back({"QuotaReserved", "True", "QuotaReserved", "", at_s});
  w.conditions.push_back({"Admitted", "True", "Admitted", "", at_s});
  return w;
}

// root {} over co {} over a {cpu: 2}, and b {cpu: 8} under root; the sweep in
// a asks for 6 cpu, 4 of them borrowed from b through root.
inline Cluster subtree_borrowing_from_root() {
  Cluster c;
  c.flavor("default");
  c.cohort("root");
  c.cohort("co", "root");
  c.cq("a", "co", {group({"cpu"}, {{"default", {{"cpu", 2}}}})});
  c.cq("b", "root", {group({"cpu"}, {{"default", {{"cpu", 8}}}})});
  c.wl("sweep", "a", 0, {{"cpu", 6}});
  return c;
}

// A workload created now, through the engine (as the API server would).
inline model::Workload make_workload(const std::string& name, const std::string& cq,
                                     std::int32_t priority,
                                     std::vector<std::pair<std::string, std::int64_t>> per_pod,
                                     std::int32_t count = 1) {
  Cluster c;
  return c.wl(name, cq, priority, std::move(per_pod), count);
}

inline std::string state_of(const Engine& e, const std::string& name) {
  const WorkloadInfo* w = e.find("ns/" + name);
  if (w == nullptr) return "missing";
  if (w->is_finished()) return "Finished";
  if (w->is_evicted() && w->has_quota_reservation()) return "Evicted";
  if (w->is_admitted()) return "Admitted";
  if (w->has_quota_reservation()) return "QuotaReserved";
  return "Pending";
}

inline std::string flavor_of(const Engine& e, const std::string& name,
                             const std::string& resource) {
  const WorkloadInfo* w = e.find("ns/" + name);
  if (w == nullptr || !w->obj.admission) return "";
  return w->obj.admission->pod_set_assignments.at(0).flavors.at(resource);
}

}  // namespace kmc::engine::testing
