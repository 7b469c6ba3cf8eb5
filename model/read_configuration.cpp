// The Kueue Configuration (config.kueue.x-k8s.io v1beta1/v1beta2), directly or
// inside the ConfigMap kueue-manager-config that Kueue's manifests install.
//
// kmc reads what changes admission and dispatch: feature gates,
// waitForPodsReady, fairSharing, multiKueue and resources. Process plumbing (webhook,
// metrics, leader election, ...) is accepted silently; settings that change
// Kueue's behaviour but that kmc does not model are warned about.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <map>

#include "model/label_selector.hpp"
#include "model/manifest_readers.hpp"

namespace kmc::model {
namespace {

constexpr const char* kManagerConfigMap = "kueue-manager-config";
constexpr const char* kManagerConfigKey = "controller_manager_config.yaml";

// Kueue decodes its Configuration strictly (pkg/config/config.go fromFile:
// serializer.EnableStrict), defaulting it in the version it is written in and
// converting it to v1beta2. A field the version (`written`) does not have stops Kueue.
void refuse_field(const YamlNode& node, const char* written, const std::string& what) {
  if (node.present())
    node.fail(
        fmt::format("config.kueue.x-k8s.io/{} has no {}: Kueue decodes its "
                    "Configuration strictly and does not start",
                    written, what));
}

// waitForPodsReady as Kueue ends up with it (waitforpodsready.Enabled: the
// v1beta2 section present, and the feature gate DisableWaitForPodsReady off).
// - v1beta2 (apis/config/v1beta2/defaults.go): always present; timeout 30m
//   where unset or 0; blockAdmission false.
// - v1beta1 (apis/config/v1beta1/defaults.go, configuration_conversion.go):
//   off unless `enable: true`; then timeout 5m where unset, and blockAdmission
//   defaults to enable, so true.
// Both: recoveryTimeout defaults to timeout.
void read_wait_for_pods_ready(const YamlNode& node, ReadContext& ctx, bool v1beta1,
                              WaitForPodsReady& w) {
  check_keys(
      node,
      {.modeled = {"enable", "timeout", "blockAdmission", "recoveryTimeout", "requeuingStrategy"}},
      ctx.warnings);
  if (v1beta1) {
    w.enable = node["enable"].present() && node["enable"].boolean();
    w.timeout_s = 5 * 60;
    w.block_admission = w.enable;
  } else {
    refuse_field(node["enable"], "v1beta2",
                 "waitForPodsReady.enable (waitForPodsReady is always on in v1beta2; "
                 "the feature gate DisableWaitForPodsReady turns it off)");
  }
  if (node["timeout"].present()) w.timeout_s = node["timeout"].duration_s();
  if (!v1beta1 && w.timeout_s == 0) w.timeout_s = 30 * 60;
  w.recovery_timeout_s =
      node["recoveryTimeout"].present() ? node["recoveryTimeout"].duration_s() : w.timeout_s;
  if (node["blockAdmission"].present()) w.block_admission = node["blockAdmission"].boolean();
  const YamlNode requeuing = node["requeuingStrategy"];
  check_keys(
      requeuing,
      {.modeled = {"backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds", "timestamp"}},
      ctx.warnings);
  if (const YamlNode ts = requeuing["timestamp"]; ts.present())
    w.requeuing_timestamp = ts.one_of<RequeuingTimestamp>(
        {{"Eviction", RequeuingTimestamp::Eviction}, {"Creation", RequeuingTimestamp::Creation}});
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

void read_fair_sharing(const YamlNode& node, ReadContext& ctx, bool v1beta1,
                       FairSharingSettings& f) {
  check_keys(node, {.modeled = {"enable", "preemptionStrategies"}}, ctx.warnings);
  // v1beta2 dropped `enable`: a fairSharing section turns it on. In v1beta1
  // only `enable: true` does (the conversion drops the section otherwise).
  if (v1beta1) {
    f.enable = node["enable"].present() && node["enable"].boolean();
  } else {
    refuse_field(node["enable"], "v1beta2",
                 "fairSharing.enable (a fairSharing section turns it on)");
    f.enable = node.present();
  }
  for (const auto& item : node["preemptionStrategies"].items())
    f.preemption_strategies.push_back(
        item.one_of<std::string>({{"LessThanOrEqualToFinalShare", "LessThanOrEqualToFinalShare"},
                                  {"LessThanInitialShare", "LessThanInitialShare"}}));
  if (!f.enable) return;
  // Kueue's validation (pkg/config/validation.go validateFairSharing) refuses
  // any other list, and so does not start; v1beta1's conversion fills an
  // empty one with both.
  const std::vector<std::string> both = {"LessThanOrEqualToFinalShare", "LessThanInitialShare"};
  if (v1beta1 && f.preemption_strategies.empty()) f.preemption_strategies = both;
  const auto& s = f.preemption_strategies;
  if (s == both || (s.size() == 1 && (s[0] == both[0] || s[0] == both[1]))) return;
  const YamlNode at = node["preemptionStrategies"].present() ? node["preemptionStrategies"] : node;
  at.fail(fmt::format(
      "{}: Kueue's validation accepts only [{}], [{}] or [{}, {}], and does not "
      "start otherwise",
      s.empty() ? "must be specified" : "unsupported list", both[0], both[1], both[0], both[1]));
}

// resources: what Kueue counts of each pod's requests (pkg/workload/workload.go,
// totalRequestsFromPodSets). Applied to the workloads once every file is read
// (apply_resource_settings), since the Configuration may come after them.
void read_resources(const YamlNode& node, ReadContext& ctx, const FeatureGates& gates, bool v1beta1,
                    ResourceSettings& r) {
  // quotaCheckStrategy is v1beta2's only (configuration_types.go).
  if (v1beta1) refuse_field(node["quotaCheckStrategy"], "v1beta1", "resources.quotaCheckStrategy");
  check_keys(node,
             {.modeled = {"excludeResourcePrefixes", "transformations", "quotaCheckStrategy"},
              .unmodeled = {{"deviceClassMappings",
                             "quota counted may differ because Kueue's DRA integration counts "
                             "claimed devices as resources"}}},
             ctx.warnings);
  r.exclude_resource_prefixes = node["excludeResourcePrefixes"].string_list();
  // Kueue reads and validates it only under its QuotaCheckStrategy gate
  // (validateQuotaCheckStrategy, flavorassigner); BlockUndeclared is what kmc models.
  if (const YamlNode strategy = node["quotaCheckStrategy"];
      strategy.present() && gates.enabled("QuotaCheckStrategy")) {
    const std::string value = strategy.str();
    if (value != "BlockUndeclared" && value != "IgnoreUndeclared")
      strategy.fail(
          fmt::format("unsupported value '{}'; Kueue accepts BlockUndeclared or "
                      "IgnoreUndeclared and refuses the Configuration",
                      value));
    if (value == "IgnoreUndeclared" && !r.exclude_resource_prefixes.empty())
      strategy.fail(
          "excludeResourcePrefixes is not allowed when quotaCheckStrategy is IgnoreUndeclared; "
          "Kueue refuses the Configuration");
    if (value == "IgnoreUndeclared") {
      Diagnostic d = strategy.diagnostic(
          "kmc does not model quotaCheckStrategy IgnoreUndeclared; ignored: admission may differ "
          "because IgnoreUndeclared admits workloads whose resources no ClusterQueue covers");
      d.may_change_answer = true;
      d.concept_ = "resources.quotaCheckStrategy";
      ctx.warnings.push_back(std::move(d));
    }
  }
  std::map<std::string, int> seen_line;
  for (const auto& item : node["transformations"].items()) {
    check_keys(item, {.modeled = {"input", "strategy", "multiplyBy", "outputs"}}, ctx.warnings);
    ResourceTransformation t;
    const YamlNode input = require(item, "input");
    t.input = input.str();
    // Kueue's validation refuses a second transformation of one input (the
    // list is a map keyed by input), so Kueue would not start.
    if (auto [it, inserted] = seen_line.emplace(t.input, input.line()); !inserted)
      input.fail(
          fmt::format("a second transformation of '{}'; first at line {}", t.input, it->second));
    if (item["strategy"].present())
      t.strategy = item["strategy"].one_of<TransformationStrategy>(
          {{"Retain", TransformationStrategy::Retain},
           {"Replace", TransformationStrategy::Replace}});
    if (item["multiplyBy"].present()) t.multiply_by = item["multiplyBy"].str();
    for (const auto& e : item["outputs"].entries())
      t.outputs.push_back({e.key, e.value.quantity(true), e.value.diagnostic("")});
    r.transformations.push_back(std::move(t));
  }
}

// The built-in integrations' names (each FrameworkName in pkg/controller/jobs).
constexpr const char* kFrameworks[] = {"batch/job",
                                       "deployment",
                                       "jobset.x-k8s.io/jobset",
                                       "kubeflow.org/jaxjob",
                                       "kubeflow.org/mpijob",
                                       "kubeflow.org/paddlejob",
                                       "kubeflow.org/pytorchjob",
                                       "kubeflow.org/tfjob",
                                       "kubeflow.org/xgboostjob",
                                       "leaderworkerset.x-k8s.io/leaderworkerset",
                                       "pod",
                                       "ray.io/raycluster",
                                       "ray.io/rayjob",
                                       "ray.io/rayservice",
                                       "sparkoperator.k8s.io/sparkapplication",
                                       "statefulset",
                                       "trainer.kubeflow.org/trainjob",
                                       "workload.codeflare.dev/appwrapper"};

// Configuration.namespace and managedJobsNamespaceSelector, defaulted and
// validated as Kueue does (SetDefaults_Configuration,
// validateManagedJobsNamespaceSelector).
void read_managed_namespaces(const YamlNode& object, ReadContext& ctx,
                             JobIntegrationSettings& settings) {
  if (const YamlNode ns = object["namespace"]; ns.present()) settings.kueue_namespace = ns.str();
  LabelSelector& selector = settings.managed_jobs_namespace_selector;
  const YamlNode written = object["managedJobsNamespaceSelector"];
  if (written.present()) {
    selector = read_selector(written, ctx);
    settings.selector_pos = written.pos();
  } else {
    selector.match_expressions.at(0).values = {"kube-system", settings.kueue_namespace};
  }
  // Kueue refuses to start on a selector that would manage jobs where it runs.
  for (const std::string& ns : {std::string("kube-system"), settings.kueue_namespace})
    if (!ns.empty() && selector_matches(selector, {{kNamespaceNameLabel, ns}}))
      written.fail(fmt::format("should not match the \"{}\" namespace; Kueue does not start", ns));
}

// integrations.externalFrameworks, each "Kind.version.group" as Kueue's
// validateIntegrations parses it (schema.ParseKindArg: at least two dots, the
// group the rest), refusing one twice or one of a listed integration's kind.
std::vector<ExternalFramework> read_external_frameworks(const YamlNode& integrations,
                                                        const std::vector<std::string>& listed) {
  std::vector<ExternalFramework> out;
  for (const auto& item : integrations["externalFrameworks"].items()) {
    const std::string arg = item.str();
    const std::size_t first = arg.find('.');
    const std::size_t second = first == std::string::npos ? first : arg.find('.', first + 1);
    if (second == std::string::npos)
      item.fail(fmt::format("'{}' must be of the form 'Kind.version.group.com'", arg));
    const std::string kind = arg.substr(0, first);
    const std::string version = arg.substr(first + 1, second - first - 1);
    const std::string group = arg.substr(second + 1);
    ExternalFramework f{group.empty() ? version : group + "/" + version, kind};
    for (const auto& seen : out)
      if (seen.api_version == f.api_version && seen.kind == f.kind)
        item.fail(fmt::format("'{}' listed twice; Kueue refuses that", arg));
    if (const auto built_in = integration_of(f.api_version, f.kind);
        built_in && std::find(listed.begin(), listed.end(), *built_in) != listed.end())
      item.fail(
          fmt::format("'{}' is the kind of framework '{}', which frameworks lists; Kueue "
                      "refuses that",
                      arg, *built_in));
    out.push_back(std::move(f));
  }
  return out;
}

void read_job_integrations(const YamlNode& object, ReadContext& ctx, bool v1beta1,
                           JobIntegrationSettings& settings) {
  const YamlNode integrations = object["integrations"];
  // podOptions is v1beta1's, and its conversion drops it; v1beta2 has no such field.
  KeyPolicy integration_keys{.modeled = {"frameworks", "externalFrameworks"},
                             .silent = {"labelKeysToCopy"}};
  if (v1beta1) integration_keys.silent.push_back("podOptions");
  check_keys(integrations, integration_keys, ctx.warnings);
  // validateIntegrations: Kueue refuses to start on a name no integration has, or on one twice.
  const YamlNode listed = integrations["frameworks"];
  std::vector<std::string> names;
  for (const auto& item : listed.items()) {
    const std::string name = item.str();
    if (std::find(std::begin(kFrameworks), std::end(kFrameworks), name) == std::end(kFrameworks))
      item.fail(fmt::format("unsupported framework '{}'; Kueue's are {}", name,
                            fmt::join(kFrameworks, ", ")));
    if (std::find(names.begin(), names.end(), name) != names.end())
      item.fail(fmt::format("framework '{}' listed twice; Kueue refuses that", name));
    names.push_back(name);
  }
  if (!names.empty()) settings.frameworks = std::move(names);  // else SetDefaults_Configuration
  settings.external_frameworks = read_external_frameworks(integrations, settings.frameworks);
  read_managed_namespaces(object, ctx, settings);
}

}  // namespace

KueueConfiguration read_configuration(const YamlNode& object, ReadContext& ctx,
                                      JobIntegrationSettings* integrations) {
  check_keys(object,
             {.modeled = {"apiVersion", "kind", "featureGates", "waitForPodsReady", "fairSharing",
                          "multiKueue", "resources", "integrations", "namespace",
                          "managedJobsNamespaceSelector", "manageJobsWithoutQueueName"},
              .unmodeled = {{"admissionFairSharing",
                             "admission order may differ because admission fair sharing orders "
                             "workloads by their LocalQueue's usage"},
                            "objectRetentionPolicies",
                            "queueVisibility",
                            {"dra",
                             "quota counted may differ because Kueue's DRA integration counts "
                             "claimed devices as resources"}},
              .silent = {"metadata", "internalCertManagement", "clientConnection", "health",
                         "metrics", "webhook", "leaderElection", "controller", "pprofBindAddress",
                         "cacheSyncTimeout", "tls", "visibilityServer"}},
             ctx.warnings);
  // false is Kueue's default, which kmc models; true is not modelled.
  if (const YamlNode manage = object["manageJobsWithoutQueueName"];
      manage.present() && manage.boolean()) {
    Diagnostic d = manage.diagnostic(
        "kmc does not model manageJobsWithoutQueueName: true; ignored: admission may differ "
        "because Kueue then also manages Jobs without the queue-name label, in the namespaces "
        "managedJobsNamespaceSelector selects");
    d.may_change_answer = true;
    d.concept_ = "manageJobsWithoutQueueName";
    ctx.warnings.push_back(std::move(d));
  }
  KueueConfiguration config;
  config.pos = object.pos();
  for (const auto& e : object["featureGates"].entries())
    config.feature_gates.gates[e.key] = e.value.boolean();
  const bool v1beta1 = object["apiVersion"].present() &&
                       object["apiVersion"].str() == "config.kueue.x-k8s.io/v1beta1";
  read_wait_for_pods_ready(object["waitForPodsReady"], ctx, v1beta1, config.wait_for_pods_ready);
  if (config.feature_gates.enabled("DisableWaitForPodsReady"))
    config.wait_for_pods_ready.enable = false;
  read_fair_sharing(object["fairSharing"], ctx, v1beta1, config.fair_sharing);
  read_multi_kueue(object["multiKueue"], ctx, config.multi_kueue);
  read_resources(object["resources"], ctx, config.feature_gates, v1beta1, config.resources);
  JobIntegrationSettings settings;  // read even when unwanted: Kueue validates them
  read_job_integrations(object, ctx, v1beta1, settings);
  if (integrations != nullptr) *integrations = std::move(settings);
  return config;
}

std::optional<KueueConfiguration> read_config_map(const YamlNode& object, ReadContext& ctx,
                                                  JobIntegrationSettings* integrations) {
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
  return read_configuration(inner, ctx, integrations);
}

}  // namespace kmc::model
