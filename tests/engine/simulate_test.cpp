// `kmc simulate` on a small generator config, and its input errors.
#include "engine/simulate.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "model/diagnostics.hpp"

using namespace kmc::engine;

TEST_CASE("simulate: one queue, no contention: admission is immediate", "[engine][simulate]") {
  GeneratorConfig c;
  GeneratorQueuesSet q{"cq", 2, "10", "", "Never", "Never", {{5, 100, {{"small", 200, 0, "1"}}}}};
  c.cohorts.push_back({"cohort", 1, {q}});
  const SimulationSummary s = simulate(c, 1);
  CHECK(s.workloads == 10);
  CHECK(s.finished == 10);
  CHECK(s.workload_classes.at("small").avg_time_to_admission_ms == 0);
  CHECK(s.workload_classes.at("small").avg_time_to_finish_ms == 200);
  // 2 queues x 10 cpu nominal; each runs 1 cpu for 200ms of every 100ms interval... until 700ms
  CHECK(s.virtual_ms == 700);
  CHECK(s.cluster_queue_classes.at("cq").usage_percent ==
        Approx(100.0 * 2 * 5 * 200 / (2 * 10 * 700.0)));
}

TEST_CASE("simulate: bad generator files name file, line and field", "[engine][simulate]") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("kmc-bad-generator-" + std::to_string(::getpid()) + ".yaml"))
                               .string();
  std::ofstream(path) << "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n  "
                         "  count: 1\n    nominalQuota: lots\n";
  try {
    load_generator(path);
    FAIL("expected an InputError");
  } catch (const kmc::model::InputError& e) {
    CHECK(e.diagnostic.pos.line == 5);
    CHECK(e.diagnostic.field == "cohorts[0].queuesSets[0].nominalQuota");
  }
}
