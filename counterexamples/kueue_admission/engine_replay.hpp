// Replay of a kueue-admission counterexample in the reference admission
// engine (DESIGN.md "The engine and replay"; issue 11, item 6).
//
// The engine (engine/) is an independent re-implementation of Kueue: replay
// loads the scenario's cluster manifests into it and drives it from the
// trace's actions and picks. Schedule is exactly one scheduling cycle, plus
// what Kueue does at once after it that the protocol folds into the step (an
// evicted Job's quota released and the Job requeued, the inadmissible
// workloads of a tree requeued after the 1 s batch period); the engine makes
// its own decisions in that cycle. Finish, PodsTerminated, KubeletLost and
// ForceFailStuckPods are environment events for the picked workload: its job
// completes, its terminating pods are gone, they get stuck on a node whose
// kubelet is lost, the PodTermination controller fails them. After every step
// (the initial state included) each workload's phase and flavor and each
// ClusterQueue's usage and sticky head in the engine are compared with the
// trace's cells. Reproduced: every step agreed and the property is violated
// in the engine's own state, by a predicate on the engine's objects (for a
// lasso: the prefix and two turns of the loop agreed). Diverged: the first
// step and cell that differ, engine value against trace value.
#pragma once

#include <optional>
#include <string>

#include "counterexamples/multikueue/engine_replay.hpp"
#include "counterexamples/multikueue/itf_read.hpp"
#include "counterexamples/trace.hpp"
#include "model/scenario.hpp"
#include "protocols/kueue_admission/params.hpp"

namespace kmc::cx {

// `params` is the protocol instance the trace came from: it names the
// workloads and ClusterQueues. Throws model::InputError naming the trace
// file, line and field for a document that is not a trace of this instance.
// The verdict prints as MultiKueue's does (to_text, to_json).
EngineReplay replay_in_engine(const model::Scenario& scenario,
                              const protocols::ka::AdmissionParams& params, const ItfDocument& itf);
// A trace in memory (kmc check --replay-engine) with its replay token.
EngineReplay replay_in_engine(const model::Scenario& scenario,
                              const protocols::ka::AdmissionParams& params, const Trace& trace,
                              const std::string& replay_token);

struct AdmissionReplayTarget {
  model::Scenario scenario;
  protocols::ka::AdmissionParams params;
};

// The scenario and its protocol instance, refusing a trace whose replay
// token names another scenario (exit 3).
AdmissionReplayTarget load_admission_replay_target(const ItfDocument& itf,
                                                   const std::string& scenario_dir);

}  // namespace kmc::cx
