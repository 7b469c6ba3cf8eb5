// AdmissionCheck, ProvisioningRequestConfig, MultiKueueConfig, MultiKueueCluster.
#include <fmt/format.h>

#include <set>

#include "model/manifest_readers.hpp"

namespace kmc::model {

AdmissionCheck read_admission_check(const YamlNode& object, ReadContext& ctx) {
  AdmissionCheck ac;
  ac.meta = read_meta(object, ctx, false);
  const YamlNode spec = require(object, "spec");
  check_keys(spec,
             {.modeled = {"controllerName", "parameters"}, .unmodeled = {"retryDelayMinutes"}},
             ctx.warnings);
  ac.controller_name = require(spec, "controllerName").str();
  const YamlNode params = spec["parameters"];
  check_keys(params, {.modeled = {"apiGroup", "kind", "name"}}, ctx.warnings);
  if (params.present()) {
    ac.parameters.api_group = require(params, "apiGroup").str();
    ac.parameters.kind = require(params, "kind").str();
    ac.parameters.name = require(params, "name").str();
  }
  return ac;
}

ProvisioningRequestConfig read_provisioning_config(const YamlNode& object, ReadContext& ctx) {
  ProvisioningRequestConfig config;
  config.meta = read_meta(object, ctx, false);
  const YamlNode spec = require(object, "spec");
  check_keys(
      spec,
      {.modeled = {"provisioningClassName", "parameters", "managedResources", "retryStrategy"},
       .unmodeled = {"podSetUpdates", "podSetMergePolicy"}},
      ctx.warnings);
  config.provisioning_class_name = require(spec, "provisioningClassName").str();
  config.parameters = spec["parameters"].string_map();
  config.managed_resources = spec["managedResources"].string_list();
  const YamlNode retry = spec["retryStrategy"];
  check_keys(retry, {.modeled = {"backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"}},
             ctx.warnings);
  RetryStrategy& r = config.retry_strategy;
  if (retry["backoffLimitCount"].present())
    r.backoff_limit_count = retry["backoffLimitCount"].int32(0);
  if (retry["backoffBaseSeconds"].present())
    r.backoff_base_seconds = retry["backoffBaseSeconds"].int32(0);
  if (retry["backoffMaxSeconds"].present())
    r.backoff_max_seconds = retry["backoffMaxSeconds"].int32(0);
  // Kueue copies the parameters into each ProvisioningRequest; the
  // check-capacity class reads noRetry (model/provisioning_class.hpp).
  return config;
}

MultiKueueConfig read_multikueue_config(const YamlNode& object, ReadContext& ctx) {
  MultiKueueConfig config;
  config.meta = read_meta(object, ctx, false);
  const YamlNode spec = require(object, "spec");
  check_keys(spec, {.modeled = {"clusters", "quotaManagement"}}, ctx.warnings);
  config.clusters = require(spec, "clusters").string_list();
  std::set<std::string> seen;
  for (const auto& c : config.clusters)
    if (!seen.insert(c).second)
      spec["clusters"].fail(fmt::format("cluster '{}' is listed twice", c));
  if (spec["quotaManagement"].present())
    config.automated_quota =
        spec["quotaManagement"].one_of<bool>({{"Manual", false}, {"Automated", true}});
  return config;
}

// How the manager reaches a worker (kubeConfig secret, ClusterProfile) is
// accepted silently: every MultiKueueCluster has one and kmc abstracts the
// connection to "active or not".
MultiKueueCluster read_multikueue_cluster(const YamlNode& object, ReadContext& ctx) {
  MultiKueueCluster cluster;
  cluster.meta = read_meta(object, ctx, false);
  check_keys(object["spec"], {.silent = {"kubeConfig", "clusterSource", "clusterProfileRef"}},
             ctx.warnings);
  for (const auto& condition : object["status"]["conditions"].items()) {
    if (condition["type"].present() && condition["type"].str() == "Active")
      cluster.active = condition["status"].present() && condition["status"].str() == "True";
  }
  return cluster;
}

}  // namespace kmc::model
