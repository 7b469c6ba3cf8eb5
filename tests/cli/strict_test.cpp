// Ignored input (issue 15, item 3): without --strict, one warning line per
// ignored concept with its consequence, repeats collapsed; with --strict, the
// first ignored input that could change the answer is exit 3 at its line.
#include <catch2/catch.hpp>

#include "cli/run_kmc.hpp"

namespace {

// gpu-hunter with every ClusterQueue in a cohort, which the MultiKueue protocol does not model.
std::string with_cohorts() {
  namespace fs = std::filesystem;
  const fs::path dir = temp_path("cohorts");
  fs::copy(fs::path(KMC_SOURCE_DIR) / "examples/gpu-hunter", dir, fs::copy_options::recursive);
  // The manager's ClusterQueue is a document of its own; each worker's, an item of a kind: List.
  const std::vector<std::pair<std::string, std::string>> files = {
      {"manager/queues.yaml", ""},
      {"workers/us-central1/kueue-objects.yaml", "  "},
      {"workers/asia-southeast1/kueue-objects.yaml", "  "}};
  for (const auto& [rel, indent] : files) {
    const std::string file = (dir / rel).string();
    std::string text = slurp(file);
    const auto cq = text.find("kind: ClusterQueue");
    REQUIRE(cq != std::string::npos);
    const std::string spec = "\n" + indent + "spec:\n";
    const auto at = text.find(spec, cq);
    REQUIRE(at != std::string::npos);
    text.replace(at, spec.size(), spec + indent + "  cohortName: all\n");
    std::ofstream(file) << text;
  }
  return dir.string();
}

// gpu-hunter with `reclaims` spot reclaims, and worker asia-southeast1's Configuration holding
// waitForPodsReady.requeuingStrategy {`strategy`}.
std::string gpu_hunter_requeuing(const std::string& reclaims, const std::string& strategy) {
  auto dir =
      example_replacing("gpu-hunter", "kmc.yaml", "environment: {snapshotRefreshes: -1}",
                        "environment: {snapshotRefreshes: -1, spotReclaims: " + reclaims + "}");
  std::ofstream(dir + "/workers/asia-southeast1/config.yaml")
      << "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
         "waitForPodsReady:\n  requeuingStrategy: {"
      << strategy << "}\n";
  return dir;
}

}  // namespace

TEST_CASE("check: ignored cohorts are one warning line with their count; --strict refuses them",
          "[cli][strict]") {
  const std::string dir = with_cohorts();
  const auto r = kmc("check " + dir);
  CHECK(r.code == 1);  // the same answer, with the warning
  CHECK(count(r.err, "does not model cohorts") == 1);
  CHECK(r.err.find("ClusterQueue.spec.cohortName: ignored in 3 places (first at ") !=
        std::string::npos);
  const auto strict = kmc("check " + dir + " --strict");
  CHECK(strict.code == 3);
  CHECK(names_line(strict.err, dir + "/manager/queues.yaml", "spec.cohortName"));
  CHECK(strict.err.find("--strict: the MultiKueue protocol does not model cohorts") !=
        std::string::npos);
  CHECK(strict.out.empty());
  std::filesystem::remove_all(dir);
}

TEST_CASE("admit --strict: a field Kueue has and kmc ignores, that changes admission, is exit 3",
          "[cli][strict]") {
  const std::string fixture = "tests/engine/fixtures/gpu-cohort";
  CHECK(kmc("admit " + fixture + " --strict").code == 0);  // nothing ignored there
  // A ClusterQueue admitting only within an admissionScope Kueue applies and kmc does not model.
  const std::string file = temp_path("scoped.yaml");
  std::string text = slurp(fixture + "/cluster.yaml");
  const auto cq = text.find("kind: ClusterQueue");
  text.replace(text.find("\nspec:\n", cq), 7,
               "\nspec:\n  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}\n");
  std::ofstream(file) << text;
  const auto warned = kmc("admit " + file);
  CHECK(warned.code == 0);
  CHECK(warned.err.find("spec.admissionScope") != std::string::npos);
  const auto strict = kmc("admit " + file + " --strict");
  CHECK(strict.code == 3);
  CHECK(names_line(strict.err, file, "spec.admissionScope"));
  std::filesystem::remove(file);
}

