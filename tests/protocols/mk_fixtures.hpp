// MultiKueue parameter sets built in code, so protocol tests do not depend
// on the YAML loader: the GPU Hunter fleet and small variations of it.
#pragma once

#include "protocols/multikueue_params.hpp"

namespace mk_fixtures {

using kmc::model::AutoscalerAnswer;
using kmc::protocols::CqParams;
using kmc::protocols::Dispatcher;
using kmc::protocols::MkParams;
using kmc::protocols::ProvisioningClass;

// A manager CQ with `manager_gpus`, workers each with one CQ of 8 GPUs on
// flavor h100 behind a ProvisioningRequest check; `jobs` jobs of `gpus` each.
inline MkParams fleet(int workers, int jobs, std::int64_t gpus, std::int64_t manager_gpus) {
  MkParams p;
  p.resources = {"nvidia.com/gpu"};
  for (int j = 0; j < jobs; ++j) {
    p.jobs.push_back("team-a/train-" + std::to_string(j));
    p.request.push_back(gpus);
    p.manager_cq.push_back(0);
  }
  CqParams mgr;
  mgr.name = "gpu";
  mgr.flavors = {"h100"};
  mgr.flavor_slot = {-1};
  mgr.nominal = {manager_gpus};
  p.cqs.push_back(mgr);
  static const char* names[] = {"us-central1", "asia-southeast1", "europe-west4", "us-east5"};
  for (int w = 0; w < workers; ++w) {
    p.workers.push_back(names[w]);
    CqParams q;
    q.cluster = w;
    q.name = "gpu";
    q.flavors = {"h100"};
    q.flavor_slot = {0};
    q.nominal = {8};
    q.provisioning = true;
    q.provisioning_class = ProvisioningClass::BestEffortAtomicScaleUp;
    p.cqs.push_back(q);
    p.worker_cq.push_back(std::vector<int>(jobs, w + 1));
    p.worker_flavors.push_back({"h100"});
    p.capacity0.push_back(8);
    p.snapshot0.push_back(8);
    p.answer.push_back(AutoscalerAnswer::Provisions);
    p.dispatch_order.push_back(w);
  }
  return p;
}

// The talk's fleet: us-central1 has no GPUs to give (but the manager's stale
// snapshot says 8), asia-southeast1 has 8 idle; an external dispatcher pins
// on the snapshot; best-effort-atomic-scaleup; no ProvisioningRequest timeout.
inline MkParams gpu_hunter() {
  MkParams p = fleet(2, 1, 8, 16);
  p.capacity0 = {0, 8};
  p.snapshot0 = {8, 8};
  p.dispatcher = Dispatcher::CapacitySnapshot;
  p.pin = true;
  return p;
}

// The talk's layered fixes: capacity-check class, a timeout, no pinning,
// and snapshot refreshes.
inline MkParams gpu_hunter_fixed() {
  MkParams p = gpu_hunter();
  for (auto& q : p.cqs)
    if (q.cluster >= 0) q.provisioning_class = ProvisioningClass::CheckCapacity;
  p.provisioning_timeout = true;
  p.pin = false;
  p.snapshot_refreshes = -1;
  return p;
}

// The talk's fleet grown (bench/check_scaling's series): worker 0 has no
// GPUs, the others 8 idle each; AllAtOnce (Kueue's default); jobs of 4 GPUs;
// manager quota = the workers' sum.
inline MkParams grown(int workers, int jobs) {
  auto p = fleet(workers, jobs, 4, 8 * workers);
  p.capacity0.assign(workers, 8);
  p.capacity0[0] = 0;
  p.snapshot0 = p.capacity0;
  return p;
}

}  // namespace mk_fixtures
