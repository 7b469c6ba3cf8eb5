// kmc, the library: one header for the API a user calls (docs/library.md).
//
//   #include <kmc/kmc.hpp>
//
//   const kmc::Scenario sc = kmc::load_scenario("examples/gpu-hunter");
//   const kmc::CheckResult r = kmc::check(sc);       // as `kmc check` does
//   if (r.result.verdict == kmc::Verdict::Violated)
//     std::cout << kmc::report_text(r);              // the trace and its replay token
//
// The API itself is api/api.hpp; this header adds the vocabulary its values
// are made of (model/: the Kueue objects and the scenario; checker/: the
// verdicts). Everything else of kmc is installed too, under the folder names
// of the source tree ("engine/engine.hpp", "counterexamples/shrink.hpp"), for
// users who need more than the API; those headers are not a stable surface.
// The RapidCheck generators are separate, since they need <rapidcheck.h>:
// <kmc/rapidcheck/kueue.hpp> and <kmc/rapidcheck/fleet.hpp>.
#pragma once

#include "api/api.hpp"
#include "checker/result.hpp"
#include "model/fleet.hpp"
#include "model/kueue_objects.hpp"
#include "model/scenario.hpp"
