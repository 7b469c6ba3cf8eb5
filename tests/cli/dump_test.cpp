// A kubectl dump as it comes (issue 15, item 1), read from standard input:
// Jobs beside the Workloads Kueue made for them, Jobs named by generateName,
// and kinds kmc does not read, give Kueue's answer.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/run_kmc.hpp"

TEST_CASE("kmc admit - on a kubectl dump counts each job once and gives Kueue's answer",
          "[cli][dump]") {
  // 9 CPUs of quota; four Jobs of 3 CPUs each, in creation order: sample-a (admitted, its
  // Workload in the dump), sample-b (its Workload queued), then two generateName Jobs. Kueue
  // admits three in that order and leaves the last pending: 9 CPUs in use. Counting a Job and
  // its Workload twice would queue six entries.
  const std::string dump = std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/kubectl-dump.yaml";
  const auto r =
      kmc("admit - --output json --expect admitted=team/job-sample-a-5c9d1,"
          "admitted=team/job-sample-b-7e2f0,admitted=team/sample-job-1,"
          "pending=team/sample-job-2 < " +
          dump);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["workloads"].size() == 4);
  CHECK(j["clusterQueues"][0]["admitted"] == 3);
  CHECK(j["clusterQueues"][0]["pending"] == 1);
  CHECK(j["clusterQueues"][0]["usage"]["default-flavor"]["cpu"] == "9");
  // One note per dropped owner, one per ignored kind; nothing refused.
  CHECK(r.err.find("<stdin>:29: metadata.name: Job team/sample-a is owned by Workload "
                   "team/job-sample-a-5c9d1") != std::string::npos);
  CHECK(r.err.find("kmc does not model kind Deployment") != std::string::npos);
  // The same dump as a file, and --strict: nothing in it could change the answer.
  CHECK(kmc("admit " + dump + " --strict --expect pending=team/sample-job-2").code == 0);
}

TEST_CASE("kmc admit on a dump taken mid-backoff requeues at requeueAt, in eviction order",
          "[cli][dump]") {
  // old-job waits out a backoff until 10:12; retried-job, evicted at 10:08, is
  // back in the queue; new-job was created at 10:05. cq {cpu: 1}: Kueue admits
  // new-job (the oldest queue-order timestamp), and both others wait for it.
  // Before requeueState was read, old-job waited forever and retried-job,
  // ordered by its creation (09:50), went first.
  const std::string dir = std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/dumped-backoff";
  const auto r = kmc("admit " + dir +
                     "/cluster --output json --expect admitted=ns/new-job,pending=ns/retried-job,"
                     "pending=ns/old-job");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(nlohmann::json::parse(r.out)["clusterQueues"][0]["admitted"] == 1);
  // The model agrees: every run ends with each job admitted or deactivated,
  // and the checker answers for the whole scenario.
  const auto c = kmc("check " + dir);
  INFO(c.out << c.err);
  CHECK(c.code == 0);
  CHECK(has(c.out, "Verified"));
}

TEST_CASE("kmc admit and check on that dump with requeuingStrategy.timestamp Creation",
          "[cli][dump][queue-order]") {
  // The same dump, but Kueue orders a workload a PodsReady timeout evicted by
  // its creation: retried-job (09:50) now goes before new-job (10:05).
  const std::string source = std::string(KMC_SOURCE_DIR) + "/tests/cli/fixtures/dumped-backoff";
  std::string text = slurp(source + "/cluster/dump.yaml");
  const std::string limit = "    backoffLimitCount: 2\n";
  REQUIRE(has(text, limit));
  text.replace(text.find(limit), limit.size(), limit + "    timestamp: Creation\n");
  const std::string dir = folder_with(source, "cluster/dump.yaml", text);
  const auto r = kmc("admit " + dir +
                     "/cluster --expect admitted=ns/retried-job,pending=ns/new-job,"
                     "pending=ns/old-job");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_FALSE(has(r.err, "timestamp"));  // modelled now: no warning
  const auto c = kmc("check " + dir + " --strict");
  INFO(c.out << c.err);
  CHECK(c.code == 0);
  CHECK(has(c.out, "Verified"));
}
