// Workload objects (spec and the status fields the protocols start from).
//
// v1beta2 names the priority class with priorityClassRef{group, kind, name};
// v1beta1 with priorityClassName + priorityClassSource. When kubectl printed
// spec.priority, Kueue already copied the class's value there and that number
// wins; otherwise the class is resolved after all files are read. The
// priority-boost annotation is added after that, when the gate is known.
#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <set>

#include "model/manifest_readers.hpp"

namespace kmc::model {
namespace {

constexpr const char* kWorkloadPriorityGroup = "kueue.x-k8s.io";

PodSet read_pod_set(const YamlNode& node, ReadContext& ctx) {
  check_keys(
      node,
      {.modeled = {"name", "count", "minCount", "template"},
       .unmodeled = {{"topologyRequest",
                      "admission may differ because Topology Aware Scheduling admits the pod set "
                      "only where one topology domain has room"}}},
      ctx.warnings);
  PodSet ps;
  // The CRD defaults a pod set's name to "main".
  ps.name = node["name"].present() ? node["name"].str() : "main";
  if (node["count"].present()) ps.count = node["count"].int32(0);
  if (node["minCount"].present()) ps.min_count = node["minCount"].int32(0);
  if (ps.min_count && *ps.min_count > ps.count)
    node["minCount"].fail(fmt::format("minCount {} exceeds count {}", *ps.min_count, ps.count));
  read_pod_template(require(node, "template"), ps, ctx);
  return ps;
}

void read_priority(const YamlNode& spec, ReadContext& ctx, PendingWorkload& out) {
  Workload& wl = out.workload;
  if (spec["priority"].present()) {
    wl.priority = spec["priority"].int32();
    out.priority_explicit = true;
  }
  std::string group, name;
  YamlNode where = spec["priorityClassRef"];
  if (ctx.v1beta1()) {
    where = spec["priorityClassName"];
    if (where.present()) name = where.str();
    if (where.present() && name.empty()) where.fail("an empty name; Kueue's CRD refuses it");
    const YamlNode source = spec["priorityClassSource"];
    if (source.present())
      group = source.one_of<std::string>(
          {{"kueue.x-k8s.io/workloadpriorityclass", kWorkloadPriorityGroup},
           {"scheduling.k8s.io/priorityclass", "scheduling.k8s.io"},
           {"", ""}});
  } else if (where.present()) {
    // The CRD: group and kind from two pairs, and a name of at least one character.
    check_keys(where, {.modeled = {"group", "kind", "name"}}, ctx.warnings);
    group = require(where, "group")
                .one_of<std::string>({{kWorkloadPriorityGroup, kWorkloadPriorityGroup},
                                      {"scheduling.k8s.io", "scheduling.k8s.io"}});
    const std::string kind =
        require(where, "kind")
            .one_of<std::string>({{"WorkloadPriorityClass", "WorkloadPriorityClass"},
                                  {"PriorityClass", "PriorityClass"}});
    const std::string paired =
        group == kWorkloadPriorityGroup ? "WorkloadPriorityClass" : "PriorityClass";
    if (kind != paired)
      where["kind"].fail(
          fmt::format("only the {} kind is allowed for the {} group", paired, group));
    name = require(where, "name").str();
    if (name.empty()) where["name"].fail("an empty name; Kueue's CRD refuses it");
  }
  wl.priority_class_name = name;
  if (name.empty()) return;
  if (group == kWorkloadPriorityGroup) {
    out.priority_class = name;
    out.where = where.diagnostic("");
  } else {
    out.kube_priority_class = name;
    out.kube_where = where.diagnostic("");
  }
}

void read_status(const YamlNode& status, Workload& wl) {
  // Status is what the controllers wrote: fields kmc does not start from are
  // accepted silently, as the brief for kubectl dumps requires.
  for (const auto& c : status["conditions"].items()) {
    Condition cond;
    cond.type = require(c, "type").str();
    cond.status =
        require(c, "status")
            .one_of<std::string>({{"True", "True"}, {"False", "False"}, {"Unknown", "Unknown"}});
    if (c["reason"].present()) cond.reason = c["reason"].str();
    if (c["message"].present()) cond.message = c["message"].str();
    // Required by metav1.Condition; kmc orders workloads by it.
    cond.last_transition_s = parse_rfc3339_s(require(c, "lastTransitionTime"));
    wl.conditions.push_back(std::move(cond));
  }
  if (const YamlNode a = status["admission"]; a.present()) {
    Admission admission;
    admission.cluster_queue = require(a, "clusterQueue").str();
    for (const auto& p : a["podSetAssignments"].items()) {
      PodSetAssignment psa;
      psa.name = require(p, "name").str();
      psa.flavors = p["flavors"].string_map();
      for (const auto& e : p["resourceUsage"].entries())
        psa.resource_usage[e.key] = e.value.quantity();
      if (p["count"].present()) psa.count = p["count"].int32(0);
      admission.pod_set_assignments.push_back(std::move(psa));
    }
    wl.admission = std::move(admission);
  }
  for (const auto& c : status["admissionChecks"].items()) {
    AdmissionCheckState s;
    s.name = require(c, "name").str();
    s.state = require(c, "state")
                  .one_of<CheckState>({{"Pending", CheckState::Pending},
                                       {"Ready", CheckState::Ready},
                                       {"Retry", CheckState::Retry},
                                       {"Rejected", CheckState::Rejected}});
    if (c["retryCount"].present()) s.retry_count = c["retryCount"].int32(0);
    if (c["requeueAfterSeconds"].present())
      s.requeue_after_seconds = c["requeueAfterSeconds"].int32(0);
    if (c["message"].present()) s.message = c["message"].str();
    wl.admission_checks.push_back(std::move(s));
  }
  if (const YamlNode rs = status["requeueState"]; rs.present()) {
    if (rs["count"].present()) wl.requeue_count = rs["count"].int32(0);
    if (rs["requeueAt"].present()) wl.requeue_at_s = parse_rfc3339_s(rs["requeueAt"]);
  }
  if (status["clusterName"].present()) wl.cluster_name = status["clusterName"].str();
  wl.nominated_cluster_names = status["nominatedClusterNames"].string_list();
}

}  // namespace

std::int64_t read_runtime_annotation(const YamlNode& object) {
  const YamlNode runtime = object["metadata"]["annotations"]["kmc.dev/runtime-seconds"];
  return runtime.present() ? runtime.int64(0, std::numeric_limits<std::int64_t>::max()) : 0;
}

PendingWorkload read_workload(const YamlNode& object, ReadContext& ctx) {
  PendingWorkload out;
  Workload& wl = out.workload;
  wl.meta = read_meta(object, ctx, true);
  wl.runtime_s = read_runtime_annotation(object);
  const YamlNode spec = require(object, "spec");
  KeyPolicy keys{
      .modeled = {"podSets", "queueName", "priority", "active"},
      .unmodeled = {{"preemptionGates",
                     "preemption may differ because a closed gate keeps the workload from "
                     "preempting others"},
                    {"maximumExecutionTimeSeconds", kMaxExecutionTimeEffect}}};
  for (auto k : ctx.v1beta1()
                    ? std::vector<std::string_view>{"priorityClassName", "priorityClassSource"}
                    : std::vector<std::string_view>{"priorityClassRef"})
    keys.modeled.push_back(k);
  check_keys(spec, keys, ctx.warnings);
  // The CRD: at least 1 and at most MaxPodSets pod sets, a map keyed by name.
  std::set<std::string> names;
  for (const auto& item : require(spec, "podSets").items()) {
    wl.pod_sets.push_back(read_pod_set(item, ctx));
    if (!names.insert(wl.pod_sets.back().name).second)
      item["name"].fail(fmt::format("a second pod set named '{}'", wl.pod_sets.back().name));
  }
  if (wl.pod_sets.empty()) spec["podSets"].fail("a Workload needs at least one pod set");
  if (wl.pod_sets.size() > kMaxPodSets)
    spec["podSets"].fail(
        fmt::format("{} pod sets; a Workload holds at most {}", wl.pod_sets.size(), kMaxPodSets));
  if (spec["queueName"].present()) wl.queue_name = spec["queueName"].str();
  read_priority(spec, ctx, out);
  if (const YamlNode boost = object["metadata"]["annotations"][kPriorityBoostAnnotation];
      boost.present()) {
    out.priority_boost = boost.str();
    out.boost_where = boost.diagnostic("");
  }
  if (spec["active"].present()) wl.active = spec["active"].boolean();
  if (spec["maximumExecutionTimeSeconds"].present())
    wl.maximum_execution_time_s = spec["maximumExecutionTimeSeconds"].int32(1);
  read_status(object["status"], wl);
  return out;
}

namespace {

// Go's strconv.ParseInt(value, 10, 32): an optional sign, then decimal digits only.
std::optional<std::int32_t> parse_priority_boost(const std::string& value) {
  std::string_view digits = value;
  if (digits.starts_with('+')) digits.remove_prefix(1);
  if (digits.empty() || digits.starts_with('-') != value.starts_with('-')) return std::nullopt;
  std::int32_t boost = 0;
  const auto [end, error] = std::from_chars(value.data() + (value.size() - digits.size()),
                                            value.data() + value.size(), boost);
  if (error != std::errc{} || end != value.data() + value.size()) return std::nullopt;
  return boost;
}

}  // namespace

void apply_priority_boost(PendingWorkload& p, const FeatureGates& gates, Warnings& warnings) {
  if (!p.priority_boost) return;
  Diagnostic d = *p.boost_where;
  if (!gates.enabled("PriorityBoost")) {
    d.message = fmt::format(
        "ignored, as Kueue ignores it: the PriorityBoost feature gate is off (Kueue's default); "
        "the workload keeps priority {}",
        p.workload.priority);
    warnings.push_back(std::move(d));
    return;
  }
  const auto boost = parse_priority_boost(*p.priority_boost);
  if (!boost) {
    // workload_webhook.go rejects the Workload; "" is rejected too (write "0").
    d.message = fmt::format("'{}' is not a signed 32-bit integer; Kueue's webhook rejects it",
                            *p.priority_boost);
    throw InputError(d);
  }
  // EffectivePriority adds in 64 bits: spec.priority and the boost are each 32.
  p.workload.priority += *boost;
}

}  // namespace kmc::model
