// kmc.yaml's environment.queueEdits for compile_admission: each names a
// ClusterQueue, a LocalQueue (one no workload uses is kept, so the edit still
// names it) or a Cohort of the scenario, and sets a stopPolicy, quotas, or both;
// or deletes a ClusterQueue or a Cohort; or creates a queue (queue_creation.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "protocols/kueue_admission/compile_parts.hpp"

namespace kmc::protocols::ka {

using model::InputError;

namespace {

int find(const std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

// An edit sets the quotas a ClusterQueue or Cohort has: adding a flavor or a
// resource would change the tree's shape and the flavor assignment, which the
// model keeps constant, so it is refused rather than half-modelled.
// `now`: the queue's quotas as the edits so far leave them, updated here;
// `changed` is set where this edit changes one. `lending_within_nominal`: a
// ClusterQueue's, whose lending limit may not exceed its nominal quota (a
// Cohort's may).
std::vector<QuotaSet> compile_quotas(const model::QueueEdit& e, const std::string& field,
                                     const std::vector<model::ResourceGroup>& groups,
                                     bool has_parent, const std::string& owner,
                                     const AdmissionParams& p, QuotaNode& now,
                                     bool lending_within_nominal, bool& changed) {
  std::vector<QuotaSet> out;
  for (std::size_t j = 0; j < e.quotas.size(); ++j) {
    const auto& c = e.quotas[j];
    const std::string at = fmt::format("{}.quotas[{}]", field, j);
    bool has = false;
    for (const auto& rg : groups)
      for (const auto& fq : rg.flavors)
        if (fq.name == c.flavor)
          for (const auto& rq : fq.resources) has = has || rq.name == c.resource;
    if (!has)
      throw InputError(c.pos, at,
                       fmt::format("{} has no quota of {} in flavor {}: an edit changes the "
                                   "quotas it has (adding a flavor or resource is not modelled)",
                                   owner, c.resource, c.flavor));
    QuotaSet q;
    q.fr = p.fr(find(p.flavors, c.flavor), find(p.resources, c.resource));
    auto value = [&](const model::Quantity& v, const char* name) {
      const std::int64_t x = v.kueue_value(c.resource);
      if (x < 0)
        throw InputError(c.pos, at + "." + name, fmt::format("{} must not be negative", name));
      return x;
    };
    if (c.nominal_quota) q.nominal = value(*c.nominal_quota, "nominalQuota");
    for (const auto& [limit, name, dst] :
         {std::tuple{&c.borrowing_limit, "borrowingLimit", &q.borrowing_limit},
          std::tuple{&c.lending_limit, "lendingLimit", &q.lending_limit}}) {
      if (!*limit) continue;
      if (**limit && !has_parent)
        throw InputError(c.pos, at + "." + name,
                         fmt::format("{} needs a cohort (Kueue rejects it without one)", name));
      *dst = **limit ? value(***limit, name) : kNoLimit;
    }
    const auto fr = static_cast<std::size_t>(q.fr);
    for (const auto& [set, cur] : {std::pair{q.nominal, &now.nominal[fr]},
                                   std::pair{q.borrowing_limit, &now.borrowing_limit[fr]},
                                   std::pair{q.lending_limit, &now.lending_limit[fr]}})
      if (set && *set != *cur) *cur = *set, changed = true;
    // The ClusterQueue webhook's validateLendingLimit rejects the edit otherwise.
    const std::int64_t nominal = now.nominal[fr], lending = now.lending_limit[fr];
    if (lending_within_nominal && lending != kNoLimit && lending > nominal)
      throw InputError(c.pos, at,
                       fmt::format("lendingLimit {} must be less than or equal to the "
                                   "nominalQuota {} (Kueue's webhook rejects the edit)",
                                   lending, nominal));
    out.push_back(q);
  }
  return out;
}

// A Cohort's deletion (the cohort controller's Reconcile on NotFound: the
// cache's and the queue manager's DeleteCohort). It has no finalizer, so it
// goes at once. Its ClusterQueues and child Cohorts keep their cohort, now an
// implicit one: no quota of its own, no limits, and no parent. All quotas
// set to 0 without limits; the tree after the edit detaches it from its
// parent (QuotaTree), so a Cohort with both a parent and children leaves its
// subtree a tree of its own.
std::vector<QuotaSet> cohort_deletion(const AdmissionParams& p) {
  std::vector<QuotaSet> out;
  for (int fr = 0; fr < p.F() * p.R(); ++fr) out.push_back({fr, 0, kNoLimit, kNoLimit});
  return out;
}

}  // namespace

void compile_queue_edits(const model::Scenario& sc, AdmissionParams& p) {
  const auto& edits = sc.fleet.environment.queue_edits;
  // Each ClusterQueue's policy and quotas as the edits so far leave them.
  std::vector<model::StopPolicy> cq_now;
  std::vector<QuotaNode> quota_now;
  for (const auto& q : p.cqs) cq_now.push_back(q.stop), quota_now.push_back(q.quota);
  std::vector<QuotaNode> cohort_now = p.cohorts;
  // Whether each Cohort exists before the next edit: from the start, unless
  // the first edit naming it creates it.
  std::vector<bool> cohort_exists(p.cohorts.size(), true), cohort_named(p.cohorts.size(), false);
  std::vector<int> created_by(p.cohorts.size(), -1);
  for (const auto& e : edits)
    for (std::size_t c = 0; c < p.cohorts.size(); ++c)
      if (e.cohort == p.cohorts[c].name && !cohort_named[c])
        cohort_named[c] = true, cohort_exists[c] = !e.creates;
  std::vector<int> deleted_by(p.cqs.size(), -1);    // the edit that deletes it
  std::vector<int> recreated_by(p.cqs.size(), -1);  // the edit that creates it again
  std::vector<int> deleted_cohort_by(p.cohorts.size(), -1);
  std::map<std::string, int> deleted_local_by;
  for (std::size_t i = 0; i < edits.size(); ++i) {
    const auto& e = edits[i];
    const std::string field = fmt::format("environment.queueEdits[{}]", i);
    QueueEdit out;
    if (!e.cluster_queue.empty()) {
      for (int q = 0; q < p.Q(); ++q)
        if (p.cqs[q].quota.name == e.cluster_queue) out.queue = q;
      if (out.queue < 0)
        throw InputError(e.pos, field + ".clusterQueue",
                         fmt::format("no ClusterQueue {} in {}/", e.cluster_queue, sc.manager.dir));
      const model::ClusterQueue* cq = sc.manager.find_cluster_queue(e.cluster_queue);
      const auto q = static_cast<std::size_t>(out.queue);
      // Kueue's ClusterQueue controller ignores updates of a deleting
      // ClusterQueue (Update returns at a deletionTimestamp): refused, not
      // dropped. Created again, it is its manifest's (queue_creation.cpp), and
      // the creation waits until the old one is gone (Scheduler::edit_waits).
      if (const int by = deleted_by[q]; by >= 0 && e.creates) {
        deleted_by[q] = -1;
        recreated_by[q] = static_cast<int>(i);
        cq_now[q] = cq->stop_policy;
        quota_now[q] = p.cqs[q].quota;
      } else if (by >= 0) {
        throw InputError(e.pos, field + ".clusterQueue",
                         fmt::format("ClusterQueue {} is deleted by environment.queueEdits[{}]: "
                                     "Kueue ignores edits of a deleting ClusterQueue (create it "
                                     "again: it waits until the old one is gone)",
                                     e.cluster_queue, by));
      } else if (e.deletes && recreated_by[q] >= 0) {
        throw InputError(e.pos, field + ".delete",
                         fmt::format("ClusterQueue {} was created again by "
                                     "environment.queueEdits[{}]: kmc models one deletion of "
                                     "a ClusterQueue in a run",
                                     e.cluster_queue, recreated_by[q]));
      } else if (e.creates && recreated_by[q] >= 0) {
        throw InputError(e.pos, field + ".create",
                         fmt::format("ClusterQueue {} exists (created again by "
                                     "environment.queueEdits[{}]): delete it first",
                                     e.cluster_queue, recreated_by[q]));
      }
      if (e.deletes) {
        deleted_by[q] = static_cast<int>(i);
        // The model keeps a tree per set of ClusterQueues gone (quota_edits.cpp).
        auto set = [](int b) { return b >= 0; };
        if (std::count_if(deleted_by.begin(), deleted_by.end(), set) +
                std::count_if(recreated_by.begin(), recreated_by.end(), set) >
            8)
          throw InputError(e.pos, field + ".delete",
                           "kmc models at most 8 ClusterQueue deletions in one run");
      }
      out.deletes = e.deletes;
      bool changed = e.deletes || e.creates;
      out.quotas =
          compile_quotas(e, field, cq->resource_groups, !cq->cohort.empty(),
                         "ClusterQueue " + e.cluster_queue, p, quota_now[q], true, changed);
      auto& now = cq_now[q];
      const model::StopPolicy policy = e.stop_policy.value_or(now);
      out.spec_updated = changed || policy != now;
      out.policy = now = policy;
    } else if (!e.cohort.empty()) {
      out.cohort = true;
      for (int c = 0; c < p.C(); ++c)
        if (p.cohorts[c].name == e.cohort) out.queue = c;
      const auto it = std::find_if(sc.manager.cohorts.begin(), sc.manager.cohorts.end(),
                                   [&](const model::Cohort& c) { return c.meta.name == e.cohort; });
      if (out.queue < 0 || it == sc.manager.cohorts.end())
        throw InputError(e.pos, field + ".cohort",
                         fmt::format("no Cohort {} in {}/ (a cohort only ClusterQueues name has "
                                     "no object to edit)",
                                     e.cohort, sc.manager.dir));
      const auto c = static_cast<std::size_t>(out.queue);
      if (e.creates) {
        // A Cohort is absent from the start where its first edit creates it
        // (cohort_exists), and after its deletion: an implicit cohort of its
        // name (compile_queue_creations).
        if (cohort_exists[c])
          throw InputError(e.pos, field + ".create",
                           created_by[c] >= 0
                               ? fmt::format("Cohort {} exists (created by "
                                             "environment.queueEdits[{}]): delete it first",
                                             e.cohort, created_by[c])
                               : fmt::format("Cohort {} exists: delete it first (a Cohort is "
                                             "absent from the start only where its first edit "
                                             "creates it)",
                                             e.cohort));
        cohort_exists[c] = true;
        created_by[c] = static_cast<int>(i);
        cohort_now[c] = p.cohorts[c];  // its manifest's quotas, which the creation sets
      } else if (!cohort_exists[c]) {
        // Only a deletion gets here: a Cohort absent from the start is first named by its creation.
        throw InputError(e.pos, field + ".cohort",
                         fmt::format("Cohort {} does not exist (deleted by "
                                     "environment.queueEdits[{}]): create it first",
                                     e.cohort, deleted_cohort_by[c]));
      } else if (e.deletes) {
        deleted_cohort_by[c] = static_cast<int>(i);
        cohort_exists[c] = false;
        out.deletes = true;
        out.quotas = cohort_deletion(p);
      } else {
        bool changed = false;
        out.quotas = compile_quotas(e, field, it->resource_groups, !it->parent.empty(),
                                    "Cohort " + e.cohort, p, cohort_now[c], false, changed);
        out.spec_updated = changed;
      }
    } else {
      out.local = true;
      const auto slash = e.local_queue.find('/');
      const auto* lq = sc.manager.find_local_queue(e.local_queue.substr(0, slash),
                                                   e.local_queue.substr(slash + 1));
      if (lq == nullptr)
        throw InputError(e.pos, field + ".localQueue",
                         fmt::format("no LocalQueue {} in {}/", e.local_queue, sc.manager.dir));
      for (int q = 0; q < static_cast<int>(p.local_queues.size()); ++q)
        if (p.local_queues[q].name == e.local_queue) out.queue = q;
      if (out.queue < 0) {
        p.local_queues.push_back({e.local_queue, lq->stop_policy});
        out.queue = static_cast<int>(p.local_queues.size()) - 1;
      }
      if (const auto by = deleted_local_by.find(e.local_queue); by != deleted_local_by.end()) {
        if (!e.creates)
          throw InputError(e.pos, field + ".localQueue",
                           fmt::format("LocalQueue {} does not exist (deleted by "
                                       "environment.queueEdits[{}]): create it first",
                                       e.local_queue, by->second));
        // Created again: AddLocalQueue pushes its pending workloads, as for a
        // LocalQueue absent from the start (compile_queue_creations).
        deleted_local_by.erase(by);
      }
      if (e.deletes) {
        // A LocalQueue has no finalizer: it is gone at once. The LocalQueue
        // controller's Delete takes its pending workloads out of the queue
        // manager; the workload controller finds it missing and unsets what
        // its workloads reserved without being Admitted ("terminating or
        // missing"); Admitted ones keep running, as a missing queue's
        // stopPolicy reads None. That is stopPolicy Hold, until it is
        // created again.
        deleted_local_by[e.local_queue] = static_cast<int>(i);
        out.deletes_local = true;
        out.policy = model::StopPolicy::Hold;
      } else {
        // The loader requires a policy of a LocalQueue's edit that does not create it.
        out.policy = e.creates ? lq->stop_policy : *e.stop_policy;
      }
    }
    out.creates = e.creates;  // the rest is compile_queue_creations'
    p.queue_edits.push_back(out);
  }
}

}  // namespace kmc::protocols::ka
