// The kube-scheduler baseline's check pipeline: the generic one with its
// summary line; no engine replay (the reference engine is Kueue's).
#pragma once

#include "counterexamples/pipeline.hpp"
#include "model/scenario.hpp"

namespace kmc::cx {

CheckOutcome check_kube_scheduler(const model::Scenario& scenario, const CheckRequest& request);

}  // namespace kmc::cx
