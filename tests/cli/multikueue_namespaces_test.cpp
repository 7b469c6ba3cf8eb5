// A ClusterQueue's namespaceSelector in a MultiKueue fleet, as a user meets
// it: written out of a worker's ClusterQueue (nil: it selects no namespace),
// or out of the manager's, the protocol never admits the job there, the
// verdict says why, and the engine, which follows Kueue's scheduler on every
// cluster, reproduces the trace.
#include <catch2/catch.hpp>

#include "cli/run_kmc.hpp"

TEST_CASE("kmc check: a namespaceSelector that leaves the job out, on a worker or the manager",
          "[cli][multikueue][namespaces]") {
  const std::string selects_all = "namespaceSelector: {}";
  SECTION("asia-southeast1, the only worker with room, never admits it") {
    const auto dir =
        example_replacing("gpu-hunter-fixed", "workers/asia-southeast1/kueue-objects.yaml",
                          selects_all, "namespaceSelector: {matchLabels: {team: other}}");
    const Run r = kmc("check " + dir);
    CHECK(r.code == 1);
    CHECK(has(r.err, "namespaceSelector does not select namespace 'team-ml'"));
    // us-central1 has no GPUs: no worker could run it, so it is not stuck, it never runs.
    CHECK(has(r.out, "some-job-runs               Violated"));
    CHECK(has(r.out, "no-stuck-job                Verified"));
  }
  SECTION("the manager never admits it") {
    const auto dir =
        example_replacing("gpu-hunter-fixed", "manager/queues.yaml", "  " + selects_all + "\n", "");
    const Run r = kmc("check " + dir + " --replay-engine");
    CHECK(r.code == 1);
    CHECK(has(r.err, "is not set, so it selects no namespace, not even namespace 'team-ml'"));
    CHECK(has(r.out, "no-stuck-job"));
    CHECK(has(r.out, "the manager never admits it"));
    CHECK(has(r.out, "Reproduced in the engine"));
  }
}
