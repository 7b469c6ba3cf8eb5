// RapidCheck generators for whole MultiKueue fleets: small random scenarios,
// built in memory as model::Scenario values (the loader's output), so they go
// wherever a loaded scenario goes (kmc::check, the shrinker's entity
// reductions): 1 to 3 workers with random capacity, autoscaler answer and
// provisioning class; 1 to 2 jobs of 4 or 8 GPUs; AllAtOnce or a snapshot
// dispatcher that may pin and may see a stale view. Installed with kmc
// (<kmc/rapidcheck/fleet.hpp>, docs/library.md); header-only, needs
// <rapidcheck.h>. One cluster's objects alone: <kmc/rapidcheck/kueue.hpp>.
#pragma once

#include <fmt/format.h>
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "model/scenario.hpp"

namespace kmc::gen::fleet {

using namespace kmc::model;

inline ObjectMeta meta(const std::string& name, const std::string& ns = "",
                       std::int64_t order = 0) {
  ObjectMeta m;
  m.name = name;
  m.namespace_ = ns;
  m.creation_order = order;
  return m;
}

inline ClusterQueue gpu_cq(std::int64_t gpus, const std::string& check) {
  ClusterQueue cq;
  cq.meta.name = "gpu-cq";
  cq.resource_groups = {ResourceGroup{
      {"nvidia.com/gpu"},
      {FlavorQuotas{"h100",
                    {ResourceQuota{"nvidia.com/gpu", Quantity::from_units(gpus), {}, {}}}}}}};
  cq.admission_checks = {AdmissionCheckRule{check, {}}};
  cq.namespace_selector.present = true;  // {}: every namespace (a nil one selects none)
  return cq;
}

inline void add_queue(ClusterManifests& m, std::int64_t gpus, const std::string& check) {
  m.resource_flavors.push_back(ResourceFlavor{meta("h100"), {}, {}, {}});
  m.cluster_queues.push_back(gpu_cq(gpus, check));
  LocalQueue lq;
  lq.meta = meta("training", "team-ml");
  lq.cluster_queue = "gpu-cq";
  m.local_queues.push_back(lq);
}

inline ClusterManifests worker(bool check_capacity) {
  ClusterManifests m;
  add_queue(m, 8, "prov-ac");
  AdmissionCheck ac;
  ac.meta.name = "prov-ac";
  ac.controller_name = kProvisioningController;
  ac.parameters = {"kueue.x-k8s.io", "ProvisioningRequestConfig", "prov-config"};
  m.admission_checks.push_back(ac);
  ProvisioningRequestConfig cfg;
  cfg.meta.name = "prov-config";
  cfg.provisioning_class_name = check_capacity ? "check-capacity.autoscaling.x-k8s.io"
                                               : "best-effort-atomic-scaleup.autoscaling.x-k8s.io";
  m.provisioning_request_configs.push_back(cfg);
  return m;
}

inline Workload job(int j, std::int64_t gpus) {
  Workload wl;
  wl.meta = meta("job-" + std::to_string(j), "team-ml", j);
  wl.queue_name = "training";
  PodSet ps;
  ps.requests["nvidia.com/gpu"] = Quantity::from_units(gpus);
  wl.pod_sets = {ps};
  wl.source_kind = "Job";
  return wl;
}

// A generated scenario, with the choices it was made from (printed on failure).
struct Drawn {
  Scenario scenario;
  std::string about;
};

inline rc::Gen<Drawn> scenario() {
  return rc::gen::exec([] {
    static const char* names[] = {"us-central1", "asia-southeast1", "europe-west4"};
    const int W = *rc::gen::inRange(1, 4), J = *rc::gen::inRange(1, 3);
    const bool snapshot = *rc::gen::arbitrary<bool>();
    Drawn d;
    Scenario& sc = d.scenario;
    sc.dir = "generated";
    add_queue(sc.manager, 16, "multikueue-ac");
    AdmissionCheck mk;
    mk.meta.name = "multikueue-ac";
    mk.controller_name = kMultiKueueController;
    mk.parameters = {"kueue.x-k8s.io", "MultiKueueConfig", "gpu-fleet"};
    sc.manager.admission_checks.push_back(mk);
    MultiKueueConfig config;
    config.meta.name = "gpu-fleet";
    for (int w = 0; w < W; ++w) {
      const std::int64_t capacity =
          *rc::gen::weightedElement<std::int64_t>({{1, 0}, {1, 4}, {2, 8}});
      const auto answer =
          *rc::gen::element(AutoscalerAnswer::Provisions, AutoscalerAnswer::Fails,
                            AutoscalerAnswer::AcceptsThenHangs, AutoscalerAnswer::Any);
      const bool check_capacity = *rc::gen::weightedElement<bool>({{1, true}, {3, false}});
      WorkerSpec spec;
      spec.name = spec.region = names[w];
      spec.capacity["h100"]["nvidia.com/gpu"] = Quantity::from_units(capacity);
      spec.answer = answer;
      sc.fleet.workers.push_back(spec);
      sc.workers.push_back(worker(check_capacity));
      config.clusters.push_back(names[w]);
      sc.manager.multikueue_clusters.push_back(MultiKueueCluster{meta(names[w]), true});
      const bool stale = snapshot && *rc::gen::arbitrary<bool>();
      if (stale) sc.fleet.snapshot[names[w]]["h100"]["nvidia.com/gpu"] = Quantity::from_units(8);
      d.about += fmt::format(
          "{}: {} GPUs, answer {}, {}{}; ", names[w], capacity, static_cast<int>(answer),
          check_capacity ? "check-capacity" : "best-effort", stale ? ", stale view 8" : "");
    }
    sc.manager.multikueue_configs.push_back(config);
    for (int j = 0; j < J; ++j) {
      const std::int64_t gpus = *rc::gen::element<std::int64_t>(4, 8);
      sc.manager.workloads.push_back(job(j, gpus));
      d.about += fmt::format("job-{}: {} GPUs; ", j, gpus);
    }
    if (snapshot) {
      sc.fleet.dispatcher.policy = DispatchPolicy::CapacitySnapshot;
      sc.fleet.dispatcher.pin = *rc::gen::arbitrary<bool>();
      sc.fleet.environment.snapshot_refreshes = *rc::gen::inRange(0, 2);
    }
    sc.fleet.options.provisioning_timeout = *rc::gen::arbitrary<bool>();
    d.about += fmt::format("dispatcher {}, pin {}, timeout {}",
                           snapshot ? "CapacitySnapshot" : "AllAtOnce", sc.fleet.dispatcher.pin,
                           sc.fleet.options.provisioning_timeout);
    return d;
  });
}

}  // namespace kmc::gen::fleet
