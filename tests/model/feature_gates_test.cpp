#include <catch2/catch.hpp>

#include "model/kueue_objects.hpp"

using kmc::model::FeatureGates;

TEST_CASE("feature gates default to Kueue's values at the reference commit") {
  FeatureGates gates;
  CHECK(gates.enabled("PartialAdmission"));
  CHECK_FALSE(gates.enabled("PrioritizePreemptorWorkloads"));
  CHECK_FALSE(gates.enabled("MultiKueueManagerQuotaAutomation"));
  CHECK(gates.enabled("MultiKueueWaitForWorkloadAdmitted"));
  CHECK(gates.enabled("MultiKueueRedoAdmissionOnEvictionInWorker"));
}

TEST_CASE("explicit feature gate settings override defaults, unknown gates are off") {
  FeatureGates gates;
  gates.gates["PartialAdmission"] = false;
  gates.gates["SomethingNew"] = true;
  CHECK_FALSE(gates.enabled("PartialAdmission"));
  CHECK(gates.enabled("SomethingNew"));
  CHECK_FALSE(gates.enabled("NoSuchGate"));
}
