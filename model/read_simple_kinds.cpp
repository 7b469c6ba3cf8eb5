// The small kinds: ResourceFlavor, LocalQueue, WorkloadPriorityClass, Namespace.
#include <fmt/format.h>

#include "model/label_selector.hpp"
#include "model/manifest_readers.hpp"

namespace kmc::model {

ResourceFlavor read_resource_flavor(const YamlNode& object, ReadContext& ctx) {
  ResourceFlavor flavor;
  flavor.meta = read_meta(object, ctx, false);
  const YamlNode spec = object["spec"];
  check_keys(spec,
             {.modeled = {"nodeLabels", "nodeTaints", "tolerations"},
              .unmodeled = {{"topologyName",
                             "admission may differ because Topology Aware Scheduling admits a pod "
                             "set only where the topology's domains have room"}}},
             ctx.warnings);
  flavor.node_labels = read_labels(spec["nodeLabels"]);
  for (const auto& item : spec["nodeTaints"].items()) {
    check_keys(item, {.modeled = {"key", "value", "effect"}, .silent = {"timeAdded"}},
               ctx.warnings);
    Taint t;
    t.key = require(item, "key").str();
    if (item["value"].present()) t.value = item["value"].str();
    t.effect = require(item, "effect")
                   .one_of<std::string>({{"NoSchedule", "NoSchedule"},
                                         {"PreferNoSchedule", "PreferNoSchedule"},
                                         {"NoExecute", "NoExecute"}});
    flavor.node_taints.push_back(std::move(t));
  }
  flavor.tolerations = read_tolerations(spec["tolerations"], ctx);
  return flavor;
}

LocalQueue read_local_queue(const YamlNode& object, ReadContext& ctx) {
  LocalQueue lq;
  lq.meta = read_meta(object, ctx, true);
  const YamlNode spec = require(object, "spec");
  check_keys(spec,
             {.modeled = {"clusterQueue", "stopPolicy"},
              .unmodeled = {{"fairSharing",
                             "admission order may differ because admission fair sharing orders a "
                             "ClusterQueue's workloads by their LocalQueue's weighted usage"}}},
             ctx.warnings);
  lq.cluster_queue = require(spec, "clusterQueue").str();
  lq.stop_policy = read_stop_policy(spec["stopPolicy"]);
  return lq;
}

// WorkloadPriorityClass keeps `value` and `description` at the top level, like
// Kubernetes' PriorityClass.
WorkloadPriorityClass read_priority_class(const YamlNode& object, ReadContext& ctx) {
  WorkloadPriorityClass pc;
  pc.meta = read_meta(object, ctx, false, {"value", "description"});
  pc.value = require(object, "value").int32();
  return pc;
}

KubePriorityClass read_kube_priority_class(const YamlNode& object, ReadContext& ctx) {
  KubePriorityClass pc;
  pc.meta =
      read_meta(object, ctx, false, {"value", "globalDefault", "description", "preemptionPolicy"});
  pc.value = require(object, "value").int32();
  if (const YamlNode d = object["globalDefault"]; d.present()) {
    pc.global_default = d.boolean();
    pc.default_pos = d.pos();
  }
  return pc;
}

Namespace read_namespace(const YamlNode& object, ReadContext& ctx) {
  Namespace ns;
  ns.meta = read_meta(object, ctx, false);
  ns.meta.labels[kNamespaceNameLabel] = ns.meta.name;  // the API server sets it, always
  return ns;
}

}  // namespace kmc::model
