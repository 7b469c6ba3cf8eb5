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
#include "model/cell_slots.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cx {

namespace {

using State = protocols::MultiKueue::State;

// How many steps of a field's lifecycle lie between two of its values: the enums list their
// phases in order (None before Pending before QuotaReserved); numbers are that far apart.
class Lifecycles {
 public:
  Lifecycles() {
    for (const auto& f : protocols::MultiKueue::cell_fields())
      for (std::size_t i = 0; i < f.values.size(); ++i) index_[f.field][f.values[i]] = i;
  }
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

 private:
  std::map<std::string, std::map<std::string, std::size_t>> index_;
};

// How far a state reads from one log step's cells: for each cell the log holds, the lifecycle
// steps between the two values. Counting steps, not cells, makes creating a copy (None to
// Pending, on the way to QuotaReserved) progress, so the search creates copies in the order it
// finds them, as the engine does, instead of first settling the copies whose logged value is
// Pending. It reads the logged cells' raw values (model/cell_slots.hpp) and remembers each
// cell's distance per raw value: the search asks this of every state it finds.
class Distance {
 public:
  Distance(const protocols::MultiKueue& mk, const Lifecycles& lifecycles, const model::Cells& cells)
      : layout_(mk.layout()), lifecycles_(lifecycles) {
    for (auto& slot : model::cell_slots(layout_))
      if (const model::CellValue* logged =
              cells.find(layout_.fields[slot.field].name, slot.entity)) {
        logged_.push_back(*logged);
        slots_.push_back(std::move(slot));
      }
    memo_.resize(slots_.size());
  }
  std::size_t operator()(const State& s) const {
    model::raw_values(s, slots_, raw_);
    std::size_t n = 0;
    for (std::size_t i = 0; i < slots_.size(); ++i) n += apart(i, raw_[i]);
    return n;
  }

 private:
  std::size_t apart(std::size_t i, std::int64_t raw) const {
    for (const auto& [v, d] : memo_[i])
      if (v == raw) return d;
    const std::size_t d = lifecycles_.apart(layout_.fields[slots_[i].field].name, logged_[i],
                                            model::slot_value(layout_, slots_[i], raw));
    memo_[i].emplace_back(raw, d);
    return d;
  }

  const model::Layout& layout_;
  const Lifecycles& lifecycles_;
  std::vector<model::CellSlot> slots_;  // the cells the log holds
  std::vector<model::CellValue> logged_;
  mutable std::vector<std::int64_t> raw_;
  mutable std::vector<std::vector<std::pair<std::int64_t, std::size_t>>> memo_;
};

struct Explained {
  std::vector<State> states;     // every state found that reads as the log's cells
  std::optional<State> closest;  // where there is none: a state that reads closest
  bool complete = true;          // no limit cut the search short
  int depth = -1;                // model actions to the first of them
  std::size_t visited = 0;
};

Explained explain(const protocols::MultiKueue& mk, const Distance& distance,
                  const std::vector<State>& from, const SearchLimits& limits) {
  Explained out;
  // Seen states by their packed words, compared whole: no fingerprint collision can hide a state
  // (a wrong "Not allowed"), and packing costs less than fingerprinting every value.
  struct WordsHash {
    std::size_t operator()(const std::vector<std::uint64_t>& words) const {
      model::KeyHasher h;
      for (auto w : words) h.word(w);
      return h.done();
    }
  };
  std::unordered_set<std::vector<std::uint64_t>, WordsHash> seen;
  std::vector<std::uint64_t> words(mk.packing().words());
  // buckets[m]: states m away from the log's cells, in the order found (so by depth).
  std::vector<std::deque<std::pair<State, int>>> buckets;
  auto push = [&](State s, int depth) {
    mk.packing().pack(s, words.data());
    if (!seen.insert(words).second) return;
    const std::size_t m = distance(s);
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
  const Lifecycles lifecycles;
  std::vector<State> current;
  if (!log.steps.empty()) {
    const Distance first(mk, lifecycles, log.steps.front().cells);
    for (const auto& s : mk.init_states())
      if (first(s) == 0) current.push_back(s);
  }
  for (std::size_t i = 0; i < log.steps.size(); ++i) {
    if (i > 0) {
      Explained e = explain(mk, Distance(mk, lifecycles, log.steps[i].cells), current, limits);
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
