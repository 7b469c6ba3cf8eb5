// Validating an engine log against the model: the set of model states that
// read as the log says so far is carried forward; each log step keeps the
// states within `lookahead` model actions whose job cells equal the logged
// ones. An empty set is a step the model cannot explain. Hidden variables
// (capacity, snapshot, budgets) stay nondeterministic, so the set may hold
// several states at once.
#include <fmt/format.h>

#include <deque>
#include <set>
#include <unordered_map>

#include "counterexamples/itf.hpp"
#include "counterexamples/multikueue/engine_walk.hpp"
#include "counterexamples/multikueue/itf_read.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cx {

namespace {

using State = protocols::MultiKueue::State;

// Every cell the log holds reads the same in the model's state.
bool cells_match(const protocols::MultiKueue& mk, const State& s, const model::Cells& cells) {
  for (const auto& c : mk.cells(s)) {
    const model::CellValue* logged = cells.find(c.field, c.entity);
    if (logged != nullptr && *logged != c.value) return false;
  }
  return true;
}

// The states within `lookahead` actions of `from` that read as `cells`; how
// many actions the shortest explanation took goes to `used`.
std::vector<State> explain(const protocols::MultiKueue& mk, const std::vector<State>& from,
                           const model::Cells& cells, int lookahead, std::size_t& used) {
  std::vector<State> out;
  std::set<std::uint64_t> seen, kept;
  std::deque<std::pair<State, int>> queue;
  for (const auto& s : from)
    if (seen.insert(mk.fingerprint(s)).second) queue.emplace_back(s, 0);
  std::vector<protocols::MultiKueue::Action> actions;
  int shortest = -1;
  while (!queue.empty()) {
    auto [s, depth] = std::move(queue.front());
    queue.pop_front();
    if (cells_match(mk, s, cells) && kept.insert(mk.fingerprint(s)).second) {
      if (shortest < 0) shortest = depth;
      out.push_back(s);
    }
    if (depth == lookahead) continue;
    actions.clear();
    mk.actions(s, actions);
    for (const auto& a : actions) {
      State n = mk.next(s, a);
      if (seen.insert(mk.fingerprint(n)).second) queue.emplace_back(std::move(n), depth + 1);
    }
  }
  if (shortest > 0) used += static_cast<std::size_t>(shortest);
  return out;
}

}  // namespace

Validation validate_log(const protocols::MultiKueue& mk, const EngineLog& log, int lookahead) {
  Validation v;
  std::vector<State> current;
  for (const auto& s : mk.init_states())
    if (!log.steps.empty() && cells_match(mk, s, log.steps.front().cells)) current.push_back(s);
  for (std::size_t i = 0; i < log.steps.size(); ++i) {
    if (i > 0) current = explain(mk, current, log.steps[i].cells, lookahead, v.model_actions);
    if (current.empty()) {
      v.step = i;
      v.event = log.steps[i].event;
      for (const auto& c : log.steps[i].cells.all())
        v.unexplained.push_back(
            fmt::format("{} = {}", model::key_text(c.field, c.entity), model::to_string(c.value)));
      return v;
    }
    v.matched = i + 1;
  }
  v.allowed = true;
  return v;
}

std::string to_text(const Validation& v) {
  if (v.allowed)
    return fmt::format(
        "Allowed: the model explains all {} steps of the engine's run ({} model actions).\n",
        v.matched, v.model_actions);
  std::string out = fmt::format(
      "Not allowed: the model explains steps 0 to {}, but not step {} ({}): no model state within "
      "reach reads\n",
      v.matched - 1, v.step, v.event);
  for (const auto& c : v.unexplained) out += "  " + c + "\n";
  return out;
}

const std::vector<model::FieldSchema>& log_fields() {
  static const std::vector<model::FieldSchema> fields = [] {
    std::vector<model::FieldSchema> out;
    for (const auto& f : protocols::MultiKueue::cell_fields())
      if (f.axes.front() == "job" && f.field != "mgr_flavor" && f.field != "remote_flavor")
        out.push_back(f);
    return out;
  }();
  return fields;
}

// A log's cells are written as an ITF state's variables (itf.cpp).
nlohmann::json to_json(const EngineLog& log) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : log.steps)
    steps.push_back({{"event", s.event}, {"cells", itf_variables(s.cells.all())}});
  return {
      {"kind", "kmc-engine-log"}, {"scenario", log.scenario}, {"seed", log.seed}, {"steps", steps}};
}

EngineLog engine_log_from_json(const ItfDocument& d) {
  const nlohmann::json& doc = d.doc;
  auto fail = [&](const std::string& field, const std::string& msg) { itf_error(d, field, msg); };
  if (!doc.is_object() || doc.value("kind", "") != "kmc-engine-log")
    fail("kind", "not a kmc engine log (expected \"kind\": \"kmc-engine-log\")");
  EngineLog log;
  if (doc.contains("scenario") && doc["scenario"].is_string())
    log.scenario = doc["scenario"].get<std::string>();
  if (!doc.contains("steps") || !doc["steps"].is_array() || doc["steps"].empty())
    fail("steps", "expected a non-empty array");
  for (std::size_t i = 0; i < doc["steps"].size(); ++i) {
    const auto& st = doc["steps"][i];
    const std::string at = fmt::format("steps[{}]", i);
    if (!st.is_object() || !st.contains("cells") || !st["cells"].is_object())
      fail(at + ".cells", "expected an object of cells");
    LogStep s;
    s.event = st.value("event", "");
    s.cells = read_cells(d, st["cells"], at + ".cells", log_fields());
    log.steps.push_back(std::move(s));
  }
  return log;
}

}  // namespace kmc::cx
