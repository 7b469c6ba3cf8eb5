// The other direction (issue 5, item 5): the engine runs on its own and the
// model must explain what it did.
//
// A walk drives the engine's fleet with random environment events (an
// autoscaler's answer, a job finishing, the external dispatcher's pick from
// its snapshot, a refresh, a capacity loss), chosen by a seeded generator
// among those the scenario's environment allows, and lets the engine make
// every system decision eagerly, at its own granularity. Its log records,
// after each event, the typed cells of every job in the protocol's vocabulary.
// validate_log then searches the model for a behaviour through the same
// cells: a step it cannot match is where model and engine disagree.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "counterexamples/itf_document.hpp"
#include "model/cell.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

struct LogStep {
  std::string
      event;  // "ProvisioningAccepted(team-ml/llm-finetune, us-central1)", "settle", "time passes"
  model::Cells
      cells;  // every job's cells (phase, cluster, nominated, remote, prov, attempts), settled
};

struct EngineLog {
  std::string scenario;
  std::uint64_t seed = 0;
  std::vector<LogStep> steps;  // steps[0]: the initial cells
};

EngineLog random_walk(const model::Scenario& sc, const protocols::MkParams& p, std::uint64_t seed,
                      int max_steps);

nlohmann::json to_json(const EngineLog& log);
// The fields a log holds: the job cells of MultiKueue::cell_fields().
const std::vector<model::FieldSchema>& log_fields();
// Throws model::InputError naming the file, the line and the field (steps[3].cells.remote).
EngineLog engine_log_from_json(const ItfDocument& log);

struct Validation {
  bool allowed = false;
  // Every step's search visited all model states within reach (see SearchLimits), so a step it
  // cannot explain is one the model does not allow; otherwise the answer is Incomplete.
  bool complete = true;
  std::size_t matched = 0;  // log steps the model explained (the initial cells included)
  std::size_t step = 0;     // the first step it could not explain
  std::string event;
  std::vector<std::string>
      unexplained;  // the log's cells at that step that no model state within reach has
  // Where the search found no such state: how the state that read closest differs from them.
  std::vector<std::string> closest;
  std::size_t model_actions = 0;  // model actions of the explanation found for the whole log
  std::size_t states = 0;         // model states visited, all steps together
};

// How far the model is searched for each log step (the engine settles several protocol steps
// at once: one settle of AllAtOnce over examples/three-workers is about 25 model actions).
struct SearchLimits {
  int max_depth = 0;                // model actions per log step; 0: no limit
  std::size_t max_states = 20'000;  // model states visited per log step
};

// Best first, over the states that read closest to the log's cells, within the limits.
Validation validate_log(const protocols::MultiKueue& mk, const EngineLog& log,
                        SearchLimits limits = {});

std::string to_text(const Validation& v);

}  // namespace kmc::cx
