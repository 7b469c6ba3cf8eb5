// Checks one scenario folder through kmc's library API and prints every
// property's verdict, then re-executes the counterexample (if any) in the
// reference admission engine. Exit codes as `kmc check`'s: 0 Verified,
// 1 Violated, 2 Incomplete, 3 bad input.
//
//   check_scenario SCENARIO_DIR [TRACE_FILE]
#include <fstream>
#include <iostream>
#include <kmc/kmc.hpp>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: check_scenario SCENARIO_DIR [TRACE_FILE]\n";
    return 3;
  }
  try {
    const kmc::Scenario scenario = kmc::load_scenario(argv[1]);
    std::cout << "protocol: " << kmc::protocol_name(scenario) << "\n";

    kmc::CheckOptions options;  // the scenario's kmc.yaml decides properties and bounds
    options.time_limit_s = 60;
    const kmc::CheckResult result = kmc::check(scenario, options);
    for (const auto& p : result.result.properties)
      std::cout << "property " << p.name << ": " << kmc::checker::to_string(p.verdict) << "\n";
    if (const auto v = kmc::verdict_of(result, "no-stuck-job"))
      std::cout << "no-stuck-job is " << kmc::checker::to_string(*v) << "\n";
    std::cout << "Result: " << kmc::checker::to_string(result.result.verdict) << "\n";

    // The counterexample as ITF JSON, replayed in the engine as `kmc replay` does.
    if (const auto itf = kmc::trace_itf(result); itf && argc > 2) {
      std::ofstream(argv[2]) << *itf << "\n";
      const kmc::ReplayResult replay = kmc::replay(argv[2]);
      std::cout << "engine replay: " << (replay.reproduced ? "Reproduced" : "Diverged") << "\n";
    }
    switch (result.result.verdict) {
      case kmc::Verdict::Verified:
        return 0;
      case kmc::Verdict::Violated:
        return 1;
      case kmc::Verdict::Incomplete:
        return 2;
      case kmc::Verdict::Vacuous:  // a property's verdict only: a run's is never Vacuous
        return 0;
    }
  } catch (const kmc::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return 3;
}
