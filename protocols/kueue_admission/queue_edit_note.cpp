// A QueueEdited step applies the next edit of kmc.yaml environment.queueEdits,
// whichever it is: the trace says which, in the operator's words.
#include <fmt/format.h>

#include "protocols/kueue_admission/spec.hpp"

namespace kmc::protocols::ka {

namespace {

std::string limit(std::int64_t v) {
  return v == kNoLimit ? "none" : std::to_string(v);
}

}  // namespace

std::string Spec::note(const Params& p, const State<std::int64_t>& before, const Action& a) {
  if (a.kind != kQueueEdited || !p.any_queue_edits()) return {};
  const auto left = before.budget[static_cast<std::size_t>(p.budget_queue_edits())];
  const auto k = p.queue_edits.size() - static_cast<std::size_t>(left);
  if (k >= p.queue_edits.size()) return {};
  const QueueEdit& e = p.queue_edits[k];
  const auto q = static_cast<std::size_t>(e.queue);
  const std::string queue = e.local    ? "LocalQueue " + p.local_queues[q].name
                            : e.cohort ? "Cohort " + p.cohorts[q].name
                                       : "ClusterQueue " + p.cqs[q].quota.name;
  if (e.deletes || e.deletes_local) return queue + " deleted";
  if (e.creates) return queue + " created";
  std::vector<std::string> parts;
  const auto& was = e.local ? p.lq_stop_after[k] : p.cq_stop_after[k];
  if (!e.cohort && (e.quotas.empty() || was[q] != e.policy))
    parts.push_back(fmt::format("stopPolicy {}", model::stop_policy_name(e.policy)));
  for (const QuotaSet& c : e.quotas) {
    std::string set = fmt::format("{} {}", p.flavors[static_cast<std::size_t>(c.fr / p.R())],
                                  p.resources[static_cast<std::size_t>(c.fr % p.R())]);
    if (c.nominal) set += fmt::format(" nominalQuota {}", *c.nominal);
    if (c.borrowing_limit) set += " borrowingLimit " + limit(*c.borrowing_limit);
    if (c.lending_limit) set += " lendingLimit " + limit(*c.lending_limit);
    parts.push_back(set);
  }
  std::string out = queue + ":";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : " ") + parts[i];
  if (!e.spec_updated) out += " (unchanged: no spec update, nothing is requeued)";
  return out;
}

}  // namespace kmc::protocols::ka
