// The chains of controller owners Kueue walks to find the job that a Job,
// JobSet or Pod belongs to (jobframework FindAncestorJobManagedByKueue): up
// every owner of a kind Kueue knows (a built-in integration's job, enabled or
// not, a kind integrations.externalFrameworks lists, or a ReplicaSet), to the
// top one Kueue manages (an enabled integration's, or an external
// framework's) that names a queue. A job with such an ancestor has no
// Workload of its own.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/manifest_readers.hpp"

namespace kmc::model {

// An object of the input that may own a job, as the walk reads it.
struct ChainObject {
  std::string api_version, kind, ns, name, uid;
  std::optional<std::string> framework;  // the integration whose job it is
  std::optional<JobOwner> owner;         // its controller
  bool labelled = false;                 // names a queue
  bool creatable = false;                // no uid: the webhooks will see it created
  bool suspended_by_parent = false;      // a Pod the pod webhook gates before defaulting
  SourcePos pos;
};

// The owner-side reading of an object (a Pod too: a spark driver controls
// its executors); nullopt for an object without a name, which no
// ownerReference can name.
std::optional<ChainObject> chain_object(const YamlNode& object, const std::string& kind,
                                        const std::string& api_version);

struct QueuedAncestor {
  JobOwner owner;
  std::string chain;     // "JobSet js, owned by AppWrapper aw", for warnings
  bool assumed = false;  // not in the input: taken to name a queue
};

// What a walk found: the top queued ancestor, if any, and the owner it ended
// at for want of it in the input, where Kueue (which reads the cluster)
// would have walked on.
struct OwnerWalk {
  std::optional<QueuedAncestor> top;
  std::optional<JobOwner> missing;
};

class OwnerChains {
 public:
  // later_duplicates_ points into objects_.
  OwnerChains() = default;
  OwnerChains(const OwnerChains&) = delete;
  OwnerChains& operator=(const OwnerChains&) = delete;

  // A second object of one kind (in one API group), namespace and name is
  // exit 3, as the API server holds one (kmc reads the first's and the
  // second's places): at once for a kind Kueue's integrations know, and for
  // another once the Configuration says Kueue walks through it.
  void add(ChainObject object);

  // The kinds integrations.externalFrameworks lists; a second object of one
  // of them is exit 3 now.
  void set_external_frameworks(std::vector<ExternalFramework> kinds);
  // Whether the kind is one of them: Kueue manages its objects, and their
  // own controller makes their Workloads (IsOwnerManagedByKueueForObject).
  bool external(const std::string& api_version, const std::string& kind) const;
  // Whether Kueue walks through an owner of the kind (isKnownOwner): a
  // built-in integration's, a ReplicaSet, or an external framework's.
  bool knows(const std::string& api_version, const std::string& kind) const;

  // Whether the input's object of that kind and name has no uid: the webhooks
  // will see it created. True for one not indexed.
  bool creatable(const std::string& api_version, const std::string& kind,
                 const ObjectMeta& meta) const;

  // The top ancestor of the object `self` ("ns/Kind/name") whose controller
  // is `owner`. `enabled(framework)`: integrations.frameworks lists it;
  // `queued(object)`: it names a queue once the webhooks have defaulted it.
  // An owner missing from the input is read from the cluster by Kueue: kmc
  // takes one of an enabled integration to be queued (its child names a queue
  // or was made by it), and ends the walk there. A cycle, or more owners up
  // than Kueue follows, is an InputError at `at`: Kueue's webhooks refuse it.
  OwnerWalk queued_ancestor(const std::string& self, const std::string& ns,
                            const std::optional<JobOwner>& owner, const SourcePos& at,
                            const std::function<bool(const std::string&)>& enabled,
                            const std::function<bool(const ChainObject&)>& queued) const;

 private:
  // The input's object of that kind, API group (of `api_version`), namespace and name.
  const ChainObject* find(const std::string& ns, const std::string& api_version,
                          const std::string& kind, const std::string& name) const;

  // "ns/Kind/name": kinds of one name in other API groups (a Volcano Job, an
  // OpenKruise StatefulSet) share a key, and their objects are told apart by it.
  std::multimap<std::string, ChainObject> objects_;
  // Second objects of kinds no integration knows, and where the first is.
  std::vector<std::pair<ChainObject, const ChainObject*>> later_duplicates_;
  std::vector<ExternalFramework> external_;
};

// Where a walk took a missing owner to be queued and the input holds no
// Workload for it either, the job the object at `at` is part of is counted
// nowhere: an answer-changing warning, `message` (what the walk found) first.
Diagnostic uncounted_ancestor(const SourcePos& at, const std::string& message,
                              const QueuedAncestor& top);

}  // namespace kmc::model
