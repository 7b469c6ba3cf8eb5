// The time a dump was taken, as far as it shows: kmc has no wall clock of the
// cluster, so it takes the newest time any loaded Workload shows (its
// creation, or a condition's change). The engine's clock starts there, and a
// backoff whose requeueAt is not after it is over (the workload controller
// requeues such a workload at once), in the engine and in kueue-admission alike.
#pragma once

#include <cstdint>

#include "model/kueue_objects.hpp"

namespace kmc::model {

// The newest time w shows, in seconds: its creationTimestamp (its load order
// when it has none) or a condition's lastTransitionTime.
std::int64_t newest_time_s(const Workload& w);

}  // namespace kmc::model
