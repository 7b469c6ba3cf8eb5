// The parts of compile_admission (params.cpp) that live in their own files.
// Each throws model::InputError naming file, line and field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/scenario.hpp"
#include "protocols/kueue_admission/params.hpp"

namespace kmc::protocols::ka {

// name's index in names, appended if it is not there yet.
int index_of(std::vector<std::string>& names, const std::string& name);

// compile_checks.cpp. The ClusterQueue q's admission checks as bits over
// p.checks (appended as met), per flavor of `flavors`.
std::vector<std::int64_t> compile_checks(const model::ClusterManifests& m, AdmissionParams& p,
                                         const model::ClusterQueue& q,
                                         const std::vector<int>& flavors);
// compile_checks.cpp. w's checks per chosen flavor (WorkloadParams::checks) and
// the starting status its Workload's checks give (initial_retries, _ready, _admitted).
void compile_workload_checks(const AdmissionParams& p, const model::Workload& wl,
                             WorkloadParams& w);
// compile_reservation.cpp. w's status.admission at the start: initial_flavor,
// reserved_at, initial_pods_ready (w.cq and w.eligible are set).
void compile_reservation(const AdmissionParams& p, const model::Workload& wl, WorkloadParams& w);
// compile_reservation.cpp. The dump's time (model/dump_clock.hpp) over the
// workloads there from the start.
std::int64_t dump_time(const model::Scenario& sc);
// compile_requeue_state.cpp. w's starting backoff, requeueState.count and
// queue-order timestamp, from a Workload evicted by a PodsReady timeout or a check
// (or, with PrioritySortingWithinCohort off, preempted while its preemptor borrowed),
// and an eviction the dump caught half done. `dump_time`: model/dump_clock.hpp.
void compile_requeue_state(AdmissionParams& p, const model::Workload& wl, WorkloadParams& w,
                           const model::KueueConfiguration& config, std::int64_t dump_time);
// compile_requeue_state.cpp. A warning for each two workloads of one ClusterQueue
// that the heap cannot tell apart before the name (p.workloads in queue order).
void warn_queue_order_ties(const model::ClusterManifests& m, AdmissionParams& p);
// reqIsNeeded: the checks whose ProvisioningRequest w needs, of those in `mask`.
std::int64_t needed_checks(const AdmissionParams& p, const WorkloadParams& w, std::int64_t mask);

// compile_environment.cpp. environment.deletions, before the workloads are
// sorted (it adds re-adoption slots); environment.arrivals, after.
void compile_deletions(const model::Scenario& sc, AdmissionParams& p);
void compile_arrivals(const model::Scenario& sc, AdmissionParams& p);
// environment.capacityRevocations, once the checks and the options are known.
void compile_revocations(const model::Scenario& sc, AdmissionParams& p);
// resource_groups.cpp. The `pods` Kueue requests for w where its ClusterQueue covers them.
void add_implicit_pods(const AdmissionParams& p, const model::Workload& wl, WorkloadParams& w);
// A ClusterQueue's flavor choice: CqParams::flavors and fixed_flavor
// (resource_groups.cpp), once its quotas are read.
void compile_flavor_choice(const model::ClusterQueue& q, AdmissionParams& p, CqParams& c);
// compile_gates.cpp. A warning for each feature gate set away from its default
// that the model does not read.
void compile_gates(const model::KueueConfiguration& config, AdmissionParams& p);
// environment.queueEdits, once every workload's LocalQueue is known.
void compile_queue_edits(const model::Scenario& sc, AdmissionParams& p);
// The queues those edits create (queue_creation.cpp): absent until then.
void compile_queue_creations(const model::Scenario& sc, AdmissionParams& p);
// Once finished: the workloads holding quota at the start fit the tree
// without the Cohorts created later (queue_creation.cpp).
void check_start_without_created_cohorts(const model::Scenario& sc, const AdmissionParams& p);

}  // namespace kmc::protocols::ka
