// MultiKueue dispatch from a manager cluster to worker clusters, with
// ProvisioningRequests answered by each worker's Cluster Autoscaler and the
// manager's capacity snapshot — the protocol behind the GPU Hunter deadlock.
//
// Models (Kueue at ff69552e, v0.20 line; kueue-semantics.md §5.3, §6):
//  - the manager's scheduler reserving quota on its ClusterQueue in queue
//    order (BestEffortFIFO / StrictFIFO), flavors in preference order;
//  - dispatch by AllAtOnce, Incremental (rounds of stepSize clusters, the
//    5-minute round timer abstracted to "any time"), or an external
//    dispatcher that nominates by the manager's capacity snapshot, pinning
//    one worker or keeping the job eligible on every worker with room;
//  - remote Workloads created on nominated workers, each worker's Kueue
//    reserving quota independently, its ProvisioningRequest admission check
//    (classes best-effort-atomic-scaleup, check-capacity-autoscaling,
//    queued-provisioning; retryStrategy.backoffLimitCount), first copy
//    QuotaReserved (before MultiKueueWaitForWorkloadAdmitted, #8592) or
//    Admitted (after) wins and the others are deleted; re-dispatch when the
//    selected copy no longer has that condition, even if it already holds
//    quota on its worker again (#8477, reconcileGroup steps 4 and 6a), or is lost;
//  - the environment: autoscaler answers (per worker: provisions when
//    capacity allows, fails fast, accepts then hangs, or any), spot
//    reclaims of running jobs, idle capacity disappearing, snapshot refreshes.
// Abstracts away: wall-clock time (timers fire "eventually", in any order),
// requeue backoff, Job/pod objects (a job runs once its copy is selected,
// Admitted and has nodes), cohorts and borrowing, preemption, lost workers,
// more than one resource group per ClusterQueue. Deletions of losing copies
// take effect in the reconcile that selects the winner.
// Usually checked at 1-2 jobs and 2-3 workers; see tests/protocols for counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/assert.hpp"
#include "model/cell.hpp"
#include "model/instance.hpp"
#include "protocols/multikueue_params.hpp"
#include "protocols/multikueue_spec.hpp"
#include "protocols/multikueue_state.hpp"

namespace kmc::protocols {

// The explicit instance of the MultiKueue definition (multikueue_spec.hpp):
// actions, next, fingerprints, names, picks and fairness families are the
// generic ones (model/instance.hpp); what is added here is for people and
// for invariants/.
class MultiKueue : public model::Instance<MkSpec> {
 public:
  explicit MultiKueue(MkParams params) : Instance(std::move(params)) {}

  // The state for people: (what, value) pairs in a stable order, named with
  // the scenario's job, cluster, ClusterQueue and flavor names.
  // Never parsed back: tools read cells().
  std::vector<std::pair<std::string, std::string>> describe(const State& s) const;
  // The state's typed cells are the instance's (cells(), from the layout).
  // Their schema, each field's axes and value kind, is the same for every
  // scenario, so a trace can be checked without the scenario it came from.
  static const std::vector<model::FieldSchema>& cell_fields();
  // The trace name of an enum field's value: cell_enum("remote", kRemoteNone) is "None".
  static std::string cell_enum(std::string_view field, std::int64_t v);
  // The action kind a trace names ("ReserveQuota"), from the action table; nullopt for none.
  static std::optional<ActionKind> action_kind(std::string_view name);

  // Index helpers shared with invariants/.
  int jw(int j, int w) const { return params().jw(j, w); }
  int u(int cq, int f, int r) const { return params().u(cq, f, r); }
  int c(int w, int slot, int r) const {
    const MkParams& p_ = params();
    KMC_ASSERT(0 <= w && w < p_.W() && 0 <= slot && slot < p_.slots_max && 0 <= r && r < p_.R());
    return (w * p_.slots_max + slot) * p_.R() + r;
  }
};

}  // namespace kmc::protocols
