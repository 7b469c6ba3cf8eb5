// The default kube-scheduler without Kueue, as the baseline Kueue exists to
// fix (seeds 2 and 4): each pod of a Job is bound to a node on its own,
// greedily, wherever it fits; a Job whose pods wait for each other (a
// distributed training gang) runs only once all of them are bound.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/diagnostics.hpp"
#include "model/scenario.hpp"

namespace kmc::protocols::ks {

struct JobParams {
  std::string name;               // "namespace/name"
  int pods = 1;                   // parallelism: the gang
  std::vector<std::int64_t> req;  // [r] per pod, in Kueue's integer units
};

struct SchedulerParams {
  std::vector<std::string> resources, nodes;
  std::vector<std::int64_t> allocatable;  // [node * R + r]
  std::vector<JobParams> jobs;            // in creation order
  model::Warnings warnings;
  // kmc.yaml's own properties, checked beside the protocol's (model/user_properties.hpp).
  std::vector<model::UserPropertySpec> user_properties;

  int R() const { return static_cast<int>(resources.size()); }
  int N() const { return static_cast<int>(nodes.size()); }
  int J() const { return static_cast<int>(jobs.size()); }
};

// Jobs from the cluster's manifests, nodes from kmc.yaml's `nodes:`. Throws
// model::InputError naming file, line and field for what it cannot model.
SchedulerParams compile_kube_scheduler(const model::Scenario& scenario);

}  // namespace kmc::protocols::ks
