// Replay of a model counterexample in the reference admission engine
// (DESIGN.md "The engine and replay"; issue 5).
//
// A trace is a claim about Kueue. Replay turns each of its steps into what
// the engine sees: the environment's picks (an autoscaler's answer, a job
// finishing, a capacity change, which cluster's controllers run next, what
// the external dispatcher read from a stale snapshot) become engine events
// or writes; the protocol's own decisions (which workload a cycle admits,
// which copy wins, when the manager retries) are left to the engine, and
// what it did is compared with the trace. The verdict is Reproduced only
// when the engine followed every step and the property is violated in the
// engine's own state, by the engine's own predicate; otherwise Diverged,
// with the step, what the trace expected and what the engine did instead.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "counterexamples/multikueue/itf_read.hpp"
#include "counterexamples/trace.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue_params.hpp"

namespace kmc::cx {

struct EngineStep {
  std::size_t index = 0;  // the ITF state the step leads to
  std::string action;     // "ReserveQuota(team-ml/llm-finetune)"
  std::string engine;     // what the engine did, in Kueue's words
};

struct EngineReplay {
  enum class Verdict { Reproduced, Diverged };
  Verdict verdict = Verdict::Diverged;
  std::string property;
  std::vector<EngineStep> steps;  // the steps the engine followed
  // Diverged: where, what the engine did, and the differing cells of the
  // state (the trace's value against the engine's).
  std::size_t step = 0;
  std::string action, engine_did;
  std::vector<std::string> difference;
  // The property, decided on the engine's state.
  std::string property_check;
  bool lasso = false;     // a prefix and two turns of the loop were replayed
  int lasso_retries = 0;  // retries the engine made in one turn of the loop
  double seconds = 0;
};

const char* to_string(EngineReplay::Verdict v);

// `params` is the protocol instance the trace came from (levers and variant
// applied): it names jobs and workers and says which gates the engine runs
// with. Throws model::InputError naming the trace file, line and field for a
// document that is not a kmc trace of this scenario.
EngineReplay replay_in_engine(const model::Scenario& scenario, const protocols::MkParams& params,
                              const ItfDocument& itf);
// The same for a trace in memory (kmc check --replay-engine), with its replay
// token: read as its ITF document, but never printed and parsed back.
EngineReplay replay_in_engine(const model::Scenario& scenario, const protocols::MkParams& params,
                              const Trace& trace, const std::string& replay_token);

std::string to_text(const EngineReplay& r);
nlohmann::json to_json(const EngineReplay& r);

}  // namespace kmc::cx
