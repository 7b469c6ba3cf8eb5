// The engine's fleet in the protocol's vocabulary, so replay can compare a
// trace's typed cells (remote[team-ml/llm-finetune, us-central1] =
// QuotaReserved, prov[...] = Accepted, nominated[...] = 1) with what the
// engine holds, and the properties decided on the engine's own objects.
// Internal to replay.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "engine/multikueue.hpp"
#include "model/cell.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue_params.hpp"

namespace kmc::cx {

// The engine's fleet for a scenario, running with the MultiKueue gates the
// protocol instance assumed (the scenario's, a variant's or a matrix cell's).
engine::Fleet make_fleet(const model::Scenario& sc, const protocols::MkParams& p);

class FleetView {
 public:
  FleetView(const engine::Fleet& fleet, const protocols::MkParams& params)
      : f_(fleet), p_(params) {}

  const engine::WorkloadInfo* local(int j) const;
  const engine::WorkloadInfo* remote(int j, int w) const;  // nullptr: none, or deleted
  // Job j's cells as the protocol's state names them: on the manager (w < 0)
  // phase and cluster; on worker w nominated, remote, prov and attempts.
  std::vector<model::Cell> cells(int j, int w) const;
  // One of those cells' values ("prov" of job j on worker w); an empty name if there is none.
  model::CellValue value(int j, int w, const std::string& field) const {
    for (auto& c : cells(j, w))
      if (c.field == field) return c.value;
    return std::string();
  }
  // "QuotaReserved on us-central1": the manager's workload, for messages.
  std::string manager_text(int j) const;
  // Every job's cells, the flavors its reservations took, and every ClusterQueue's usage: what
  // must repeat around a loop, and what a property of kmc.yaml's own is decided on.
  std::map<model::CellKey, model::CellValue> projection() const;
  bool running(int j, int w) const;
  // The ProvisioningRequest check of a worker's copy, or "".
  std::string provisioning_check(int j, int w) const;
  // What the capacity-snapshot dispatcher's Renominate does to job j's
  // nominatedClusterNames: it drops the workers whose copy was deactivated (Rejected).
  void drop_rejected(std::vector<std::string>& nominated, int j) const;

 private:
  const engine::Fleet& f_;
  const protocols::MkParams& p_;
};

// The properties, decided on the engine's objects (not the model's state).
// Each returns a sentence when the property is violated, nullopt when it holds.
std::optional<std::string> engine_quota_exceeded(const engine::Fleet& f);
std::optional<std::string> engine_quota_counted_twice(const engine::Fleet& f);
std::optional<std::string> engine_job_on_two_workers(const engine::Fleet& f,
                                                     const protocols::MkParams& p);

// What the environment could still do, read from the trace's last state: the
// free physical capacity per worker, which the engine does not model.
struct Environment {
  std::map<std::vector<std::string>, std::int64_t>
      free;  // {worker, flavor, resource} -> Kueue units
  bool fits(const protocols::MkParams& p, int j, int w) const;
};

// Every controller, backoff and requeue timer of the fleet, run for a virtual
// day: where a job the trace leaves stuck must still be if Kueue leaves it
// stuck too (issue 12e: it may have evicted and re-reserved it meanwhile).
void run_a_virtual_day(engine::Fleet& f);

// Stuck: in a fleet run to the end (run_a_virtual_day), job j holds or waits
// for quota without running, nothing the environment may still do (an
// autoscaler answer with capacity behind it) would move it, and some worker
// has both free capacity and, by its own scheduler, quota for it. Whether
// the job is where the trace left it is the caller's to compare.
std::optional<std::string> engine_job_stuck(const engine::Fleet& settled,
                                            const protocols::MkParams& p, const Environment& env,
                                            int j);

}  // namespace kmc::cx
