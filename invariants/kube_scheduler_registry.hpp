// The named properties of the kube-scheduler baseline (protocols/kube_scheduler/).
#pragma once

#include <vector>

#include "model/property.hpp"
#include "protocols/kube_scheduler/spec.hpp"

namespace kmc::invariants {

using SchedulerInstance = protocols::ks::Instance;
using SchedulerProperty = model::Property<SchedulerInstance::State>;

// Every property, in registry order. The instance must outlive them.
std::vector<SchedulerProperty> kube_scheduler_properties(const SchedulerInstance& p);

}  // namespace kmc::invariants
