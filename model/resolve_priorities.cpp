// A job's priority, once every file is read: Kueue copies its priority class's
// value into the Workload's spec.priority when it creates the Workload
// (ExtractPriority), and its CRD refuses a Workload that names a class without
// that value.
#include <fmt/format.h>

#include <map>

#include "model/manifest_readers.hpp"

namespace kmc::model {
namespace {

// Kueue's CRD refuses a Workload that names a priority class without
// spec.priority ("priority should not be nil when priorityClassRef is set"),
// so only a hand-written one can: the error says which value to write.
void refuse_class_without_priority(const PendingWorkload& p,
                                   const std::map<std::string, std::int32_t>& values,
                                   const std::map<std::string, std::int32_t>& kube_values) {
  const bool kueue_class = !p.priority_class.empty();
  if (!kueue_class && p.kube_priority_class.empty()) return;
  const Diagnostic& where = kueue_class ? *p.where : *p.kube_where;
  const std::string named_by = where.field.substr(where.field.rfind('.') + 1);
  const std::string& name = kueue_class ? p.priority_class : p.kube_priority_class;
  const auto& known = kueue_class ? values : kube_values;
  const std::string kind = kueue_class ? "WorkloadPriorityClass" : "PriorityClass";
  const auto it = known.find(name);
  const std::string fix =
      it == known.end()
          ? fmt::format(
                "Write the value of {} '{}' as spec.priority ({} '{}' is not in the "
                "input either)",
                kind, name, kind, name)
          : fmt::format("Write the value of {} '{}': `priority: {}`", kind, name, it->second);
  throw InputError(where.pos, "spec.priority",
                   fmt::format("priority should not be nil when {} is set: Kueue's CRD refuses "
                               "this Workload. {}",
                               named_by, fix));
}

}  // namespace

// Kueue copies the WorkloadPriorityClass value into spec.priority when it
// creates the Workload; we do the same once every file is read. Without one,
// a Kubernetes PriorityClass the pods name gives it, or, for a job's Workload
// (not one written as such), the globalDefault class (ExtractPriority).

void resolve_priorities(std::vector<PendingWorkload>& pending,
                        const std::vector<WorkloadPriorityClass>& classes,
                        const std::vector<KubePriorityClass>& kube_classes,
                        const FeatureGates& gates,
                        const std::function<bool(const std::optional<JobOwner>&)>& owner_managed) {
  std::map<std::string, std::int32_t> values, kube_values;
  for (const auto& pc : classes) values[pc.meta.name] = pc.value;
  // Every cluster has these two (SystemPriorityClasses).
  kube_values["system-cluster-critical"] = 2000000000;
  kube_values["system-node-critical"] = 2000001000;
  // WorkloadPriorityClassDefaulting: the job webhooks label a job that names
  // no WorkloadPriorityClass with the one named "default", where it exists,
  // unless Kueue manages its controller (ApplyDefaultWorkloadPriorityClass).
  const bool defaulting =
      values.contains("default") && gates.enabled("WorkloadPriorityClassDefaulting");
  const KubePriorityClass* global_default = nullptr;
  for (const auto& pc : kube_classes) {
    kube_values[pc.meta.name] = pc.value;
    if (!pc.global_default) continue;
    if (global_default != nullptr)
      throw InputError(pc.default_pos, "globalDefault",
                       fmt::format("a second globalDefault PriorityClass; {} ({}:{}) is one "
                                   "already, and Kubernetes admits only one",
                                   global_default->meta.name, global_default->meta.pos.file,
                                   global_default->meta.pos.line));
    global_default = &pc;
  }
  const auto not_found = [](const Diagnostic& where, const std::string& kind,
                            const std::string& name) {
    Diagnostic d = where;
    d.message = fmt::format("{} '{}' not found", kind, name);
    throw InputError(d);
  };
  for (auto& p : pending) {
    if (p.priority_explicit) continue;
    if (p.workload.source_kind == "Workload") refuse_class_without_priority(p, values, kube_values);
    if (defaulting && p.priority_class.empty() && p.workload.source_kind != "Workload" &&
        !owner_managed(p.owner)) {
      p.priority_class = "default";
      p.workload.priority_class_name = "default";
    }
    if (!p.priority_class.empty()) {
      auto it = values.find(p.priority_class);
      if (it == values.end()) not_found(*p.where, "WorkloadPriorityClass", p.priority_class);
      p.workload.priority = it->second;
    } else if (!p.kube_priority_class.empty()) {
      auto it = kube_values.find(p.kube_priority_class);
      if (it == kube_values.end()) not_found(*p.kube_where, "PriorityClass", p.kube_priority_class);
      p.workload.priority = it->second;
      p.workload.priority_class_name = p.kube_priority_class;
    } else if (global_default != nullptr && p.workload.source_kind != "Workload") {
      p.workload.priority = global_default->value;
      p.workload.priority_class_name = global_default->meta.name;
    }
  }
}

}  // namespace kmc::model
