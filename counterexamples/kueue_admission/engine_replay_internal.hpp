// The parts of a kueue-admission replay (engine_replay.hpp), internal to it:
// the trace as steps resolved against the scenario (engine_replay_read.cpp),
// one step driven in the engine and the engine read back as the protocol's
// cells (engine_replay_step.cpp), and the properties decided on the
// engine's own objects (engine_replay_properties.cpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "counterexamples/multikueue/itf_read.hpp"
#include "engine/engine.hpp"
#include "model/cell.hpp"
#include "model/scenario.hpp"
#include "protocols/kueue_admission/params.hpp"

namespace kmc::cx::admission {

struct ReplayStep {
  std::size_t index = 0;   // the ITF state the step leads to
  int kind = -1;           // protocols::ka::Kind; -1 for the initial state
  int workload = -1;       // the picked workload, -1 for Schedule
  int check = -1;          // the picked admission check (Provisioned, ProvisioningFailed)
  int cluster_queue = -1;  // the picked ClusterQueue (ClusterQueueFinalized)
  std::string name;        // "Finish(research/sweep)", "init"
  model::Cells cells;      // every typed cell of the state
};

struct ReplayTrace {
  ItfTrace meta;  // property, subject, loop (its steps are unused)
  std::vector<ReplayStep> steps;
};

// Throws model::InputError naming the file, the state's line and the field
// for a document that is not a trace of this instance.
ReplayTrace read_trace(const ItfDocument& d, const protocols::ka::AdmissionParams& p);

// The engine for the scenario's cluster, as replay runs it (without the
// workloads that arrive during the run: Arrive creates them): victims' pods
// terminate when the trace says so, jobs finish when it says so, the
// controllers have reconciled the loaded objects, and it runs the Kueue the
// instance's variant names where the engine has that Kueue (pre-7157: no
// sticky head; pre-7312 is the absence of ForceFailStuckPods events).
engine::Engine make_engine(const model::Scenario& sc, const protocols::ka::AdmissionParams& p);

// What Kueue does right after a step without waiting on anyone: an evicted
// Job's quota released, the inadmissible workloads of a tree requeued after
// the batch period. Virtual time moves to each of these events in turn;
// nothing else runs (no cycle, no other timer).
void settle(engine::Engine& e);

struct Outcome {
  bool ok = true;
  std::string did;  // what the engine did, in Kueue's words
};

// One step of the protocol (its Kind and workload) driven in the engine:
// Schedule is one cycle, the others environment events; then settle().
// `m` is the scenario's cluster, where an arriving workload's manifest is.
Outcome apply_step(engine::Engine& e, const protocols::ka::AdmissionParams& p,
                   const model::ClusterManifests& m, int kind, int workload, int check_index = -1,
                   int cluster_queue = -1);

// The QueueEdited step (engine_replay_queue_edit.cpp): the next edit applied.
Outcome apply_queue_edit(engine::Engine& e, const protocols::ka::AdmissionParams& p);

// Every engine workload's phase by its protocol name, and what changed since
// `before` ("research/sweep Admitted -> Evicted; ..."), for the steps' reports.
std::map<std::string, std::string> all_phases(const engine::Engine& e);
std::string changes(const std::map<std::string, std::string>& before, const engine::Engine& e);

// A step's name in reports: the action's, with what it picked, as in
// "Finish(research/sweep)" or "ClusterQueueFinalized(team-b)".
std::string step_name(const protocols::ka::AdmissionParams& p, const std::string& action,
                      int workload, int check, int cluster_queue);

// A workload's phase as the engine's conditions and queues imply it, in the
// protocol's names (Pending, Inadmissible, Admitted, Evicted,
// StuckTerminating, Finished); another word where none applies.
std::string engine_phase(const engine::Engine& e, const std::string& key);

// "field[entity]: trace X, engine Y" for each phase, flavor, usage and sticky
// cell of the trace's state that the engine disagrees with (rank and budget
// have no engine counterpart: the engine keeps no reservation order, and
// budgets are the environment's).
std::vector<std::string> cell_differences(const engine::Engine& e, const model::Cells& trace);

// The compared cells' engine values, keyed as the trace keys them: what must
// repeat around a loop.
std::vector<model::Cell> engine_cells(const engine::Engine& e, const model::Cells& like);

// What the environment of the scenario may still do at the end of a trace:
// its candidate actions other than Schedule, from the protocol's action
// table (a Kueue before #7312 has no ForceFailStuckPods), each with whether
// its family is fairly scheduled (kmc.yaml's fairness over the defaults:
// pods terminate and stuck pods are failed eventually, jobs need not finish).
struct Move {
  int kind = -1;  // protocols::ka::Kind
  int workload = -1;
  bool fair = false;
  int check = -1;          // Provisioned, ProvisioningFailed: the admission check
  int cluster_queue = -1;  // ClusterQueueFinalized: the ClusterQueue
};
struct Environment {
  const model::ClusterManifests* manifests = nullptr;  // the scenario's cluster
  std::vector<Move> moves;
  std::vector<std::string> kinds;  // the action table's names, by Kind
};
Environment environment_of(const model::Scenario& sc, const protocols::ka::AdmissionParams& p);

// The guarantee, by the engine's own scheduler: `key` waits, and were it the
// only workload waiting and the pods of every evicted workload gone, the
// engine would reserve quota for it within its ClusterQueue's nominal quota
// (preempting what its ClusterQueue's policies let it).
bool guaranteed_in_engine(const engine::Engine& e, const std::string& key);

// Whether replay can decide `property` on the engine's objects at all.
bool engine_decides(const std::string& property);
// A property decided on the engine's objects after the trace's last step,
// with the sentence that says why it is violated there, or why it holds.
struct PropertyCheck {
  bool decided = true;  // false: kmc has no engine predicate for this property
  bool violated = false;
  std::string why;
};
// `subject` is the workload a per-workload property is about; `premise` the
// first step after which the engine found it within its guarantee (for
// guarantee-eventually-admitted on a behaviour that stops), if any.
PropertyCheck property_in_engine(const std::string& property, const engine::Engine& e,
                                 const protocols::ka::AdmissionParams& p, const Environment& env,
                                 int subject, std::optional<std::size_t> premise);

}  // namespace kmc::cx::admission
