// Objects of owner chains, for the tests of which job Kueue takes a Job,
// JobSet or Pod to be part of (owner_chain_test, external_frameworks_test).
#pragma once

#include <fmt/format.h>

#include <string>

#include "fixtures.hpp"
#include "model/scenario.hpp"

namespace kmc::test::owners {

using model::ClusterManifests;
using model::load_cluster_manifests;

inline const std::string kQueued = "  labels: {kueue.x-k8s.io/queue-name: lq}\n";

inline std::string config(const std::string& frameworks) {
  return "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
         "integrations: {frameworks: [" +
         frameworks + "]}\n---\n";
}

// A Configuration with `frameworks` and, as integrations.externalFrameworks,
// `external` ("Kind.version.group", comma separated).
inline std::string config(const std::string& frameworks, const std::string& external) {
  return "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
         "integrations:\n  frameworks: [" +
         frameworks + "]\n  externalFrameworks: [" + external + "]\n---\n";
}

// A controller ownerReference to `kind` `name`, whose uid is "uid-<name>".
inline std::string owned_by(const std::string& api_version, const std::string& kind,
                            const std::string& name) {
  return "  ownerReferences: [{apiVersion: " + api_version + ", kind: " + kind + ", name: " + name +
         ", uid: uid-" + name + ", controller: true}]\n";
}

// An object of a kind kmc does not read, in the cluster (it has its uid).
inline std::string object(const std::string& api_version, const std::string& kind,
                          const std::string& name, const std::string& metadata = "") {
  return "apiVersion: " + api_version + "\nkind: " + kind + "\nmetadata:\n  name: " + name +
         "\n  namespace: ns\n  uid: uid-" + name + "\n" + metadata + "spec: {}\n---\n";
}

inline std::string job(const std::string& name, const std::string& metadata) {
  return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name + "\n  namespace: ns\n" +
         metadata +
         "spec:\n  template:\n    spec:\n      containers: [{name: c, resources: {requests: "
         "{cpu: '1'}}}]\n---\n";
}

inline std::string jobset(const std::string& name, const std::string& metadata) {
  return "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: " + name +
         "\n  namespace: ns\n" + metadata +
         "spec:\n  replicatedJobs:\n  - name: w\n    template:\n      spec:\n        template:\n"
         "          spec:\n            containers: [{name: c}]\n---\n";
}

inline std::string pod(const std::string& name, const std::string& metadata) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: ns\n" +
         metadata + "spec:\n  containers: [{name: c, resources: {requests: {cpu: '1'}}}]\n---\n";
}

inline const std::string kJobSetApi = "jobset.x-k8s.io/v1alpha2";
inline const std::string kAppWrapperApi = "workload.codeflare.dev/v1beta2";

inline ClusterManifests load(const std::string& text) {
  return load_cluster_manifests({write_temp("chain.yaml", text)});
}

// A queued Job under `n` JobSets s1 .. sn, each owned by the next; the
// top one names a queue when `top_queued`.
inline std::string jobset_chain(int n, bool top_queued) {
  std::string text = config("batch/job, jobset.x-k8s.io/jobset") +
                     job("j", kQueued + owned_by(kJobSetApi, "JobSet", "s1"));
  for (int i = 1; i <= n; ++i) {
    const std::string above = i < n ? owned_by(kJobSetApi, "JobSet", fmt::format("s{}", i + 1))
                                    : (top_queued ? kQueued : std::string());
    text += jobset(fmt::format("s{}", i), fmt::format("  uid: uid-s{}\n{}", i, above));
  }
  return text;
}

inline bool has_job(const ClusterManifests& m, const std::string& kind, const std::string& name) {
  for (const auto& w : m.workloads)
    if (w.source_kind == kind && w.meta.name == name) return true;
  return false;
}

}  // namespace kmc::test::owners
