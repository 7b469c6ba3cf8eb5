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
  std::size_t matched = 0;  // log steps the model explained (the initial cells included)
  std::size_t step = 0;     // the first step it could not explain
  std::string event;
  std::vector<std::string>
      unexplained;  // the log's cells at that step that no model state within reach has
  std::size_t model_actions = 0;  // model actions used to explain the whole log
};

// Breadth-first, at most `lookahead` model actions per log step (the engine
// settles several protocol steps at once).
Validation validate_log(const protocols::MultiKueue& mk, const EngineLog& log, int lookahead = 10);

std::string to_text(const Validation& v);

}  // namespace kmc::cx
