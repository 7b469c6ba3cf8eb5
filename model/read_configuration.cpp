// The Kueue Configuration (config.kueue.x-k8s.io v1beta1/v1beta2), directly or
// inside the ConfigMap kueue-manager-config that Kueue's manifests install.
//
// kmc reads what changes admission and dispatch: feature gates,
// waitForPodsReady, fairSharing and multiKueue. Process plumbing (webhook,
// metrics, leader election, ...) is accepted silently; settings that change
// Kueue's behaviour but that kmc does not model are warned about.
#include <fmt/format.h>

#include "model/manifest_readers.hpp"

namespace kmc::model {
namespace {

constexpr const char* kManagerConfigMap = "kueue-manager-config";
constexpr const char* kManagerConfigKey = "controller_manager_config.yaml";

void read_wait_for_pods_ready(const YamlNode& node, ReadContext& ctx, WaitForPodsReady& w) {
  check_keys(
      node,
      {.modeled = {"enable", "timeout", "blockAdmission", "recoveryTimeout", "requeuingStrategy"}},
      ctx.warnings);
  if (node["enable"].present()) w.enable = node["enable"].boolean();
  if (node["timeout"].present()) w.timeout_s = node["timeout"].duration_s();
  // recoveryTimeout defaults to timeout (apis/config/v1beta2/defaults.go).
  w.recovery_timeout_s =
      node["recoveryTimeout"].present() ? node["recoveryTimeout"].duration_s() : w.timeout_s;
  if (node["blockAdmission"].present()) w.block_admission = node["blockAdmission"].boolean();
  const YamlNode requeuing = node["requeuingStrategy"];
  check_keys(requeuing,
             {.modeled = {"backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"},
              .unmodeled = {"timestamp"}},
             ctx.warnings);
  if (requeuing["backoffLimitCount"].present())
    w.backoff_limit_count = requeuing["backoffLimitCount"].int32(0);
  if (requeuing["backoffBaseSeconds"].present())
    w.backoff_base_s = requeuing["backoffBaseSeconds"].int64(0, INT32_MAX);
  if (requeuing["backoffMaxSeconds"].present())
    w.backoff_max_s = requeuing["backoffMaxSeconds"].int64(0, INT32_MAX);
}

void read_multi_kueue(const YamlNode& node, ReadContext& ctx, MultiKueueSettings& m) {
  check_keys(node,
             {.modeled = {"gcInterval", "origin", "workerLostTimeout", "dispatcherName",
                          "incrementalDispatcherConfig"},
              .unmodeled = {"externalFrameworks", "clusterProfile"}},
             ctx.warnings);
  if (node["gcInterval"].present()) m.gc_interval_s = node["gcInterval"].duration_s();
  if (node["origin"].present()) m.origin = node["origin"].str();
  if (node["workerLostTimeout"].present())
    m.worker_lost_timeout_s = node["workerLostTimeout"].duration_s();
  // Any name is valid: names other than the two built-ins select an External
  // dispatcher, a controller outside Kueue that writes nominatedClusterNames.
  if (node["dispatcherName"].present()) {
    m.dispatcher_name = node["dispatcherName"].str();
    if (m.dispatcher_name.empty()) node["dispatcherName"].fail("must not be empty");
  }
  const YamlNode incremental = node["incrementalDispatcherConfig"];
  check_keys(incremental, {.modeled = {"stepSize"}}, ctx.warnings);
  if (incremental["stepSize"].present()) m.incremental_step_size = incremental["stepSize"].int32(1);
}

void read_fair_sharing(const YamlNode& node, ReadContext& ctx, FairSharingSettings& f) {
  check_keys(node, {.modeled = {"enable", "preemptionStrategies"}}, ctx.warnings);
  // v1beta2 dropped `enable`: a fairSharing section turns it on.
  f.enable = node.present();
  if (node["enable"].present()) f.enable = node["enable"].boolean();
  for (const auto& item : node["preemptionStrategies"].items())
    f.preemption_strategies.push_back(
        item.one_of<std::string>({{"LessThanOrEqualToFinalShare", "LessThanOrEqualToFinalShare"},
                                  {"LessThanInitialShare", "LessThanInitialShare"}}));
}

}  // namespace

KueueConfiguration read_configuration(const YamlNode& object, ReadContext& ctx) {
  check_keys(object,
             {.modeled = {"apiVersion", "kind", "featureGates", "waitForPodsReady", "fairSharing",
                          "multiKueue"},
              .unmodeled = {"manageJobsWithoutQueueName", "managedJobsNamespaceSelector",
                            "integrations", "resources", "admissionFairSharing",
                            "objectRetentionPolicies", "queueVisibility", "dra"},
              .silent = {"metadata", "namespace", "internalCertManagement", "clientConnection",
                         "health", "metrics", "webhook", "leaderElection", "controller",
                         "pprofBindAddress", "cacheSyncTimeout"}},
             ctx.warnings);
  KueueConfiguration config;
  config.pos = object.pos();
  for (const auto& e : object["featureGates"].entries())
    config.feature_gates.gates[e.key] = e.value.boolean();
  read_wait_for_pods_ready(object["waitForPodsReady"], ctx, config.wait_for_pods_ready);
  read_fair_sharing(object["fairSharing"], ctx, config.fair_sharing);
  read_multi_kueue(object["multiKueue"], ctx, config.multi_kueue);
  return config;
}

std::optional<KueueConfiguration> read_config_map(const YamlNode& object, ReadContext& ctx) {
  ObjectMeta meta = read_meta(object, ctx, true, {"data", "binaryData", "immutable"});
  const YamlNode embedded = object["data"][kManagerConfigKey];
  if (meta.name != kManagerConfigMap || !embedded.present()) return std::nullopt;
  // A block scalar ("|") starts on the line after its key; best effort for
  // other styles, which are rare for a whole file.
  auto documents = parse_yaml_text(embedded.str(), object.file(), embedded.line());
  if (documents.size() != 1)
    embedded.fail("expected exactly one YAML document holding the Configuration");
  const YamlNode& inner = documents.front();
  const YamlNode api_version = require(inner, "apiVersion");
  const std::string version = api_version.str();
  if (version != "config.kueue.x-k8s.io/v1beta1" && version != "config.kueue.x-k8s.io/v1beta2")
    api_version.fail(fmt::format(
        "unsupported apiVersion '{}'; expected config.kueue.x-k8s.io/v1beta1 or v1beta2", version));
  if (require(inner, "kind").str() != "Configuration")
    inner["kind"].fail("expected kind Configuration");
  return read_configuration(inner, ctx);
}

}  // namespace kmc::model
