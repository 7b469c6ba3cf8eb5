// A Job's pods naming a Kubernetes PriorityClass, end to end: `kmc admit` orders
// by that class's value, as Kueue does (jobframework ExtractPriority).
// tests/model/kube_priority_class_test.cpp has the reading itself.
#include <catch2/catch.hpp>
#include <fstream>

#include "cli/run_kmc.hpp"

TEST_CASE("admit: a Job's Kubernetes PriorityClass orders it", "[cli][admission][priority]") {
  const std::string file = temp_path("kube-priority.yaml");
  std::ofstream(file) << R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: [cpu]
      flavors: [{name: default, resources: [{name: cpu, nominalQuota: 1}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: urgent}
value: 1000
---
apiVersion: batch/v1
kind: Job
metadata: {name: early, namespace: ns, labels: {kueue.x-k8s.io/queue-name: lq},
           creationTimestamp: "2026-12-05T10:00:00Z"}
spec:
  template:
    spec:
      containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: late, namespace: ns, labels: {kueue.x-k8s.io/queue-name: lq},
           creationTimestamp: "2026-12-05T10:05:00Z"}
spec:
  template:
    spec:
      priorityClassName: urgent
      containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
)";
  auto r = kmc("admit " + file + " --strict --expect admitted=ns/late,pending=ns/early");
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_FALSE(has(r.err, "PriorityClass"));
}
