// A pod template's per-pod requests, computed as Kueue does before counting
// quota (k8s PodRequests after Kueue's limits-as-missing-requests defaulting):
//   max(Σ containers + Σ sidecars, peak during init) + overhead.
// A sidecar is an init container with restartPolicy: Always; it keeps running,
// so it adds to every later init container and to the main containers.
#include <fmt/format.h>

#include <algorithm>

#include "model/manifest_readers.hpp"

namespace kmc::model {
namespace {

// PodSpec and Container fields Kubernetes defines. kmc reads the resources,
// node selector and tolerations; the rest does not change how Kueue counts or
// places a pod, so it is accepted silently. Affinity does, but kmc does not
// model it: warned.
const KeyPolicy kPodSpecKeys{
    .modeled = {"containers", "initContainers", "overhead", "nodeSelector", "tolerations"},
    .unmodeled = {{"affinity",
                   "flavor assignment may differ because Kueue skips flavors whose nodeLabels "
                   "do not match the pod's required node affinity"},
                  "topologySpreadConstraints",
                  {"resourceClaims",
                   "quota counted may differ because Kueue's DRA integration counts claimed "
                   "devices as resources"},
                  {"resources",
                   "quota counted may differ because Kubernetes then counts the pod-level "
                   "requests instead of the containers' sum"}},
    .silent = {"volumes",
               "ephemeralContainers",
               "restartPolicy",
               "terminationGracePeriodSeconds",
               "activeDeadlineSeconds",
               "dnsPolicy",
               "serviceAccountName",
               "serviceAccount",
               "automountServiceAccountToken",
               "nodeName",
               "hostNetwork",
               "hostPID",
               "hostIPC",
               "shareProcessNamespace",
               "securityContext",
               "imagePullSecrets",
               "hostname",
               "subdomain",
               "schedulerName",
               "hostAliases",
               "priorityClassName",
               "priority",
               "dnsConfig",
               "readinessGates",
               "runtimeClassName",
               "enableServiceLinks",
               "preemptionPolicy",
               "setHostnameAsFQDN",
               "os",
               "hostUsers",
               "schedulingGates",
               "hostnameOverride"}};
const KeyPolicy kContainerKeys{.modeled = {"name", "resources", "restartPolicy"},
                               .silent = {"image",
                                          "command",
                                          "args",
                                          "workingDir",
                                          "ports",
                                          "envFrom",
                                          "env",
                                          "resizePolicy",
                                          "restartPolicyRules",
                                          "volumeMounts",
                                          "volumeDevices",
                                          "livenessProbe",
                                          "readinessProbe",
                                          "startupProbe",
                                          "lifecycle",
                                          "terminationMessagePath",
                                          "terminationMessagePolicy",
                                          "imagePullPolicy",
                                          "securityContext",
                                          "stdin",
                                          "stdinOnce",
                                          "tty"}};

// a + b, refused as bad input past what an int64 of milli-units holds (9.2e15
// units). Quantity's + does not check, since the checker adds on its hot path,
// so a sum of requests each within range (two containers of 5P cpu) wrapped:
// undefined behaviour and a nonsense pod size (seen reviewing what
// fuzz_manifests reaches, shown by it under UBSan; fuzz/regressions/manifests/).
Quantity checked_add(Quantity a, Quantity b, const std::string& name, const YamlNode& where) {
  Quantity sum;
  if (__builtin_add_overflow(a.milli, b.milli, &sum.milli))
    where.fail(fmt::format("the pod's {} requests add up to more than 9.2e15 units", name));
  return sum;
}

void add_to(ResourceList& total, const ResourceList& more, const YamlNode& where) {
  for (const auto& [name, q] : more) total[name] = checked_add(total[name], q, name, where);
}
void max_into(ResourceList& peak, const ResourceList& candidate) {
  for (const auto& [name, q] : candidate) peak[name] = std::max(peak[name], q);
}

// requests, with limits standing in for requests that are not given.
ResourceList container_requests(const YamlNode& container, ReadContext& ctx) {
  check_keys(container, kContainerKeys, ctx.warnings);
  const YamlNode resources = container["resources"];
  check_keys(resources,
             {.modeled = {"requests", "limits"},
              .unmodeled = {{"claims",
                             "quota counted may differ because Kueue's DRA integration counts "
                             "claimed devices as resources"}}},
             ctx.warnings);
  ResourceList out;
  for (const auto& e : resources["limits"].entries()) out[e.key] = e.value.quantity();
  for (const auto& e : resources["requests"].entries()) out[e.key] = e.value.quantity();
  return out;
}

ResourceList pod_requests(const YamlNode& spec, ReadContext& ctx) {
  ResourceList containers, sidecars, init_peak;
  for (const auto& c : require(spec, "containers").items())
    add_to(containers, container_requests(c, ctx), c);
  for (const auto& c : spec["initContainers"].items()) {
    const ResourceList requests = container_requests(c, ctx);
    const bool sidecar = c["restartPolicy"].present() && c["restartPolicy"].str() == "Always";
    if (sidecar) {
      add_to(sidecars, requests, c);
      max_into(init_peak, sidecars);
    } else {
      ResourceList during = sidecars;
      add_to(during, requests, c);
      max_into(init_peak, during);
    }
  }
  add_to(containers, sidecars, spec["initContainers"]);
  max_into(containers, init_peak);
  for (const auto& e : spec["overhead"].entries())
    containers[e.key] = checked_add(containers[e.key], e.value.quantity(), e.key, e.value);
  return containers;
}

}  // namespace

void read_pod_template(const YamlNode& template_node, PodSet& pod_set, ReadContext& ctx) {
  check_keys(template_node, {.modeled = {"metadata", "spec"}}, ctx.warnings);
  read_pod_spec(require(template_node, "spec"), pod_set, ctx);
}

void read_pod_spec(const YamlNode& spec, PodSet& pod_set, ReadContext& ctx) {
  check_keys(spec, kPodSpecKeys, ctx.warnings);
  pod_set.requests = pod_requests(spec, ctx);
  pod_set.node_selector = read_labels(spec["nodeSelector"]);
  pod_set.tolerations = read_tolerations(spec["tolerations"], ctx);
}

}  // namespace kmc::model
