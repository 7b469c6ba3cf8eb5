// MultiKueue in one engine (kueue-semantics.md §6): a manager cluster and
// its workers, each a full Engine with its own queues and cache, on one
// virtual clock. The manager's MultiKueue admission check controller
// (pkg/controller/admissionchecks/multikueue/workload.go) and the dispatchers
// (AllAtOnce, Incremental, External) run between the clusters' cycles.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.hpp"

namespace kmc::engine {

// A worker connecting or disconnecting, as the manager's cluster controller sees it.
struct ConnectionChange {
  std::string worker;
  bool connected;
};

class Fleet {
 public:
  // Workers are named by their MultiKueueCluster name.
  Fleet(const model::ClusterManifests& manager,
        const std::vector<std::pair<std::string, model::ClusterManifests>>& workers,
        EngineOptions options = {});

  // A Workload submitted to the manager now; its runtime applies to the remote copy.
  int create_workload(model::Workload w);
  void post_connection(TimeMs at, ConnectionChange c) {
    connection_events_.emplace(at, std::move(c));
  }
  // The connection change now, as the manager's cluster controller records it (replay drives
  // partitions one step at a time, counterexamples/multikueue/engine_replay.cpp).
  void apply_connection(const ConnectionChange& c);
  // Settles the present instant (all clusters and the controllers), then moves to
  // the next one unless it is after until_ms (-1: no bound). False when it did not move.
  bool step(TimeMs until_ms = -1);
  // Steps until nothing is left or the next instant is after until_ms (-1: no bound).
  void run(TimeMs until_ms = -1);
  TimeMs now() const { return now_ms_; }
  // The next instant after now() at which an event, a timer or a connection
  // change is due in any cluster; -1 when nothing is.
  TimeMs next_due() const;
  // Moves the clock without running anything: replay drives the clusters and
  // the controllers one at a time (counterexamples/engine_replay.cpp).
  void set_now(TimeMs t) { now_ms_ = t; }

  Engine& worker(const std::string& name) { return workers.at(name); }
  bool connected(const std::string& name) const {
    return !disconnected_since.contains(name) && workers.contains(name);
  }

  Engine manager;
  std::map<std::string, Engine> workers;
  std::map<std::string, TimeMs> disconnected_since;  // connectionState.disconnectedSince
  std::map<std::string, TimeMs> remote_runtime_ms;  // the job's runtime, which only the remote runs
  std::map<std::string, TimeMs> round_start_ms;     // Incremental dispatcher, in memory only
  std::set<TimeMs> timers;                          // controller requeueAfter deadlines

 private:
  void settle();
  bool reconcile_all();  // true when something changed
  void apply_connection_events();
  void adopt_manager_workload(WorkloadInfo& w);
  TimeMs now_ms_ = 0;
  std::multimap<TimeMs, ConnectionChange> connection_events_;
};

// The MultiKueue check of a manager workload's ClusterQueue, or "" (multikueue_controller.cpp).
std::string multikueue_check(const Engine& manager, const WorkloadInfo& w);
// wlReconciler.Reconcile for one manager workload; true when something changed.
bool reconcile_multikueue(Fleet& fleet, WorkloadInfo& local, const std::string& check);
// The clusters to hold a remote copy (AllAtOnce, Incremental rounds, External)
// (multikueue_dispatcher.cpp).
std::vector<std::string> nominate_clusters(Fleet& fleet, WorkloadInfo& local,
                                           const model::MultiKueueConfig& cfg);

inline constexpr TimeMs kIncrementalRoundTimeoutMs = 5 * 60 * 1000;

}  // namespace kmc::engine
