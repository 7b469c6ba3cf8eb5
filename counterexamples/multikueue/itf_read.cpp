#include "counterexamples/multikueue/itf_read.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "counterexamples/itf_cells.hpp"
#include "counterexamples/itf_picks.hpp"
#include "counterexamples/token.hpp"
#include "model/assert.hpp"
#include "model/diagnostics.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

namespace {

std::string string_at(const ItfDocument& d, const nlohmann::json& obj, const std::string& key,
                      const std::string& field) {
  if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_string())
    itf_error(d, field, "expected a string");
  return obj.at(key).get<std::string>();
}

// One entry of a field's {"#map": ...}: the key's names, checked against the field's axes.
std::vector<std::string> read_key(const ItfDocument& d, const nlohmann::json& key,
                                  const model::FieldSchema& f, const std::string& at) {
  const std::string axes = fmt::format("{}", fmt::join(f.axes, ", "));
  if (f.axes.size() == 1) {
    if (!key.is_string()) itf_error(d, at, fmt::format("expected a key naming a {}", axes));
    return {key.get<std::string>()};
  }
  const bool tuple =
      key.is_object() && key.size() == 1 && key.contains("#tup") && key.at("#tup").is_array();
  if (!tuple || key.at("#tup").size() != f.axes.size())
    itf_error(d, at, fmt::format("expected a key {{\"#tup\": [{}]}}", axes));
  std::vector<std::string> names;
  for (const auto& n : key.at("#tup")) {
    if (!n.is_string())
      itf_error(d, at, fmt::format("expected a key {{\"#tup\": [{}]}} of names", axes));
    names.push_back(n.get<std::string>());
  }
  return names;
}

model::CellValue read_value(const ItfDocument& d, const nlohmann::json& v,
                            const model::FieldSchema& f, const std::string& at) {
  if (f.kind == model::CellKind::Int) {
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_object() && v.size() == 1 && v.contains("#bigint") && v.at("#bigint").is_string()) {
      const std::string text = v.at("#bigint").get<std::string>();
      std::size_t used = 0;
      try {
        const std::int64_t i = std::stoll(text, &used);
        if (used == text.size()) return i;
      } catch (const std::exception&) {
      }
    }
    itf_error(d, at, "expected an integer (a JSON number or {\"#bigint\": \"...\"})");
  }
  if (!v.is_string())
    itf_error(d, at,
              f.kind == model::CellKind::Enum ? "expected the name of a phase"
                                              : "expected a name (\"\" for none)");
  const std::string name = v.get<std::string>();
  if (f.kind == model::CellKind::Enum &&
      std::find(f.values.begin(), f.values.end(), name) == f.values.end())
    itf_error(d, at, fmt::format("'{}' is not one of {}", name, fmt::join(f.values, ", ")));
  return name;
}

}  // namespace

model::Cells read_cells(const ItfDocument& d, const nlohmann::json& vars, const std::string& where,
                        const std::vector<model::FieldSchema>& fields) {
  model::Cells out;
  for (const auto& f : fields) {
    const std::string at = fmt::format("{}.{}", where, f.field);
    if (!vars.is_object() || !vars.contains(f.field)) {
      if (f.optional) continue;
      itf_error(d, at, "missing: a kmc trace writes this field in every state");
    }
    const auto& var = vars.at(f.field);
    if (!var.is_object() || var.size() != 1 || !var.contains("#map") || !var.at("#map").is_array())
      itf_error(d, at, "expected {\"#map\": [[key, value], ...]}");
    for (const auto& entry : var.at("#map")) {
      if (!entry.is_array() || entry.size() != 2)
        itf_error(d, at, "expected each #map entry as [key, value]");
      auto entity = read_key(d, entry[0], f, at);
      auto value = read_value(d, entry[1], f, at);
      if (out.find(f.field, entity) != nullptr)
        itf_error(d, at, fmt::format("{} appears twice", model::key_text(f.field, entity)));
      out.add({f.field, std::move(entity), std::move(value)});
    }
  }
  return out;
}

model::Cells read_cells(const ItfDocument& d, std::size_t i,
                        const std::vector<model::FieldSchema>& fields) {
  return read_cells(d, d.doc.at("states").at(i), fmt::format("states[{}]", i), fields);
}

ItfRawStep read_raw_step(const ItfDocument& d, std::size_t i,
                         const std::vector<model::FieldSchema>& fields) {
  const auto& st = d.doc.at("states").at(i);
  const std::string at = fmt::format("states[{}]", i);
  if (!st.is_object()) itf_error(d, at, "expected an object of state variables");
  ItfRawStep s;
  s.action = string_at(d, st, "mbt::actionTaken", at + ".mbt::actionTaken");
  if (st.contains("mbt::nondetPicks")) {
    const auto& picks = st.at("mbt::nondetPicks");
    if (!picks.is_object())
      itf_error(d, at + ".mbt::nondetPicks",
                "expected an object such as {\"job\": ..., \"cluster\": ...}");
    for (const auto& [k, v] : picks.items())
      s.picks[k] = string_at(d, picks, k, at + ".mbt::nondetPicks." + k);
  }
  s.cells = read_cells(d, i, fields);
  return s;
}

