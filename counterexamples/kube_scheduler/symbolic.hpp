// The kube-scheduler baseline under the SMT engines (`kmc check --engine
// bmc|induction`): its always and sometimes properties, and kmc.yaml's own.
#pragma once

#include <string>
#include <vector>

#include "checker/result.hpp"
#include "checker/smt_options.hpp"
#include "protocols/kube_scheduler/spec.hpp"

namespace kmc::cx {

std::vector<std::string> kube_scheduler_smt_properties(const protocols::ks::Instance& ks);
checker::Result check_kube_scheduler_smt(const protocols::ks::Instance& ks,
                                         const std::vector<std::string>& names,
                                         checker::SmtEngine engine,
                                         const checker::SmtLimits& limits);

}  // namespace kmc::cx
