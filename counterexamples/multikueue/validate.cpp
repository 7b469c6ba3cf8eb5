// Validating an engine log against the model: the set of model states that
// read as the log says so far is carried forward; each log step keeps the
// states reachable from that set whose job cells equal the logged ones. An
// empty set is a step the model cannot explain. Hidden variables (capacity,
// snapshot, budgets) stay nondeterministic, so the set may hold several states
// at once.
//
// The search is best first: a state whose cells read closer to the log's
// goes first (Distance), so a step that settles many protocol steps at once
// (AllAtOnce over a fleet) is explained without visiting every interleaving
// of them. It is exhaustive where it ends on its own; where a limit ends it,
// the matching states it kept may be only some of them, and a later step
// none of them explains is Incomplete, never "not allowed".
#include <fmt/format.h>

#include <deque>
#include <map>
#include <optional>
#include <unordered_set>

#include "counterexamples/itf.hpp"
#include "counterexamples/multikueue/engine_walk.hpp"
#include "counterexamples/multikueue/itf_read.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cx {

namespace {

using State = protocols::MultiKueue::State;

// How far a state reads from the log's cells: for each cell the log holds, how many steps of its
// field's lifecycle lie between the two values (the enums list their phases in order, None
// before Pending before QuotaReserved), or the difference of two numbers. Counting steps, not
// cells, makes creating a copy (None to Pending, on the way to QuotaReserved) progress, so the
// search creates copies in the order it finds them, as the engine does, instead of first
// settling the copies whose logged value is Pending.
class Distance {
 public:
  Distance() {
    for (const auto& f : protocols::MultiKueue::cell_fields())
      for (std::size_t i = 0; i < f.values.size(); ++i) index_[f.field][f.values[i]] = i;
  }
  std::size_t operator()(const protocols::MultiKueue& mk, const State& s,
                         const model::Cells& cells) const {
    std::size_t n = 0;
    for (const auto& c : mk.cells(s))
      if (const model::CellValue* logged = cells.find(c.field, c.entity))
        n += apart(c.field, *logged, c.value);
    return n;
  }

 private:
  std::size_t apart(const std::string& field, const model::CellValue& a,
                    const model::CellValue& b) const {
    if (a == b) return 0;
    const auto* x = std::get_if<std::int64_t>(&a);
    const auto* y = std::get_if<std::int64_t>(&b);
    if (x != nullptr && y != nullptr) return static_cast<std::size_t>(*x > *y ? *x - *y : *y - *x);
    const auto values = index_.find(field);
    if (x != nullptr || y != nullptr || values == index_.end()) return 1;
    const auto i = values->second.find(std::get<std::string>(a));
    const auto j = values->second.find(std::get<std::string>(b));
    if (i == values->second.end() || j == values->second.end()) return 1;
    return i->second > j->second ? i->second - j->second : j->second - i->second;
  }
  std::map<std::string, std::map<std::string, std::size_t>> index_;
};

struct Explained {
  std::vector<State> states;     // every state found that reads as the log's cells
  std::optional<State> closest;  // where there is none: a state that reads closest
  bool complete = true;          // no limit cut the search short
  int depth = -1;                // model actions to the first of them
  std::size_t visited = 0;
};

Explained explain(const protocols::MultiKueue& mk, const Distance& distance,
                  const std::vector<State>& from, const model::Cells& cells,
                  const SearchLimits& limits) {
  Explained out;
  std::unordered_set<std::uint64_t> seen;
  // buckets[m]: states m away from the log's cells, in the order found (so by depth).
  std::vector<std::deque<std::pair<State, int>>> buckets;
  auto push = [&](State s, int depth) {
    if (!seen.insert(mk.fingerprint(s)).second) return;
    const std::size_t m = distance(mk, s, cells);
    if (buckets.size() <= m) buckets.resize(m + 1);
    buckets[m].emplace_back(std::move(s), depth);
  };
  for (const auto& s : from) push(s, 0);
  std::vector<protocols::MultiKueue::Action> actions;
  std::size_t closest_m = 0;
  for (std::size_t m = 0; m < buckets.size();) {
    if (buckets[m].empty()) {
      ++m;
      continue;
    }
    auto [s, depth] = std::move(buckets[m].front());
    buckets[m].pop_front();
    if (m != 0 && (!out.closest || m < closest_m)) {
      out.closest = s;
      closest_m = m;
    }
    if (m == 0) {
      if (out.depth < 0) out.depth = depth;
      out.states.push_back(s);
    }
    actions.clear();
    mk.actions(s, actions);
    if (actions.empty()) continue;
    if (limits.max_depth > 0 && depth >= limits.max_depth) {
      out.complete = false;
      continue;
    }
    if (seen.size() >= limits.max_states) {
      out.complete = false;
      for (auto& [match, d] : buckets[0]) out.states.push_back(std::move(match));
      break;
    }
    for (const auto& a : actions) push(mk.next(s, a), depth + 1);
    m = 0;  // a successor may read closer to the log
  }
  out.visited = seen.size();
  return out;
}

}  // namespace

Validation validate_log(const protocols::MultiKueue& mk, const EngineLog& log,
                        SearchLimits limits) {
  Validation v;
  const Distance distance;
  std::vector<State> current;
  for (const auto& s : mk.init_states())
    if (!log.steps.empty() && distance(mk, s, log.steps.front().cells) == 0) current.push_back(s);
  for (std::size_t i = 0; i < log.steps.size(); ++i) {
    if (i > 0) {
      Explained e = explain(mk, distance, current, log.steps[i].cells, limits);
      v.states += e.visited;
      v.complete = v.complete && e.complete;
      if (e.depth > 0) v.model_actions += static_cast<std::size_t>(e.depth);
      current = std::move(e.states);
      if (current.empty() && e.closest)
        for (const auto& c : mk.cells(*e.closest))
          if (const model::CellValue* logged = log.steps[i].cells.find(c.field, c.entity);
              logged != nullptr && *logged != c.value)
            v.closest.push_back(fmt::format("{}: the engine's {}, the model's {}",
                                            model::key_text(c.field, c.entity),
                                            model::to_string(*logged), model::to_string(c.value)));
    }
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
        "Allowed: the model explains all {} steps of the engine's run ({} model actions, {} "
        "states searched).\n",
        v.matched, v.model_actions, v.states);
  std::string out =
      v.complete
          ? fmt::format(
                "Not allowed: the model explains steps 0 to {}, but not step {} ({}): no model "
                "state within reach reads\n",
                v.matched - 1, v.step, v.event)
          : fmt::format(
                "Incomplete: the model explains steps 0 to {}; step {} ({}) was not explained "
                "within the search's limits (--max-states, --lookahead), so it is neither "
                "allowed nor ruled out. No model state searched reads\n",
                v.matched - 1, v.step, v.event);
  for (const auto& c : v.unexplained) out += "  " + c + "\n";
  if (!v.closest.empty()) {
    out += fmt::format("The model state searched that reads closest differs in {} cell{}:\n",
                       v.closest.size(), v.closest.size() == 1 ? "" : "s");
    for (const auto& c : v.closest) out += "  " + c + "\n";
  }
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
