// RapidCheck generators for one Kueue cluster's objects, built as the values
// the loader returns (model/kueue_objects.hpp), so a property can hand them to
// anything that takes loaded manifests: the reference engine
// (engine::Engine), the validator, a policy of your own. Installed with kmc
// (<kmc/rapidcheck/kueue.hpp>, docs/library.md); header-only, needs
// <rapidcheck.h> (link rapidcheck).
//
// Names are deterministic so a failing case reads like a test table:
// flavors f0, f1, ...; cohorts co0 (the root), co1, ...; ClusterQueues q0,
// q1, ..., each with one LocalQueue lq-<cq> in namespace "ns"; workloads w0,
// w1, ... in "ns", created in that order. What varies is the numbers, the
// tree's shape and who points at whom; Shape bounds them.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "model/kueue_objects.hpp"

namespace kmc::gen {

// The bounds of a generated cluster. The defaults are small on purpose: a
// failing case shrinks to a few objects a person can read.
struct Shape {
  int flavors = 2;                               // f0 .. f<flavors-1>, every one in every group
  std::vector<std::string> resources = {"cpu"};  // covered by one resource group
  int cohorts_max = 3;           // 1 .. cohorts_max cohorts in one tree; 0: no cohorts at all
  int cluster_queues_max = 5;    // 1 .. this many ClusterQueues
  int workloads_max = 24;        // 0 .. this many workloads
  std::int64_t quota_max = 9;    // nominal quota (and limits) per flavor and resource: 0 .. this
  bool limits = true;            // draw borrowing and lending limits (each present half the time)
  std::int64_t request_max = 7;  // per-pod request: 1 .. this
  std::int32_t priority_max = 2;
  std::int64_t runtime_max_s = 3;  // Workload::runtime_s: 0 .. this
};

inline std::string indexed(const char* prefix, int i) {
  return prefix + std::to_string(i);
}

// ResourceFlavors f0 .. f<n-1>, with no labels or taints.
inline std::vector<model::ResourceFlavor> flavors(int n) {
  std::vector<model::ResourceFlavor> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)].meta.name = indexed("f", i);
  return out;
}

// One resource's quota: nominal 0..quota_max; borrowing and lending limits
// (when shape.limits) each present half the time.
inline rc::Gen<model::ResourceQuota> resource_quota(std::string resource, const Shape& shape) {
  return rc::gen::exec([resource, shape] {
    const auto q = [&] { return *rc::gen::inRange<std::int64_t>(0, shape.quota_max + 1); };
    model::ResourceQuota rq;
    rq.name = resource;
    rq.nominal_quota = model::Quantity::from_units(q());
    if (shape.limits && *rc::gen::arbitrary<bool>())
      rq.borrowing_limit = model::Quantity::from_units(q());
    if (shape.limits && *rc::gen::arbitrary<bool>())
      rq.lending_limit = model::Quantity::from_units(q());
    return rq;
  });
}

// A resource group covering shape.resources in every flavor, in flavor order.
inline rc::Gen<model::ResourceGroup> resource_group(const Shape& shape) {
  return rc::gen::exec([shape] {
    model::ResourceGroup g;
    g.covered_resources = shape.resources;
    for (int f = 0; f < shape.flavors; ++f) {
      model::FlavorQuotas fq;
      fq.name = indexed("f", f);
      for (const auto& r : shape.resources) fq.resources.push_back(*resource_quota(r, shape));
      g.flavors.push_back(fq);
    }
    return g;
  });
}

// A cohort tree of 1..max cohorts: co0 is the root, each later one's parent
// an earlier one, so the parent links never form a cycle.
inline rc::Gen<std::vector<model::Cohort>> cohort_tree(int max) {
  return rc::gen::exec([max] {
    const int n = *rc::gen::inRange(1, max + 1);
    std::vector<model::Cohort> out;
    for (int i = 0; i < n; ++i) {
      model::Cohort c;
      c.meta.name = indexed("co", i);
      if (i > 0) c.parent = indexed("co", *rc::gen::inRange(0, i));
      out.push_back(c);
    }
    return out;
  });
}

// A ClusterQueue named `name`, in one of `cohorts` (none if empty), that
// admits from every namespace, with one resource group.
inline rc::Gen<model::ClusterQueue> cluster_queue(std::string name,
                                                  std::vector<std::string> cohorts,
                                                  const Shape& shape) {
  return rc::gen::exec([name, cohorts, shape] {
    model::ClusterQueue cq;
    cq.meta.name = name;
    if (!cohorts.empty()) cq.cohort = *rc::gen::elementOf(cohorts);
    cq.resource_groups = {*resource_group(shape)};
    cq.namespace_selector.present = true;  // {}: every namespace (nil would select none)
    return cq;
  });
}

