// The knobs `kmc matrix` turns on a compiled MultiKueue scenario: the
// talk's fixes and Kueue's historical behaviours, one name each.
#pragma once

#include <string>
#include <vector>

#include "model/fleet.hpp"
#include "protocols/multikueue_params.hpp"

namespace kmc::protocols {

// provisioningClass, provisioningTimeout, pin, maxSnapshotStaleness,
// waitForWorkloadAdmitted, redispatchOnWorkerEviction, dispatcher, snapshotRefreshes.
const std::vector<std::string>& multikueue_lever_names();

// Sets one lever on p. Throws model::InputError at the lever's place for an
// unknown lever or a value it does not take.
void apply_lever(MkParams& p, const model::Lever& lever, const std::string& value);

}  // namespace kmc::protocols