TEST_CASE("kueue-admission: a feature gate set away from its default is ignored input",
          "[cli][strict][admission]") {
  // The model follows Kueue with the gates it does not read at their defaults.
  const std::string ex = "preemption-grace-hol-fixed";
  auto config = [&](const std::string& gates) {
    return example_with(ex, "cluster/kueue-config.yaml",
                        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                        "featureGates:\n  FastQuotaReleaseInPodIntegration: true\n" +
                            gates);
  };
  // Read by the model, or at its default: no warning.
  auto r = kmc("check " + config("  PrioritizePreemptorWorkloads: false\n") + " --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_FALSE(has(r.err, "featureGates"));
  // Read by the model since it models the gate off: no warning either way.
  r = kmc("check " + config("  PrioritySortingWithinCohort: false\n") + " --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_FALSE(has(r.err, "featureGates"));
  const auto dir = config("  ConcurrentAdmission: true\n");
  r = kmc("check " + dir);
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.err, "featureGates.ConcurrentAdmission"));
  CHECK(has(r.err, "at its default (off)"));
  r = kmc("check " + dir + " --strict");
  INFO(r.out << r.err);
  CHECK(r.code == 3);
  CHECK(names_line(r.err, dir + "/cluster/kueue-config.yaml", "featureGates.ConcurrentAdmission"));
}

// Past waitForPodsReady's backoffLimitCount, Kueue deactivates a copy evicted by a PodsReady
// timeout (reconcileNotReadyTimeout); MultiKueue's SpotReclaim requeues it every time. Where the
// spot budget lets one job be reclaimed more often than the limit, that is ignored input.
TEST_CASE("multikueue: spot reclaims past a worker's backoffLimitCount are ignored input",
          "[cli][strict][multikueue]") {
  const auto with = [](const std::string& limit, const std::string& reclaims) {
    return gpu_hunter_requeuing(reclaims, "backoffLimitCount: " + limit);
  };
  const std::string field = "waitForPodsReady.requeuingStrategy.backoffLimitCount";
  auto r = kmc("check " + with("1", "2") + " --max-states 2000");
  INFO(r.out << r.err);
  CHECK(has(r.err, "config.yaml:1: " + field));  // the Configuration, and the field in it
  CHECK(has(r.err, "deactivates"));
  r = kmc("check " + with("1", "2") + " --strict");
  CHECK(r.code == 3);
  CHECK(has(r.err, "config.yaml:1: " + field));  // the Configuration, and the field in it
  // A budget within the limit cannot tell the two apart: no warning.
  r = kmc("check " + with("2", "2") + " --max-states 2000");
  CHECK_FALSE(has(r.err, field));
}

// requeuingStrategy.timestamp Creation orders a copy a PodsReady timeout evicted by its creation
// on the worker; the MultiKueue protocol does not keep that order once the copy is admitted.
TEST_CASE("multikueue: requeuingStrategy.timestamp Creation with spot reclaims is ignored input",
          "[cli][strict][multikueue]") {
  const auto with = [](const std::string& timestamp, const std::string& reclaims) {
    return gpu_hunter_requeuing(reclaims, "timestamp: " + timestamp);
  };
  const std::string field = "waitForPodsReady.requeuingStrategy.timestamp";
  auto r = kmc("check " + with("Creation", "1") + " --max-states 2000");
  INFO(r.out << r.err);
  CHECK(has(r.err, "config.yaml:1: " + field));
  CHECK(has(r.err, "by the copy's creation"));
  r = kmc("check " + with("Creation", "1") + " --strict");
  CHECK(r.code == 3);
  // Without spot reclaims no copy is evicted for its pods; Eviction is what kmc models.
  r = kmc("check " + with("Creation", "0") + " --max-states 2000");
  CHECK_FALSE(has(r.err, field));
  r = kmc("check " + with("Eviction", "1") + " --max-states 2000");
  CHECK_FALSE(has(r.err, field));
}
