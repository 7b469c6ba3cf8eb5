// `kmc simulate GENERATOR.yaml [--seed N]`: Kueue's scheduler-performance
// workload stream through the reference engine on its virtual clock.
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "engine/simulate.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cli {

void add_simulate_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "simulate", "replay a Kueue scheduler-performance generator config on the engine");
  struct Options {
    std::string path;
    std::string seed = "1";  // cli/options.hpp
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("generator", opts->path,
                  "generator.yaml (Kueue's test/performance/scheduler format)")
      ->required();
  cmd->add_option("--seed", opts->seed, "orders workloads created in the same millisecond");
  cmd->callback([opts, &exit_code] {
    exit_code = guarded([&] {
      const auto seed = static_cast<std::uint64_t>(integer_option("--seed", opts->seed, 0));
      const engine::GeneratorConfig config = engine::load_generator(opts->path);
      const auto start =
          std::chrono::steady_clock::now();  // the simulation's own wall time, for the report
      const engine::SimulationSummary s = engine::simulate(
          config, seed, [](std::int64_t at, std::int64_t done, std::int64_t total) {
            std::cerr << fmt::format("\r[simulate] virtual {:.1f}s, {}/{} workloads finished",
                                     at / 1000.0, done, total)
                      << std::flush;
          });
      const auto wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now() - start)
                               .count();
      std::cerr << "\n";
      std::cout << fmt::format(
          "seed: {}\nwallMs: {}\nvirtualMs: {}\nschedulingCycles: {}\nworkloads: {} (finished {}, "
          "preempted at least once {})\n",
          s.seed, wall_ms, s.virtual_ms, s.cycles, s.workloads, s.finished, s.evictions);
      std::cout << "clusterQueueClasses:\n";
      for (const auto& [cls, u] : s.cluster_queue_classes) {
        std::cout << fmt::format("  {}: usage {:.1f}% of nominal ({} queues)\n", cls,
                                 u.usage_percent, u.queues);
      }
      std::cout << "workloadClasses:\n";
      for (const auto& [cls, c] : s.workload_classes) {
        std::cout << fmt::format(
            "  {}: count {}, averageTimeToAdmissionMs {}, averageTimeToFinishMs {}\n", cls, c.count,
            c.avg_time_to_admission_ms, c.avg_time_to_finish_ms);
      }
      return 0;
    });
  });
}

}  // namespace kmc::cli
