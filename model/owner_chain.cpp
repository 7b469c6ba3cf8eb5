#include "model/owner_chain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace kmc::model {
namespace {

// Kueue's managedOwnersChainLimit: the walk gives up past this many owners up.
constexpr int kOwnersChainLimit = 10;

std::string scalar(const YamlNode& n) {
  return n.present() && n.raw().IsScalar() ? n.str() : std::string();
}

std::string group_of(const std::string& api_version) {
  const std::size_t slash = api_version.find('/');
  return slash == std::string::npos ? std::string() : api_version.substr(0, slash);
}

InputError duplicate(const ChainObject& first, const SourcePos& second) {
  return InputError(second, "metadata.name",
                    fmt::format("duplicate {} '{}/{}'; first defined at {}:{}", first.kind,
                                first.ns, first.name, first.pos.file, first.pos.line));
}

bool integration_knows(const std::string& api_version, const std::string& kind) {
  return integration_of(api_version, kind) || (api_version == "apps/v1" && kind == "ReplicaSet");
}

}  // namespace

std::optional<ChainObject> chain_object(const YamlNode& object, const std::string& kind,
                                        const std::string& api_version) {
  const YamlNode meta = object["metadata"];
  if (!meta.is_map()) return std::nullopt;
  ChainObject o;
  o.api_version = api_version;
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
  if (const ChainObject* first = find(object.ns, object.api_version, object.kind, object.name)) {
    if (integration_knows(object.api_version, object.kind) ||
        external(object.api_version, object.kind))
      throw duplicate(*first, object.pos);
    later_duplicates_.emplace_back(std::move(object), first);
    return;
  }
  std::string key = fmt::format("{}/{}/{}", object.ns, object.kind, object.name);
  objects_.emplace(std::move(key), std::move(object));
}

void OwnerChains::set_external_frameworks(std::vector<ExternalFramework> kinds) {
  external_ = std::move(kinds);
  for (const auto& [second, first] : later_duplicates_)
    if (external(second.api_version, second.kind)) throw duplicate(*first, second.pos);
}

bool OwnerChains::knows(const std::string& api_version, const std::string& kind) const {
  return integration_knows(api_version, kind) || external(api_version, kind);
}

const ChainObject* OwnerChains::find(const std::string& ns, const std::string& api_version,
                                     const std::string& kind, const std::string& name) const {
  const auto [begin, end] = objects_.equal_range(fmt::format("{}/{}/{}", ns, kind, name));
  for (auto it = begin; it != end; ++it)
    if (group_of(it->second.api_version) == group_of(api_version)) return &it->second;
  return nullptr;
}

bool OwnerChains::external(const std::string& api_version, const std::string& kind) const {
  return std::any_of(external_.begin(), external_.end(), [&](const ExternalFramework& f) {
    return f.kind == kind && f.api_version == api_version;
  });
}

bool OwnerChains::creatable(const std::string& api_version, const std::string& kind,
                            const ObjectMeta& meta) const {
  const ChainObject* o = find(meta.namespace_, api_version, kind, meta.name);
  return o == nullptr || o->creatable;
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
    // isKnownOwner: past an owner of a kind Kueue does not know, it stops.
    const bool is_external = external(up->api_version, up->kind);
    if (!is_external && !integration_knows(up->api_version, up->kind)) break;
    chain += fmt::format("{}{} {}", chain.empty() ? "" : ", owned by ", up->kind, up->name);
    const bool managed = is_external || (!up->framework.empty() && enabled(up->framework));
    // By API group too: a Volcano Job may own a batch Job of its name.
    const std::string key =
        fmt::format("{}/{}.{}/{}", ns, up->kind, group_of(up->api_version), up->name);
    const ChainObject* found = find(ns, up->api_version, up->kind, up->name);
    if (found == nullptr) {
      if (managed)
        top = QueuedAncestor{*up, chain, true};
      else
        walk.missing = *up;
      break;
    }
    const ChainObject& parent = *found;
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
