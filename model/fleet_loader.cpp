// kmc.yaml: the fleet around the Kubernetes objects (see fleet.hpp for meaning).
//
// Every key is known; anything else is an error at its line, since a typo in
// a budget or an option would otherwise silently check a different scenario.
#include <fmt/format.h>

#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "model/fleet.hpp"
#include "model/manifest_readers.hpp"
#include "model/yaml_node.hpp"

namespace kmc::model {
namespace {

constexpr const char* kFleetApiVersion = "kmc.dev/v1alpha1";

FlavorResources read_flavor_resources(const YamlNode& node) {
  FlavorResources out;
  for (const auto& flavor : node.entries()) {
    auto& resources = out[flavor.key];
    for (const auto& resource : flavor.value.entries())
      resources[resource.key] = resource.value.quantity();
  }
  return out;
}

// `autoscaler: {answer: ...}`: a worker's, or a single cluster's.
AutoscalerAnswer read_autoscaler(const YamlNode& autoscaler, Warnings& w, AutoscalerAnswer dflt) {
  check_keys(autoscaler, {.modeled = {"answer"}}, w);
  if (!autoscaler["answer"].present()) return dflt;
  return autoscaler["answer"].one_of<AutoscalerAnswer>(
      {{"Provisions", AutoscalerAnswer::Provisions},
       {"Fails", AutoscalerAnswer::Fails},
       {"AcceptsThenHangs", AutoscalerAnswer::AcceptsThenHangs},
       {"Any", AutoscalerAnswer::Any}});
}

WorkerSpec read_worker(const YamlNode& node, Warnings& w) {
  check_keys(node, {.modeled = {"name", "region", "capacity", "autoscaler"}}, w);
  WorkerSpec worker;
  worker.pos = node.pos();
  worker.name = require(node, "name").str();
  if (worker.name.empty()) node["name"].fail("must not be empty");
  worker.region = node["region"].present() ? node["region"].str() : worker.name;
  worker.capacity = read_flavor_resources(node["capacity"]);
  worker.capacity_pos = node["capacity"].pos();
  worker.answer = read_autoscaler(node["autoscaler"], w, worker.answer);
  return worker;
}

void read_options(const YamlNode& node, Warnings& w, Fleet& fleet) {
  check_keys(
      node,
      {.modeled = {"provisioningTimeout", "timeoutVsBoot", "maxSnapshotStaleness", "variant"}}, w);
  ProtocolOptions& o = fleet.options;
  if (node["provisioningTimeout"].present())
    o.provisioning_timeout = node["provisioningTimeout"].boolean();
  if (node["maxSnapshotStaleness"].present())
    o.max_snapshot_staleness = node["maxSnapshotStaleness"].int32(-1);
  if (node["variant"].present()) o.variant = node["variant"].str();
  if (node["timeoutVsBoot"].present())
    o.timeout_vs_boot = node["timeoutVsBoot"].one_of<std::string>(
        {{"Either", "Either"}, {"TimeoutFirst", "TimeoutFirst"}, {"BootFirst", "BootFirst"}});
}

// A list of Workloads as "namespace/name", each once (environment.arrivals, .deletions).
void read_workload_list(const YamlNode& node, const char* what, const Fleet& fleet,
                        std::vector<std::string>& keys, std::vector<SourcePos>& pos) {
  if (!node.present()) return;
  if (fleet.protocol != "kueue-admission")
    node.fail(fmt::format("only protocol kueue-admission models workloads {}", what));
  std::set<std::string> seen;
  for (const auto& item : node.items()) {
    const std::string key = item.str();
    if (key.find('/') == std::string::npos)
      item.fail(fmt::format("'{}' must name a Workload as namespace/name", key));
    if (!seen.insert(key).second) item.fail(fmt::format("'{}' is listed twice", key));
    keys.push_back(key);
    pos.push_back(item.pos());
  }
}

// environment.queueEdits: [{clusterQueue: NAME | localQueue: NAMESPACE/NAME | cohort: NAME,
// stopPolicy: X, quotas: [...]} | {clusterQueue|cohort: NAME, delete: true}].
// Whether the queues exist is the protocol's to check, once the manifests are read.
// A quota limit as an edit writes it: left out, a value, or null (removed).
std::optional<std::optional<Quantity>> read_limit_change(const YamlNode& node) {
  if (!node.raw().IsDefined()) return std::nullopt;
  if (node.raw().IsNull()) return std::optional<Quantity>{};
  return std::optional<Quantity>{node.quantity()};
}

std::vector<QuotaChange> read_quota_changes(const YamlNode& list, Warnings& w) {
  std::vector<QuotaChange> out;
  for (const auto& item : list.items()) {
    check_keys(
        item, {.modeled = {"flavor", "resource", "nominalQuota", "borrowingLimit", "lendingLimit"}},
        w);
    QuotaChange c;
    c.pos = item.pos();
    if (!item["flavor"].present() || !item["resource"].present())
      item.fail("a quota change names its flavor and resource");
    c.flavor = item["flavor"].str();
    c.resource = item["resource"].str();
    if (item["nominalQuota"].present()) c.nominal_quota = item["nominalQuota"].quantity();
    c.borrowing_limit = read_limit_change(item["borrowingLimit"]);
    c.lending_limit = read_limit_change(item["lendingLimit"]);
    if (!c.nominal_quota && !c.borrowing_limit && !c.lending_limit)
      item.fail("a quota change sets nominalQuota, borrowingLimit or lendingLimit");
    out.push_back(std::move(c));
  }
  return out;
}

void read_queue_edits(const YamlNode& node, Warnings& w, Fleet& fleet) {
  if (!node.present()) return;
  if (fleet.protocol != "kueue-admission")
    node.fail("only protocol kueue-admission models edits of queues during the run");
  auto& out = fleet.environment.queue_edits;
  fleet.environment.queue_edits_pos = node.pos();
  for (const auto& item : node.items()) {
    check_keys(item,
               {.modeled = {"clusterQueue", "localQueue", "cohort", "stopPolicy", "quotas",
                            "delete", "create"}},
               w);
    QueueEdit e;
    e.pos = item.pos();
    const bool cq = item["clusterQueue"].present(), lq = item["localQueue"].present(),
               cohort = item["cohort"].present();
    if (int(cq) + int(lq) + int(cohort) != 1)
      item.fail("an edit names exactly one of clusterQueue, localQueue and cohort");
    if (cq) e.cluster_queue = item["clusterQueue"].str();
    if (cohort) e.cohort = item["cohort"].str();
    if (lq) {
      e.local_queue = item["localQueue"].str();
      if (e.local_queue.find('/') == std::string::npos)
        item["localQueue"].fail(
            fmt::format("'{}' must name a LocalQueue as namespace/name", e.local_queue));
    }
    if (item["stopPolicy"].present()) {
      if (cohort) item["stopPolicy"].fail("a Cohort has no stopPolicy");
      e.stop_policy = read_stop_policy(item["stopPolicy"]);
    }
    if (item["quotas"].present()) {
      if (lq) item["quotas"].fail("a LocalQueue has no quotas: edit its ClusterQueue's");
      e.quotas = read_quota_changes(item["quotas"], w);
      if (e.quotas.empty()) item["quotas"].fail("lists no quota change");
    }
    if (item["delete"].present()) {
      const YamlNode del = item["delete"];
      e.deletes = del.boolean();
      if (!e.deletes) del.fail("delete: false is not an edit; leave the item out");
      if (e.stop_policy || !e.quotas.empty()) del.fail("a deletion is an edit of its own");
    }
    if (item["create"].present()) {
      const YamlNode create = item["create"];
      e.creates = create.boolean();
      if (!e.creates) create.fail("create: false is not an edit; leave the item out");
      if (e.stop_policy || !e.quotas.empty() || e.deletes)
        create.fail("a creation is an edit of its own: the queue is created as its manifest says");
    }
    if (!e.deletes && !e.creates && !e.stop_policy && e.quotas.empty())
      item.fail(cohort ? "a Cohort's edit sets quotas, deletes it (delete: true) or creates it "
                         "(create: true)"
                : lq   ? "an edit sets stopPolicy (None, Hold or HoldAndDrain)"
                       : "an edit sets stopPolicy (None, Hold or HoldAndDrain) or quotas, or "
                         "deletes the ClusterQueue (delete: true), or creates it (create: true)");
    out.push_back(std::move(e));
  }
}

void read_environment(const YamlNode& node, Warnings& w, Fleet& fleet) {
  check_keys(node,
             {.modeled = {"spotReclaims", "capacityLosses", "snapshotRefreshes", "stuckTerminating",
                          "controllerRestarts", "podsReadyTimeouts", "admissionWriteFailures",
                          "evictionWriteFailures", "lateAdmissionWrites", "podFailures",
                          "workerDisconnects", "capacityReturns", "capacityRevocations", "arrivals",
                          "deletions", "queueEdits"}},
             w);
  // A budget only its own protocol reads: elsewhere it would be silently
  // ignored, and the fleet reported checked against faults it never saw.
  static const std::vector<std::pair<std::string_view, std::string_view>> owner = {
      {"spotReclaims", "multikueue"},
      {"capacityLosses", "multikueue"},
      {"snapshotRefreshes", "multikueue"},
      {"workerDisconnects", "multikueue"},
      {"capacityReturns", "multikueue"},
      {"capacityRevocations", "multikueue"},
      {"capacityRevocations", "kueue-admission"},
      {"stuckTerminating", "kueue-admission"},
      {"controllerRestarts", "kueue-admission"},
      {"podsReadyTimeouts", "kueue-admission"},
      {"admissionWriteFailures", "kueue-admission"},
      {"evictionWriteFailures", "kueue-admission"},
      {"lateAdmissionWrites", "kueue-admission"},
      {"podFailures", "kueue-admission"}};
  // An unknown protocol is left to the CLI, whose error lists the known ones.
  const bool known = fleet.protocol == "multikueue" || fleet.protocol == "kueue-admission" ||
                     fleet.protocol == "kube-scheduler";
  for (const auto& [key, protocol] : owner) {
    if (!known || !node[key].present() || fleet.protocol == protocol) continue;
    std::string owners;
    bool mine = false;
    for (const auto& [k, p] : owner)
      if (k == key) {
        mine = mine || p == fleet.protocol;
        owners += (owners.empty() ? "" : " and ") + std::string(p);
      }
    if (!mine)
      node[key].fail(
          fmt::format("is a budget of protocol {}; this fleet's protocol is {}, "
                      "which has no such fault",
                      owners, fleet.protocol));
  }
  EnvironmentBudgets& e = fleet.environment;
  if (node["spotReclaims"].present()) e.spot_reclaims = node["spotReclaims"].int32(0);
  if (node["capacityLosses"].present()) e.capacity_losses = node["capacityLosses"].int32(0);
  if (node["stuckTerminating"].present()) e.stuck_terminating = node["stuckTerminating"].int32(0);
  if (node["podsReadyTimeouts"].present())
    e.pods_ready_timeouts = node["podsReadyTimeouts"].int32(0);
  if (node["admissionWriteFailures"].present())
    e.admission_write_failures = node["admissionWriteFailures"].int32(0);
  if (node["evictionWriteFailures"].present())
    e.eviction_write_failures = node["evictionWriteFailures"].int32(0);
  if (node["lateAdmissionWrites"].present())
    e.late_admission_writes = node["lateAdmissionWrites"].int32(0);
  if (node["podFailures"].present()) {
    e.pod_failures = node["podFailures"].int32(0);
    e.pod_failures_pos = node["podFailures"].pos();
  }
  if (node["controllerRestarts"].present())
    e.controller_restarts = node["controllerRestarts"].int32(-1);
  if (node["snapshotRefreshes"].present())
    e.snapshot_refreshes = node["snapshotRefreshes"].int32(-1);
  if (node["workerDisconnects"].present())
    e.worker_disconnects = node["workerDisconnects"].int32(-1);
  if (node["capacityReturns"].present()) e.capacity_returns = node["capacityReturns"].int32(-1);
  if (node["capacityRevocations"].present()) {
    e.capacity_revocations = node["capacityRevocations"].int32(-1);
    e.capacity_revocations_pos = node["capacityRevocations"].pos();
  }
  read_workload_list(node["arrivals"], "arriving during the run", fleet, e.arrivals, e.arrival_pos);
  read_workload_list(node["deletions"], "deleted during the run", fleet, e.deletions,
                     e.deletion_pos);
  read_queue_edits(node["queueEdits"], w, fleet);
}

void read_check(const YamlNode& node, Warnings& w, Fleet& fleet) {
  check_keys(node,
             {.modeled = {"properties", "maxDepth", "maxStates", "timeLimitSeconds", "maxMemory"}},
             w);
  CheckSpec& c = fleet.check;
  c.pos = node.pos();
  c.properties = node["properties"].string_list();
  if (node["maxDepth"].present()) c.max_depth = node["maxDepth"].int32(-1);
  if (node["maxStates"].present())
    c.max_states = node["maxStates"].int64(1, std::numeric_limits<std::int64_t>::max());
  if (node["timeLimitSeconds"].present()) {
    c.time_limit_s = node["timeLimitSeconds"].number();
    if (!(c.time_limit_s > 0))
      node["timeLimitSeconds"].fail("must be a positive number of seconds");
  }
  // Read as a size where the search starts (counterexamples/pipeline.cpp), like --max-memory.
  if (node["maxMemory"].present()) {
    c.max_memory = node["maxMemory"].str();
    c.max_memory_pos = node["maxMemory"].pos();
  }
}

void read_dispatcher(const YamlNode& node, Warnings& w, Fleet& fleet) {
  check_keys(node, {.modeled = {"policy", "pin"}}, w);
  if (node["policy"].present())
    fleet.dispatcher.policy = node["policy"].one_of<DispatchPolicy>(
        {{"KueueDispatcher", DispatchPolicy::KueueDispatcher},
         {"CapacitySnapshot", DispatchPolicy::CapacitySnapshot}});
  if (node["pin"].present()) fleet.dispatcher.pin = node["pin"].boolean();
}

}  // namespace

Fleet load_fleet(const std::string& path) {
  const auto documents = load_yaml_file(path, path);
  if (documents.size() != 1)
    throw InputError({path, documents.empty() ? 0 : documents[1].line()}, "",
                     "expected exactly one YAML document (a kmc Fleet)");
  const YamlNode& root = documents.front();
  Warnings unused;  // every key below is modeled: check_keys never warns here
  check_keys(root,
             {.modeled = {"apiVersion", "kind", "protocol", "manager", "cluster", "workers",
                          "nodes", "snapshot", "dispatcher", "options", "environment", "check",
                          "fairness", "matrix", "properties", "autoscaler"}},
             unused);
  const YamlNode api_version = require(root, "apiVersion");
  if (api_version.str() != kFleetApiVersion)
    api_version.fail(
        fmt::format("unknown value '{}'; expected {}", api_version.str(), kFleetApiVersion));
  require(root, "kind").one_of<int>({{"Fleet", 0}});
  Fleet fleet;
  fleet.pos = root.pos();
  fleet.protocol_pos = root.pos();
  if (root["protocol"].present()) {
    fleet.protocol = root["protocol"].str();
    fleet.protocol_pos = root["protocol"].pos();
  }
  if (root["manager"].present()) fleet.manager = root["manager"].str();
  // A single-cluster protocol names its one cluster's folder; MultiKueue a
  // manager and its workers.
  if (root["cluster"].present()) {
    if (fleet.protocol == "multikueue")
      root["cluster"].fail(
          "the multikueue protocol checks a manager and workers; write manager: "
          "and workers:, or protocol: kueue-admission for one cluster");
    if (root["manager"].present()) root["cluster"].fail("give cluster: or manager:, not both");
  }
  if (fleet.protocol != "multikueue") {
    fleet.cluster_dir = root["cluster"].present() ? root["cluster"].str() : "cluster";
    if (fleet.cluster_dir.empty() || fleet.cluster_dir.find('/') != std::string::npos)
      root["cluster"].fail("must name a folder next to kmc.yaml");
  }
  std::set<std::string> names;
  for (const auto& item :
       (fleet.protocol == "multikueue" ? require(root, "workers") : root["workers"]).items()) {
    WorkerSpec worker = read_worker(item, unused);
    if (worker.name == fleet.manager) item["name"].fail("a worker cannot share the manager's name");
    if (!names.insert(worker.name).second)
      item["name"].fail(fmt::format("worker '{}' is listed twice", worker.name));
    fleet.workers.push_back(std::move(worker));
  }
  if (fleet.workers.empty() && fleet.protocol == "multikueue")
    root["workers"].fail("a fleet needs at least one worker");
  std::set<std::string> node_names;
  for (const auto& item : root["nodes"].items()) {
    check_keys(item, {.modeled = {"name", "allocatable"}}, unused);
    NodeSpec node{require(item, "name").str(), {}, item.pos()};
    if (node.name.empty()) item["name"].fail("must not be empty");
    if (!node_names.insert(node.name).second)
      item["name"].fail(fmt::format("node '{}' is listed twice", node.name));
    for (const auto& r : require(item, "allocatable").entries())
      node.allocatable[r.key] = r.value.quantity();
    fleet.nodes.push_back(std::move(node));
  }
  for (const auto& e : root["snapshot"].entries()) {
    if (!names.contains(e.key))
      throw InputError({path, e.key_line}, e.value.path(),
                       fmt::format("'{}' is not a worker of this fleet", e.key));
    fleet.snapshot[e.key] = read_flavor_resources(e.value);
    fleet.snapshot_pos[e.key] = {path, e.key_line};
  }
  if (root["autoscaler"].present()) {
    if (fleet.protocol != "kueue-admission")
      root["autoscaler"].fail(fleet.protocol == "multikueue"
                                  ? "a MultiKueue fleet gives each worker its autoscaler"
                                  : "only protocol kueue-admission has an autoscaler");
    fleet.autoscaler_pos = root["autoscaler"].pos();
    fleet.autoscaler = read_autoscaler(root["autoscaler"], unused, fleet.autoscaler);
  }
  read_dispatcher(root["dispatcher"], unused, fleet);
  read_options(root["options"], unused, fleet);
  read_environment(root["environment"], unused, fleet);
  read_check(root["check"], unused, fleet);
  for (const auto& e : root["fairness"].entries()) {
    if (e.key == "per") {  // not a family: what fairness is stated of
      fleet.fairness_unit = e.value.one_of<Fleet::FairnessUnit>(
          {{"instance", Fleet::FairnessUnit::Instance}, {"family", Fleet::FairnessUnit::Family}});
      fleet.fairness_unit_pos = {path, e.key_line};
      continue;
    }
    fleet.fairness.push_back(
        FairnessSpec{e.key,
                     e.value.one_of<FairnessKind>({{"None", FairnessKind::None},
                                                   {"Weak", FairnessKind::Weak},
                                                   {"Strong", FairnessKind::Strong}}),
                     {path, e.key_line}});
  }
  fleet.properties = read_user_properties(root["properties"]);
  for (const auto& e : root["matrix"].entries()) {
    Lever lever{e.key, {}, {path, e.key_line}};
    for (const auto& v : e.value.items()) lever.values.push_back(v.str());
    if (lever.values.empty()) e.value.fail("a lever needs at least one value");
    fleet.matrix.push_back(std::move(lever));
  }
  return fleet;
}

}  // namespace kmc::model
