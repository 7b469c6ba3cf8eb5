// Which MultiKueue entities are interchangeable (model/symmetry.hpp), for
// symmetry reduction. Workers with the same configuration are, when the
// dispatcher does not read the MultiKueueConfig's order; each carries its
// own ClusterQueues along. Jobs never are: Kueue's queue order (priority,
// then creation time) decides which of two pending jobs a ClusterQueue
// admits first (multikueue_rules.hpp: ahead_blocks), so swapping two
// identical jobs does not map the protocol onto itself.
#include <fmt/format.h>

#include <map>
#include <tuple>

#include "protocols/multikueue_spec.hpp"

namespace kmc::protocols {

namespace {

// Everything the rules read about worker w, with its ClusterQueues named by
// their position among w's own: equal signatures, interchangeable workers.
std::string signature(const MkParams& p, int w, const std::vector<int>& owned) {
  std::string sig;
  auto add = [&](const auto& v) { sig += fmt::format("{}|", v); };
  auto add_all = [&](const auto& list) { sig += fmt::format("{}|", fmt::join(list, ",")); };
  bool dispatched = false;
  for (int o : p.dispatch_order) dispatched = dispatched || o == w;
  add(dispatched);
  add(static_cast<int>(p.answer[w]));
  add(p.evicts_on_pods_not_ready(w));
  add_all(p.worker_flavors[w]);
  const std::size_t slot = static_cast<std::size_t>(p.slots_max) * p.R();
  for (std::size_t k = 0; k < slot; ++k)
    add(p.capacity0[w * slot + k]), add(p.snapshot0[w * slot + k]);
  for (int q : owned) {
    const CqParams& c = p.cqs[q];
    add_all(c.flavors);
    add_all(c.flavor_slot);
    add_all(c.nominal);
    add(c.strict_fifo), add(c.provisioning), add(static_cast<int>(c.provisioning_class));
    add(c.retries_later);
    add(c.backoff_limit);
  }
  for (int j = 0; j < p.J(); ++j) {
    const int q = p.worker_cq[w][j];
    add(q < 0 ? -1 : static_cast<int>(std::find(owned.begin(), owned.end(), q) - owned.begin()));
    add(p.mismatched(w, j));
  }
  return sig;
}

}  // namespace

model::Symmetry MkSpec::symmetry(const MkParams& p) {
  model::Symmetry s;
  if (p.J() > 1)
    s.notes.push_back(
        "no symmetry over jobs: Kueue's queue order (priority, then creation time) decides which "
        "of two "
        "pending jobs a ClusterQueue admits first");
  if (p.W() < 2) return s;
  if (p.dispatcher == Dispatcher::Incremental) {
    s.notes.push_back(
        "no symmetry over workers: the Incremental dispatcher nominates workers in the "
        "MultiKueueConfig's order");
    return s;
  }
  if (p.dispatcher == Dispatcher::CapacitySnapshot && p.pin) {
    s.notes.push_back(
        "no symmetry over workers: a pinning dispatcher takes the first worker in the "
        "MultiKueueConfig's order that its view shows room on");
    return s;
  }
  std::vector<std::vector<int>> owned(p.W());
  for (int q = 0; q < static_cast<int>(p.cqs.size()); ++q)
    if (p.cqs[q].cluster >= 0) owned[p.cqs[q].cluster].push_back(q);
  std::map<std::string, std::vector<int>> groups;  // by signature, workers in kmc.yaml order
  for (int w = 0; w < p.W(); ++w) groups[signature(p, w, owned[w])].push_back(w);
  std::vector<std::pair<int, model::SymmetricClass>> classes;  // by first worker: a stable order
  for (auto& [sig, workers] : groups) {
    if (workers.size() < 2) continue;
    model::SymmetricClass c{kAxisWorker, workers, {}};
    model::SymmetricClass::Link cqs{kAxisClusterQueue, {}};
    for (int w : workers) cqs.owned.push_back(owned[w]);
    c.links.push_back(std::move(cqs));
    classes.emplace_back(workers.front(), std::move(c));
  }
  std::sort(classes.begin(), classes.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [first, c] : classes) s.classes.push_back(std::move(c));
  if (s.classes.empty())
    s.notes.push_back(
        "no symmetry over workers: no two workers have the same capacity, ClusterQueues and "
        "autoscaler answer");
  return s;
}

}  // namespace kmc::protocols
