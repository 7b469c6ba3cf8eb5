// The priority-boost annotation end to end: the loader folds it into the
// workload's priority (tests/model/priority_boost_test.cpp), and both the
// engine (`kmc admit`) and the kueue-admission protocol (`kmc check`) then
// order the queue by it, as Kueue's heap does with EffectivePriority.
#include <catch2/catch.hpp>

#include "cli/run_kmc.hpp"

namespace {

// pods-quota (two of three 1-pod jobs fit) with c, the newest, boosted by 1.
std::string boosted(bool gate) {
  const std::string fixture = std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/pods-quota";
  std::string manifests = slurp(fixture + "/cluster/manifests.yaml");
  const std::string meta = "metadata: {name: c, namespace: ns}";
  manifests.replace(manifests.find(meta), meta.size(),
                    "metadata:\n  name: c\n  namespace: ns\n"
                    "  annotations: {kueue.x-k8s.io/priority-boost: '1'}");
  manifests =
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "featureGates: {PriorityBoost: " +
      std::string(gate ? "true" : "false") + "}\n---\n" + manifests;
  const auto dir = folder_with(fixture, "cluster/manifests.yaml", manifests);
  std::ofstream(dir + "/kmc.yaml", std::ios::app)
      << "  - name: b-never-before-c\n"
         "    always: \"!(phase[ns/b] == Admitted && phase[ns/c] == Pending)\"\n";
  return dir;
}

}  // namespace

TEST_CASE("priority boost: with the gate on the boosted newest job goes ahead of older ones",
          "[cli][admission][priority-boost]") {
  const auto dir = boosted(true);
  auto r = kmc("admit " + dir + "/cluster --expect admitted=ns/a,admitted=ns/c,pending=ns/b");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_FALSE(has(r.err, "PriorityBoost"));  // read, so neither ignored nor unmodelled
  r = kmc("check " + dir + " --property b-never-before-c --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.out, "b-never-before-c  Verified"));
}

TEST_CASE("priority boost: with the gate off the annotation is ignored, as Kueue ignores it",
          "[cli][admission][priority-boost]") {
  const auto dir = boosted(false);
  auto r = kmc("admit " + dir + "/cluster --expect admitted=ns/a,admitted=ns/b,pending=ns/c");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(has(r.err, "the PriorityBoost feature gate is off"));
  r = kmc("check " + dir + " --property b-never-before-c --replay-engine");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(has(r.out, "Reproduced in the engine"));
  // `--strict` refuses input Kueue reads and kmc ignores; an annotation Kueue ignores is not it.
  CHECK(kmc("admit " + dir + "/cluster --strict").code == 0);
}