// The LocalQueue lq-<cq> in namespace "ns" that points at `cq`.
inline model::LocalQueue local_queue(const model::ClusterQueue& cq) {
  model::LocalQueue lq;
  lq.meta.name = "lq-" + cq.meta.name;
  lq.meta.namespace_ = "ns";
  lq.cluster_queue = cq.meta.name;
  return lq;
}

// A one-pod-set workload `name` in "ns", created `order`-th, queued to one of
// `local_queues`, asking 1..request_max of every resource per pod.
inline rc::Gen<model::Workload> workload(std::string name, std::int64_t order,
                                         std::vector<std::string> local_queues,
                                         const Shape& shape) {
  return rc::gen::exec([name, order, local_queues, shape] {
    model::Workload w;
    w.meta.name = name;
    w.meta.namespace_ = "ns";
    w.meta.creation_order = order;
    w.queue_name = *rc::gen::elementOf(local_queues);
    w.priority = *rc::gen::inRange<std::int32_t>(0, shape.priority_max + 1);
    model::PodSet ps;
    for (const auto& r : shape.resources)
      ps.requests[r] =
          model::Quantity::from_units(*rc::gen::inRange<std::int64_t>(1, shape.request_max + 1));
    w.pod_sets = {ps};
    w.runtime_s = *rc::gen::inRange<std::int64_t>(0, shape.runtime_max_s + 1);
    return w;
  });
}

// A whole cluster: flavors, a cohort tree, ClusterQueues in it with their
// LocalQueues, and workloads queued to them; every reference resolves
// (model::validate_cluster_references accepts it).
inline rc::Gen<model::ClusterManifests> cluster(Shape shape = {}) {
  return rc::gen::exec([shape] {
    model::ClusterManifests m;
    m.resource_flavors = flavors(shape.flavors);
    std::vector<std::string> cohort_names;
    if (shape.cohorts_max > 0) {
      m.cohorts = *cohort_tree(shape.cohorts_max);
      for (const auto& c : m.cohorts) cohort_names.push_back(c.meta.name);
    }
    const int cqs = *rc::gen::inRange(1, shape.cluster_queues_max + 1);
    std::vector<std::string> lqs;
    for (int i = 0; i < cqs; ++i) {
      m.cluster_queues.push_back(*cluster_queue(indexed("q", i), cohort_names, shape));
      m.local_queues.push_back(local_queue(m.cluster_queues.back()));
      lqs.push_back(m.local_queues.back().meta.name);
    }
    const int wls = *rc::gen::inRange(0, shape.workloads_max + 1);
    for (int i = 0; i < wls; ++i) m.workloads.push_back(*workload(indexed("w", i), i, lqs, shape));
    return m;
  });
}

}  // namespace kmc::gen

namespace kmc::model {

// How RapidCheck prints a generated cluster when a property fails (found by
// argument-dependent lookup): one line per object, the fields the generators
// vary, so the shrunk case reads like a test table.
inline void showValue(const ClusterManifests& m, std::ostream& os) {
  for (const auto& c : m.cohorts)
    os << "\n  Cohort " << c.meta.name << (c.parent.empty() ? "" : " parent " + c.parent);
  for (const auto& cq : m.cluster_queues) {
    os << "\n  ClusterQueue " << cq.meta.name << (cq.cohort.empty() ? "" : " cohort " + cq.cohort);
    for (const auto& g : cq.resource_groups)
      for (const auto& f : g.flavors)
        for (const auto& r : f.resources) {
          os << " " << f.name << "/" << r.name << " nominal " << r.nominal_quota.to_string();
          if (r.borrowing_limit) os << " borrow<=" << r.borrowing_limit->to_string();
          if (r.lending_limit) os << " lend<=" << r.lending_limit->to_string();
        }
  }
  for (const auto& w : m.workloads) {
    os << "\n  Workload " << w.meta.name << " -> " << w.queue_name << " priority " << w.priority;
    for (const auto& ps : w.pod_sets)
      for (const auto& [r, q] : ps.requests) os << " " << r << " " << q.to_string();
  }
  os << "\n";
}

}  // namespace kmc::model
