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
//    selected copy is evicted on its worker (#8477) or lost;
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
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/cell.hpp"
#include "protocols/multikueue_params.hpp"
#include "protocols/multikueue_state.hpp"

namespace kmc::protocols {

class MultiKueue {
 public:
  using State = MkState<std::int64_t>;
  using Action = MkAction;

  explicit MultiKueue(MkParams params);

  std::vector<State> init_states() const;
  void actions(const State& s, std::vector<Action>& out) const;
  State next(const State& s, const Action& a) const;
  // next() into `out`, reusing its storage: the checker's hot path.
  void next_into(const State& s, const Action& a, State& out) const;
  std::string action_name(const Action& a) const;
  std::uint64_t fingerprint(const State& s) const;

  // The state for people: (what, value) pairs in a stable order, named with
  // the scenario's job, cluster, ClusterQueue and flavor names.
  // Never parsed back: tools read cells().
  std::vector<std::pair<std::string, std::string>> describe(const State& s) const;
  // The state as typed cells (field, entity names, value), for ITF traces,
  // rendering, replay and validation (protocols/multikueue_cells.cpp).
  std::vector<model::Cell> cells(const State& s) const;
  // The schema of those cells: each field's axes and value kind, so a trace
  // can be checked without the scenario it came from.
  static const std::vector<model::FieldSchema>& cell_fields();
  // The trace name of an enum field's value: cell_enum("remote", kRemoteNone) is "None".
  static std::string cell_enum(std::string_view field, std::int64_t v);
  // The nondeterministic choices an action made, for traces (ITF nondetPicks).
  std::vector<std::pair<std::string, std::string>> picks(const Action& a) const;

  // Action families, for fairness: the controllers and the snapshot refresh
  // are weakly fair by default; the autoscaler and the environment are not.
  int family(const Action& a) const;
  std::vector<std::string> families() const;
  std::vector<int> default_fairness() const;  // 0 none, 1 weak, 2 strong; per family
  // The action instance (one per candidate: kind, job, cluster), for fairness
  // stated per instance, as TLA+ writes WF(RefreshSnapshot(w)) for each w.
  int instance(const Action& a) const { return a.id; }

  const MkParams& params() const { return p_; }
  // Every parameter, hashed: two instances with the same identity behave alike.
  std::uint64_t identity() const;
  const std::vector<Action>& candidates() const { return candidates_; }

  // Index helpers shared with invariants/.
  int jw(int j, int w) const { return j * p_.W() + w; }
  int u(int cq, int f, int r) const { return (cq * p_.flavors_max + f) * p_.R() + r; }
  int c(int w, int slot, int r) const { return (w * p_.slots_max + slot) * p_.R() + r; }

 private:
  void build_candidates();

  MkParams p_;
  std::vector<Action> candidates_;  // every action the parameters allow, in a fixed order
};

}  // namespace kmc::protocols
