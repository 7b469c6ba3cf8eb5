// review_warnings: --strict refuses ignored input that could change the
// answer; otherwise repeated warnings collapse into one counted line.
#include "model/diagnostics.hpp"

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::fixture;
using kmc::test::input_error_of;

namespace {

// Built field by field, never as a brace-built aggregate in an expression: GCC 12 at -O3 (the
// Release build) warns -Wmaybe-uninitialized, falsely, on the cleanup of such temporaries (see
// model/diagnostics.hpp's InputError).
Diagnostic warning(std::string file, int line, std::string field, std::string message) {
  Diagnostic d;
  d.pos.file = std::move(file);
  d.pos.line = line;
  d.field = std::move(field);
  d.message = std::move(message);
  return d;
}

Diagnostic ignored(int line, std::string field, std::string concept_name) {
  Diagnostic d =
      warning("cq.yaml", line, field, "kmc does not model " + field + "; ignored: it matters");
  d.may_change_answer = !concept_name.empty();
  d.concept_ = std::move(concept_name);
  return d;
}

Diagnostic harmless(int line) {
  return warning("all.yaml", line, "kind", "kmc does not model kind Secret (v1); ignored");
}

}  // namespace

TEST_CASE("strict refuses the first warning that may change the answer, at its place") {
  const Warnings w = {harmless(1), ignored(7, "spec.admissionScope", "ClusterQueue.spec.a"),
                      ignored(9, "spec.topologyName", "ResourceFlavor.spec.topologyName")};
  const Diagnostic d = input_error_of([&] { review_warnings(w, true); });
  CHECK(d.pos == SourcePos{"cq.yaml", 7});
  CHECK(d.field == "spec.admissionScope");
  CHECK(d.message.starts_with("--strict: kmc does not model spec.admissionScope"));
}

TEST_CASE("strict lets warnings that cannot change the answer through") {
  const Warnings w = {harmless(1), harmless(2)};
  CHECK(review_warnings(w, true).size() == 1);
}

TEST_CASE("warnings of one concept collapse into one line with their count") {
  Warnings w;
  for (int i = 0; i < 20; ++i) w.push_back(ignored(10 + i, "spec.x", "Cohort.spec.x"));
  w.insert(w.begin() + 3, harmless(4));
  w.push_back(ignored(50, "spec.y", "Cohort.spec.y"));
  const auto lines = review_warnings(w, false);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] ==
        "Cohort.spec.x: ignored in 20 places (first at cq.yaml:10): kmc does not model spec.x; "
        "ignored: it matters");
  CHECK(lines[1] == "all.yaml:4: kind: kmc does not model kind Secret (v1); ignored");
  CHECK(lines[2] == "cq.yaml:50: spec.y: kmc does not model spec.y; ignored: it matters");
}

TEST_CASE("identical warnings without a concept collapse too, different texts do not") {
  const Warnings w = {harmless(1), harmless(2), harmless(3),
                      warning("all.yaml", 9, "kind", "kmc does not model kind Pod; ignored")};
  const auto lines = review_warnings(w, false);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] ==
        "kind: ignored in 3 places (first at all.yaml:1): kmc does not model kind "
        "Secret (v1); ignored");
}

TEST_CASE("the loader marks an ignored field that changes admission and names its kind") {
  const auto m = load_cluster_manifests({fixture("gpu-fleet/manager")});
  const Diagnostic* scope = nullptr;
  for (const auto& w : m.warnings)
    if (w.field == "spec.admissionScope") scope = &w;
  REQUIRE(scope != nullptr);
  CHECK(scope->may_change_answer);
  CHECK(scope->concept_ == "ClusterQueue.spec.admissionScope");
  CHECK(kmc::test::contains(scope->message, "admission order may differ because"));
  const Diagnostic d = input_error_of([&] { review_warnings(m.warnings, true); });
  CHECK(d.may_change_answer);
}

TEST_CASE("an unmodeled field that cannot change the answer is one concept in the summary") {
  std::string text;
  for (const char* name : {"a", "b", "c"})
    text += std::string(
                "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ProvisioningRequestConfig\n"
                "metadata:\n  name: ") +
            name +
            "\nspec:\n  provisioningClassName: check-capacity.autoscaling.x-k8s.io\n"
            "  podSetMergePolicy: IdenticalPodTemplates\n  parameters: {noRetry: \"true\"}\n";
  const std::string file = kmc::test::write_temp("merge-policy.yaml", text);
  const auto m = load_cluster_manifests({file});
  REQUIRE(m.warnings.size() == 3);
  CHECK_FALSE(m.warnings[0].may_change_answer);
  CHECK(m.warnings[0].concept_ == "ProvisioningRequestConfig.spec.podSetMergePolicy");
  CHECK(review_warnings(m.warnings, true).size() == 1);
  CHECK(review_warnings(m.warnings, false) ==
        std::vector<std::string>{"ProvisioningRequestConfig.spec.podSetMergePolicy: ignored in 3 "
                                 "places (first at " +
                                 file + ":8): kmc does not model spec.podSetMergePolicy; ignored"});
}
