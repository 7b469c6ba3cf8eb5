// One property of one protocol instance, checked the way `kmc check` and
// `kmc matrix` check it (the scenario's fairness, its state bound, a time
// limit), through the one pipeline (counterexamples/pipeline.hpp). Shared by
// `kmc corpus check`.
#pragma once

#include <string>

#include "checker/result.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cli {

checker::Result check_property(const protocols::MultiKueue& mk, const model::Scenario& sc,
                               const std::string& property, double time_limit_s);

}  // namespace kmc::cli
