#include <algorithm>
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "model/scenario.hpp"

using namespace kmc::model;
using kmc::test::contains;
using kmc::test::fixture;
using kmc::test::input_error_of;
using kmc::test::write_temp;

TEST_CASE("kmc.yaml is read with every key of the fleet schema") {
  const Fleet f = load_fleet(fixture("gpu-fleet/kmc.yaml"));
  CHECK(f.manager == "manager");
  REQUIRE(f.workers.size() == 2);
  CHECK(f.workers[0].name == "us-central1");
  CHECK(f.workers[0].pos == SourcePos{fixture("gpu-fleet/kmc.yaml"), 5});
  CHECK(f.workers[0].answer == AutoscalerAnswer::AcceptsThenHangs);
  CHECK(f.workers[0].capacity.at("h100").at("nvidia.com/gpu") == Quantity::from_units(0));
  CHECK(f.workers[1].answer == AutoscalerAnswer::Provisions);
  CHECK(f.workers[1].capacity.at("h100").at("nvidia.com/gpu") == Quantity::from_units(8));
  CHECK(f.snapshot.at("us-central1").at("h100").at("nvidia.com/gpu") == Quantity::from_units(8));
  CHECK(f.dispatcher.policy == DispatchPolicy::CapacitySnapshot);
  CHECK(f.dispatcher.pin);
  CHECK_FALSE(f.options.provisioning_timeout);
  CHECK(f.options.max_snapshot_staleness == -1);
  CHECK(f.environment.spot_reclaims == 1);
  CHECK(f.environment.snapshot_refreshes == -1);
  CHECK(f.check.properties == std::vector<std::string>{"no-stuck-job", "some-job-runs"});
  CHECK(f.check.max_depth == 40);
  CHECK(f.check.max_states == 100000);
  CHECK(f.check.time_limit_s == 60);
}

TEST_CASE("an unknown autoscaler answer in kmc.yaml names the line and the accepted answers") {
  const auto d = input_error_of([] { load_fleet(fixture("bad-fleet/kmc.yaml")); });
  CHECK(d.to_string() ==
        fixture("bad-fleet/kmc.yaml") +
            ":7: workers[0].autoscaler.answer: unknown value 'Hang'; expected one of "
            "Provisions, Fails, AcceptsThenHangs, Any");
}

TEST_CASE("an unknown key in kmc.yaml is an error at its line") {
  const std::string file = write_temp("kmc-typo.yaml",
                                      "apiVersion: kmc.dev/v1alpha1\n"
                                      "kind: Fleet\n"
                                      "workers: [{name: a}]\n"
                                      "environment:\n"
                                      "  spotReclaim: 2\n");
  const auto d = input_error_of([&] { load_fleet(file); });
  CHECK(d.pos == SourcePos{file, 5});
  CHECK(d.field == "environment.spotReclaim");
  CHECK(contains(d.message, "unknown field"));
}

TEST_CASE("kmc.yaml rejects negative budgets, duplicate workers and snapshots of unknown workers") {
  const std::string negative =
      write_temp("kmc-neg.yaml",
                 "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\nworkers: [{name: a}]\n"
                 "environment: {spotReclaims: -1}\n");
  CHECK(input_error_of([&] { load_fleet(negative); }).field == "environment.spotReclaims");
  const std::string twice = write_temp("kmc-twice.yaml",
                                       "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\nworkers:\n"
                                       "  - name: a\n  - name: a\n");
  const auto d = input_error_of([&] { load_fleet(twice); });
  CHECK(d.pos.line == 5);
  CHECK(d.field == "workers[1].name");
  const std::string snapshot =
      write_temp("kmc-snap.yaml",
                 "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\nworkers: [{name: a}]\n"
                 "snapshot:\n  b: {h100: {cpu: 1}}\n");
  const auto s = input_error_of([&] { load_fleet(snapshot); });
  CHECK(s.pos.line == 5);
  CHECK(s.field == "snapshot.b");
}

TEST_CASE("a scenario folder loads manager and workers in kmc.yaml's order") {
  const Scenario s = load_scenario(fixture("gpu-fleet"));
  CHECK(s.dir == fixture("gpu-fleet"));
  REQUIRE(s.workers.size() == 2);
  CHECK(s.workers[0].dir == fixture("gpu-fleet/workers/us-central1"));
  CHECK(s.workers[1].cluster_queues.at(0).meta.pos.file ==
        fixture("gpu-fleet/workers/us-east1/cluster.yml"));
  CHECK(s.manager.cluster_queues.size() == 1);
  // Warnings of every cluster end up in the scenario.
  auto has = [&](const std::string& part) {
    return std::any_of(s.warnings.begin(), s.warnings.end(),
                       [&](const Diagnostic& d) { return contains(d.to_string(), part); });
  };
  CHECK(has("manager/queues.yaml:43: spec.admissionScope: kmc does not model"));
  CHECK(has("us-central1/dump.yaml:16: items[0].spec.topologyName: kmc does not model"));
}

TEST_CASE("a worker listed in kmc.yaml without its folder is an error at the kmc.yaml line") {
  const auto d = input_error_of([] { load_scenario(fixture("missing-worker")); });
  CHECK(d.pos == SourcePos{fixture("missing-worker/kmc.yaml"), 6});
  CHECK(d.field == "workers[1].name");
  CHECK(contains(d.message, fixture("missing-worker/workers/us-central1")));
}

TEST_CASE("a worker folder not listed in kmc.yaml is an error naming the folder") {
  const auto d = input_error_of([] { load_scenario(fixture("extra-worker")); });
  CHECK(d.pos.file == fixture("extra-worker/workers/us-central1"));
  CHECK(contains(d.message, "not listed"));
}

TEST_CASE("a scenario without kmc.yaml is an error naming the file") {
  const auto d = input_error_of([] { load_scenario(fixture("bad")); });
  CHECK(d.pos.file == fixture("bad/kmc.yaml"));
}

TEST_CASE("capacity of a flavor the worker does not define is an error") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "kmc-model-tests" / "capacity";
  fs::remove_all(dir);
  fs::create_directories(dir / "manager");
  fs::create_directories(dir / "workers" / "a");
  std::ofstream(dir / "kmc.yaml") << "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\nworkers:\n"
                                     "  - name: a\n    capacity: {a100: {nvidia.com/gpu: 4}}\n";
  std::ofstream(dir / "workers" / "a" / "rf.yaml")
      << "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: h100}\n";
  const auto d = input_error_of([&] { load_scenario(dir.string()); });
  CHECK(d.pos == SourcePos{(dir / "kmc.yaml").string(), 5});
  CHECK(d.field == "workers[0].capacity.a100");
  CHECK(contains(d.message, "ResourceFlavor 'a100' not found on worker 'a'"));
}

TEST_CASE("a worker with no MultiKueueCluster on the manager is an error") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "kmc-model-tests" / "unconnected";
  fs::remove_all(dir);
  fs::create_directories(dir / "manager");
  fs::create_directories(dir / "workers" / "a");
  std::ofstream(dir / "kmc.yaml")
      << "apiVersion: kmc.dev/v1alpha1\nkind: Fleet\nworkers:\n  - name: a\n";
  const auto d = input_error_of([&] { load_scenario(dir.string()); });
  CHECK(d.pos == SourcePos{(dir / "kmc.yaml").string(), 4});
  CHECK(d.field == "workers[0].name");
  CHECK(contains(d.message, "no MultiKueueCluster 'a' on the manager"));
}
