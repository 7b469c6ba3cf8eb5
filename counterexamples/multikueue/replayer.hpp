// MultiKueue replay's step driver: each protocol action of a trace becomes
// what the engine sees or does in the fleet's clusters (engine_replay.cpp
// decides the verdict from the steps it follows).
//
// Granularity follows the protocol's: an environment step posts an event to
// one cluster and lets that cluster's controllers react (no scheduling cycle);
// a scheduler step runs that cluster's cycles; a MultiKueue step runs the
// manager's MultiKueue controller for that one workload. When the engine
// waits on a timer (a requeue backoff, an Incremental round), virtual time
// moves to the next due instant, as it would in Kueue.
#pragma once

#include <functional>
#include <string>

#include "counterexamples/multikueue/engine_view.hpp"
#include "counterexamples/multikueue/itf_read.hpp"
#include "engine/multikueue.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx::mk {

struct Outcome {
  bool ok = true;
  std::string did;
};

class Replayer {
 public:
  Replayer(const model::Scenario& sc, const protocols::MkParams& p)
      : p_(p), fleet_(make_fleet(sc, p)), view_(fleet_, p_) {}

  Outcome apply(const ItfStep& s);
  const engine::Fleet& fleet() const { return fleet_; }
  const FleetView& view() const { return view_; }

 private:
  engine::Engine& cluster(int w) { return w < 0 ? fleet_.manager : fleet_.worker(p_.workers[w]); }
  engine::WorkloadInfo* local(int j) { return fleet_.manager.find(p_.jobs[j]); }
  engine::WorkloadInfo* remote(int j, int w) {
    return const_cast<engine::WorkloadInfo*>(view_.remote(j, w));
  }
  // Controllers only: the cluster's events due now, no scheduling cycle.
  void react(int w);
  // The cluster's scheduler: its events, then cycles until one changes nothing.
  void schedule(int w);
  bool reconcile(int j);
  // Repeats `act` until `done`, moving to the next due instant while the engine waits on a timer.
  bool drive(const std::function<void()>& act, const std::function<bool()>& done);
  // The MultiKueue controller on job j, the manager's reaction, the controller again: driven
  // until `done` (a Retry's eviction, a finish).
  bool manager_settles(int j, const std::function<bool()>& done) {
    return drive(
        [&] {
          reconcile(j);
          react(-1);
          reconcile(j);
          react(-1);  // what the second reconcile posted for now (a Job read inactive)
        },
        done);
  }
  void post_provisioning(int j, int w, const std::string& condition);
  // Before the manager loses w: the status its Jobs last copied from w's.
  Outcome last_status_seen(const ItfStep& s);

  Outcome scheduler_step(const ItfStep& s);
  Outcome dispatch_step(const ItfStep& s);
  Outcome worker_step(const ItfStep& s);
  Outcome environment_step(const ItfStep& s);

  const protocols::MkParams& p_;
  engine::Fleet fleet_;
  FleetView view_;
};

}  // namespace kmc::cx::mk