model::ActionRef check_picks(const ItfDocument& d, std::size_t i, const ItfRawStep& s,
                             const model::Layout& layout) {
  const auto resolved = resolve_picks(layout, s.action, s.picks);
  if (const auto* problem = std::get_if<PickProblem>(&resolved))
    itf_error(d, fmt::format("states[{}].{}", i, problem->field), problem->message);
  return std::get<model::ActionRef>(resolved);
}

namespace {

// What a replay needs of a scenario's instance: its layout (the action table
// and the entities picks may name) and which actions it has at all.
struct Actions {
  model::Layout layout;
  std::set<std::pair<int, std::vector<int>>> candidates;  // (kind, argument indices)
  CellChecker cells;
};

Actions actions_of(const protocols::MkParams& p) {
  model::Layout layout = protocols::MkSpec::layout(p);
  CellChecker cells(layout);
  Actions a{std::move(layout), {}, std::move(cells)};
  for (const auto& c : protocols::MkSpec::candidates(p)) {
    const model::ActionRef ref = protocols::MkSpec::ref(p, c);
    a.candidates.emplace(ref.kind, ref.args);
  }
  return a;
}

ItfStep read_step(const ItfDocument& d, std::size_t i, const Actions& actions) {
  const std::string at = fmt::format("states[{}]", i);
  ItfRawStep raw = read_raw_step(d, i, protocols::MultiKueue::cell_fields());
  ItfStep s;
  s.index = i;
  s.init = i == 0;
  if (!s.init) {
    const model::ActionRef ref = check_picks(d, i, raw, actions.layout);
    // The layout's action table is in ActionKind's order (multikueue_spec.cpp asserts it).
    s.kind = static_cast<protocols::ActionKind>(ref.kind);
    KMC_ASSERT(protocols::MultiKueue::action_kind(raw.action) == s.kind);
    const auto& args = actions.layout.actions[ref.kind].args;
    std::vector<std::string> named;
    for (std::size_t k = 0; k < args.size(); ++k) {
      if (args[k].name == "job") s.job = ref.args[k];
      if (args[k].name == "cluster") s.worker = ref.args[k];
      if (args[k].name == "flavor") s.flavor = raw.picks.at("flavor");
      named.push_back(raw.picks.at(args[k].name));
    }
    if (!actions.candidates.contains({ref.kind, ref.args}))
      itf_error(d, at + ".mbt::actionTaken",
                fmt::format("{}({}) is not an action of this scenario (its dispatcher, options and "
                            "queues leave it out)",
                            raw.action, fmt::join(named, ", ")));
  }
  if (const auto problem = actions.cells.check(raw.cells))
    itf_error(d, fmt::format("{}.{}", at, problem->field), problem->message);
  s.cells = std::move(raw.cells);
  return s;
}

}  // namespace

ItfTrace read_itf_meta(const ItfDocument& d) {
  if (!d.doc.is_object() || !d.doc.contains("#meta") || !d.doc.contains("states") ||
      !d.doc.at("states").is_array())
    itf_error(d, "", "not an ITF trace: expected \"#meta\" and a \"states\" array");
  const auto& meta = d.doc.at("#meta");
  ItfTrace t;
  t.property = string_at(d, meta, "property", "#meta.property");
  // Both optional for a MultiKueue trace (--scenario names the folder), but never of another type.
  if (meta.contains("source")) t.source = string_at(d, meta, "source", "#meta.source");
  if (meta.contains("replay")) {
    t.token = string_at(d, meta, "replay", "#meta.replay");
    std::string why;
    if (auto tok = parse_token(t.token, why)) {
      t.subject = std::max(0, tok->subject);
    } else {
      itf_error(d, "#meta.replay", why);
    }
  }
  if (meta.contains("levers")) {
    if (!meta.at("levers").is_object())
      itf_error(d, "#meta.levers", "expected an object of lever settings");
    for (const auto& [k, v] : meta.at("levers").items())
      t.levers[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  if (d.doc.contains("loop")) {
    if (!d.doc.at("loop").is_number_unsigned()) itf_error(d, "loop", "expected a state index");
    t.loop = d.doc.at("loop").get<std::size_t>();
    if (*t.loop >= d.doc.at("states").size()) itf_error(d, "loop", "points past the last state");
  }
  return t;
}

ItfTrace read_itf(const ItfDocument& d, const protocols::MkParams& p) {
  ItfTrace t = read_itf_meta(d);
  const auto& states = d.doc.at("states");
  if (states.empty()) itf_error(d, "states", "the trace has no states");
  const Actions actions = actions_of(p);
  for (std::size_t i = 0; i < states.size(); ++i) t.steps.push_back(read_step(d, i, actions));
  if (t.subject >= p.J())
    itf_error(d, "#meta.replay", "the token's subject is not a job of this scenario");
  return t;
}

}  // namespace kmc::cx
