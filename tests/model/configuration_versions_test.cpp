// The Kueue Configuration as Kueue ends up with it from each apiVersion:
// defaulted in the version it is written in, converted to v1beta2, decoded
// strictly (pkg/config/config.go; apis/config/v1beta1/defaults.go and
// configuration_conversion.go; apis/config/v1beta2/defaults.go).
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::input_error_of;

namespace {

KueueConfiguration configuration(const std::string& version, const std::string& body) {
  const auto file = kmc::test::write_temp(
      "config-" + version + ".yaml",
      "apiVersion: config.kueue.x-k8s.io/" + version + "\nkind: Configuration\n" + body);
  return load_cluster_manifests({file}).configuration;
}

}  // namespace

TEST_CASE("v1beta2: waitForPodsReady is on, 30m where unset or 0, blockAdmission off") {
  auto w = configuration("v1beta2", "").wait_for_pods_ready;
  CHECK(w.enable);
  CHECK(w.timeout_s == 1800);
  CHECK_FALSE(w.block_admission);
  w = configuration("v1beta2", "waitForPodsReady: {timeout: 0s}\n").wait_for_pods_ready;
  CHECK(w.timeout_s == 1800);
  CHECK(w.recovery_timeout_s == 1800);
  // Only the feature gate turns it off (waitforpodsready.Enabled).
  w = configuration("v1beta2", "featureGates: {DisableWaitForPodsReady: true}\n")
          .wait_for_pods_ready;
  CHECK_FALSE(w.enable);
}

TEST_CASE("v1beta1: waitForPodsReady is off unless enabled, then blocks admission by default") {
  auto w = configuration("v1beta1", "").wait_for_pods_ready;
  CHECK_FALSE(w.enable);
  w = configuration("v1beta1", "waitForPodsReady: {timeout: 10m}\n").wait_for_pods_ready;
  CHECK_FALSE(w.enable);
  // BlockAdmission defaults to Enable; the timeout to 5m.
  w = configuration("v1beta1", "waitForPodsReady: {enable: true}\n").wait_for_pods_ready;
  CHECK(w.enable);
  CHECK(w.block_admission);
  CHECK(w.timeout_s == 300);
  CHECK(w.recovery_timeout_s == 300);
  w = configuration("v1beta1", "waitForPodsReady: {enable: true, blockAdmission: false}\n")
          .wait_for_pods_ready;
  CHECK_FALSE(w.block_admission);
  // fairSharing: only `enable: true` keeps the section through the conversion,
  // which gives an empty strategy list both strategies.
  CHECK_FALSE(configuration("v1beta1", "fairSharing: {}\n").fair_sharing.enable);
  const auto fs = configuration("v1beta1", "fairSharing: {enable: true}\n").fair_sharing;
  CHECK(fs.enable);
  CHECK(fs.preemption_strategies ==
        std::vector<std::string>{"LessThanOrEqualToFinalShare", "LessThanInitialShare"});
}

TEST_CASE("fairSharing.preemptionStrategies: Kueue's validation accepts three lists only") {
  CHECK(configuration("v1beta2", "fairSharing: {preemptionStrategies: [LessThanInitialShare]}\n")
            .fair_sharing.preemption_strategies.size() == 1);
  for (const char* body :
       {"fairSharing: {}\n",
        "fairSharing:\n  preemptionStrategies: [LessThanInitialShare, "
        "LessThanOrEqualToFinalShare]\n",
        "fairSharing:\n  preemptionStrategies: [LessThanInitialShare, LessThanInitialShare]\n"}) {
    const auto d = input_error_of([&] { configuration("v1beta2", body); });
    INFO(body << d.field << ": " << d.message);
    CHECK(d.pos.line >= 3);
    CHECK(contains(d.field, "fairSharing"));
    CHECK(contains(d.message, "Kueue's validation accepts only"));
  }
}

TEST_CASE("v1beta2 has no `enable`: Kueue's strict decoding refuses it, and so does kmc") {
  for (const char* body :
       {"waitForPodsReady:\n  enable: false\n", "fairSharing:\n  enable: true\n"}) {
    const auto d = input_error_of([&] { configuration("v1beta2", body); });
    INFO(d.field << ": " << d.message);
    CHECK(d.pos.line == 4);
    CHECK(contains(d.field, ".enable"));
    CHECK(contains(d.message, "config.kueue.x-k8s.io/v1beta2 has no"));
    CHECK(contains(d.message, "does not start"));
  }
}

TEST_CASE("requeuingStrategy.timestamp: Eviction by default, Creation read, others refused") {
  using enum RequeuingTimestamp;
  CHECK(configuration("v1beta2", "").wait_for_pods_ready.requeuing_timestamp == Eviction);
  CHECK(configuration("v1beta2", "waitForPodsReady:\n  requeuingStrategy: {timestamp: Creation}\n")
            .wait_for_pods_ready.requeuing_timestamp == Creation);
  // Read whether or not waitForPodsReady is on (podsReadyRequeuingTimestamp in main.go).
  CHECK(configuration("v1beta1", "waitForPodsReady:\n  requeuingStrategy: {timestamp: Creation}\n")
            .wait_for_pods_ready.requeuing_timestamp == Creation);
  const auto d = input_error_of([] {
    configuration("v1beta2", "waitForPodsReady:\n  requeuingStrategy:\n    timestamp: Arrival\n");
  });
  CHECK(d.pos.line == 5);
  CHECK(contains(d.field, "requeuingStrategy.timestamp"));
}
