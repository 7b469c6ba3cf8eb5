// The QueueEdited step of a kueue-admission trace in the engine: the next
// edit of kmc.yaml environment.queueEdits, whichever it is (stopPolicy,
// quotas, the deletion or the creation of a ClusterQueue, Cohort or
// LocalQueue).
#include <fmt/format.h>

#include "counterexamples/kueue_admission/engine_replay_internal.hpp"
#include "engine/controllers.hpp"
#include "protocols/kueue_admission/params.hpp"

namespace kmc::cx::admission {

using namespace protocols::ka;  // QueueEdit, QuotaSet, kNoLimit

Outcome apply_queue_edit(engine::Engine& e, const AdmissionParams& p) {
  const auto before = all_phases(e);
  // The operator's edit: the queue's spec changes; the workload controller's
  // reconciles of its workloads are steps of their own (QueueStopped).
  if (e.queue_edits_applied >= static_cast<int>(p.queue_edits.size()))
    return {false, "every queue edit of kmc.yaml is applied already"};
  const QueueEdit& edit = p.queue_edits[static_cast<std::size_t>(e.queue_edits_applied++)];
  const std::string queue = edit.local    ? p.local_queues[edit.queue].name
                            : edit.cohort ? p.cohorts[edit.queue].name
                                          : p.cqs[edit.queue].quota.name;
  if (edit.creates) {
    const auto slash = queue.find('/');
    const char* kind = edit.local ? "LocalQueue" : edit.cohort ? "Cohort" : "ClusterQueue";
    const bool made = edit.local    ? engine::create_local_queue(e, queue.substr(0, slash),
                                                                 queue.substr(slash + 1), edit.policy)
                      : edit.cohort ? engine::create_cohort(e, queue)
                                    : engine::create_cluster_queue(e, queue);
    if (!made) return {false, fmt::format("the engine cannot create {} {}", kind, queue)};
    settle(e);
    return {true, fmt::format("{} {} created: {}", kind, queue, changes(before, e))};
  }
  if (edit.deletes && edit.cohort) {
    if (!engine::delete_cohort(e, queue))
      return {false, fmt::format("the engine cannot delete Cohort {}", queue)};
    settle(e);
    return {true, fmt::format("Cohort {} deleted: its ClusterQueues keep an implicit cohort "
                              "without quota: {}",
                              queue, changes(before, e))};
  }
  if (edit.deletes) {
    if (!engine::delete_cluster_queue(e, queue))
      return {false, fmt::format("the engine cannot delete ClusterQueue {}", queue)};
    settle(e);
    return {true, fmt::format("ClusterQueue {} deleted: a deletionTimestamp, held by its "
                              "finalizer: {}",
                              queue, changes(before, e))};
  }
  std::string quotas;
  if (!edit.quotas.empty()) {
    std::vector<engine::QuotaUpdate> updates;
    auto limit =
        [](const std::optional<std::int64_t>& v) -> std::optional<std::optional<engine::Amount>> {
      if (!v) return std::nullopt;
      if (*v == kNoLimit) return std::optional<engine::Amount>{};
      return std::optional<engine::Amount>{*v};
    };
    for (const QuotaSet& c : edit.quotas) {
      updates.push_back({p.flavors[static_cast<std::size_t>(c.fr / p.R())],
                         p.resources[static_cast<std::size_t>(c.fr % p.R())], c.nominal,
                         limit(c.borrowing_limit), limit(c.lending_limit)});
      quotas += fmt::format("{}{} {}", quotas.empty() ? "" : ", ", updates.back().flavor,
                            updates.back().resource);
    }
    if (!engine::update_quotas(e, queue, edit.cohort, updates))
      return {false, fmt::format("the engine has no quotas {} of {}", quotas, queue)};
  }
  if (edit.cohort) {
    settle(e);
    return {true,
            fmt::format("Cohort {} quotas of {} edited: {}", queue, quotas, changes(before, e))};
  }
  if (!quotas.empty() && !edit.local) {
    engine::set_cluster_queue_stop_policy(e, queue, edit.policy, false);
    settle(e);
    return {true, fmt::format("ClusterQueue {} quotas of {} edited, stopPolicy {}: {}", queue,
                              quotas, model::stop_policy_name(edit.policy), changes(before, e))};
  }
  if (edit.deletes_local) {
    const auto slash = queue.find('/');
    if (!engine::delete_local_queue(e, queue.substr(0, slash), queue.substr(slash + 1), false))
      return {false, fmt::format("the engine cannot delete LocalQueue {}", queue)};
    settle(e);
    return {true, fmt::format("LocalQueue {} deleted: its pending workloads left the queues: {}",
                              queue, changes(before, e))};
  }
  if (edit.local) {
    const auto slash = queue.find('/');
    engine::set_local_queue_stop_policy(e, queue.substr(0, slash), queue.substr(slash + 1),
                                        edit.policy, false);
  } else {
    engine::set_cluster_queue_stop_policy(e, queue, edit.policy, false);
  }
  settle(e);
  return {true,
          fmt::format("{} {} stopPolicy set to {}: {}", edit.local ? "LocalQueue" : "ClusterQueue",
                      queue, model::stop_policy_name(edit.policy), changes(before, e))};
}

}  // namespace kmc::cx::admission
