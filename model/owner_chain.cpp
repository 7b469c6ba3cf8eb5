#include "model/owner_chain.hpp"

#include <fmt/format.h>

#include <set>

namespace kmc::model {
namespace {

// Kueue's managedOwnersChainLimit: the walk gives up past this many owners up.
constexpr int kOwnersChainLimit = 10;

std::string scalar(const YamlNode& n) {
  return n.present() && n.raw().IsScalar() ? n.str() : std::string();
}

}  // namespace

std::optional<ChainObject> chain_object(const YamlNode& object, const std::string& kind,
                                        const std::string& api_version) {
  const bool known =
      integration_of(api_version, kind) || (api_version == "apps/v1" && kind == "ReplicaSet");
  const YamlNode meta = object["metadata"];
  if (!known || !meta.is_map()) return std::nullopt;
  ChainObject o;
  o.kind = kind;
  o.name = scalar(meta["name"]);
  if (o.name.empty()) return std::nullopt;
  o.uid = scalar(meta["uid"]);
  // As read_object_meta: a namespace written empty stays empty.
  o.ns = meta["namespace"].present() ? scalar(meta["namespace"]) : "default";
  o.framework = integration_of(api_version, kind);
  o.owner = job_owner(object);
  const YamlNode labels = meta["labels"];
  o.labelled = labels.is_map() && !scalar(labels[kQueueNameLabel]).empty();
  o.creatable = o.uid.empty();
  const YamlNode annotations = meta["annotations"];
  o.suspended_by_parent =
      kind == "Pod" && annotations.is_map() && annotations[kSuspendedByParentAnnotation].present();
  o.pos = object.pos();
  return o;
}

void OwnerChains::add(ChainObject object) {
  std::string key = fmt::format("{}/{}/{}", object.ns, object.kind, object.name);
  const auto [it, inserted] = objects_.emplace(std::move(key), object);
  if (!inserted)
    throw InputError(object.pos, "metadata.name",
                     fmt::format("duplicate {} '{}/{}'; first defined at {}:{}", object.kind,
                                 object.ns, object.name, it->second.pos.file, it->second.pos.line));
}

bool OwnerChains::creatable(const std::string& kind, const ObjectMeta& meta) const {
  const auto it = objects_.find(fmt::format("{}/{}/{}", meta.namespace_, kind, meta.name));
  return it == objects_.end() || it->second.creatable;
}

OwnerWalk OwnerChains::queued_ancestor(
    const std::string& self, const std::string& ns, const std::optional<JobOwner>& owner,
    const SourcePos& at, const std::function<bool(const std::string&)>& enabled,
    const std::function<bool(const ChainObject&)>& queued) const {
  OwnerWalk walk;
  std::optional<QueuedAncestor>& top = walk.top;
  std::set<std::string> seen{self};
  std::string chain;
  int hops = 0;
  for (const JobOwner* up = owner ? &*owner : nullptr; up != nullptr;) {
    chain += fmt::format("{}{} {}", chain.empty() ? "" : ", owned by ", up->kind, up->name);
    const bool managed = !up->framework.empty() && enabled(up->framework);
    const std::string key = fmt::format("{}/{}/{}", ns, up->kind, up->name);
    const auto it = objects_.find(key);
    if (it == objects_.end()) {
      if (managed)
        top = QueuedAncestor{*up, chain, true};
      else
        walk.missing = *up;
      break;
    }
    const ChainObject& parent = it->second;
    // A reference to an earlier object of that name: Kueue stops there.
    if (!up->uid.empty() && !parent.uid.empty() && up->uid != parent.uid) break;
    if (!seen.insert(key).second)
      throw InputError(at, "metadata.ownerReferences",
                       fmt::format("the controller ownerReferences form a cycle ({}): Kueue's "
                                   "walk to the job that owns it fails (ErrCyclicOwnership), so "
                                   "its webhook refuses the object",
                                   chain));
    if (managed && queued(parent)) top = QueuedAncestor{*up, chain, false};
    if (++hops > kOwnersChainLimit)
      throw InputError(at, "metadata.ownerReferences",
                       fmt::format("more than {} controller owners up ({}): Kueue's walk to the "
                                   "job that owns it gives up "
                                   "(ErrManagedOwnersChainLimitReached), so its webhook refuses "
                                   "the object",
                                   kOwnersChainLimit, chain));
    up = parent.owner ? &*parent.owner : nullptr;
  }
  return walk;
}

Diagnostic uncounted_ancestor(const SourcePos& at, const std::string& message,
                              const QueuedAncestor& top) {
  return ignored_input(
      at, "metadata.ownerReferences", "queued owner missing from the input",
      fmt::format("{}: admission may differ because {} {}, which Kueue admits it as part of, is "
                  "not in the input, nor a Workload of it, so kmc counts that job nowhere; add "
                  "the owner or its Workload",
                  message, top.owner.kind, top.owner.name));
}

}  // namespace kmc::model
