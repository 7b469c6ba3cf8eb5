#include "counterexamples/multikueue/itf_read.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "counterexamples/itf_picks.hpp"
#include "counterexamples/token.hpp"
#include "model/assert.hpp"
#include "model/diagnostics.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

namespace {

int line_at(const std::string& text, std::size_t offset) {
  return 1 +
         static_cast<int>(std::count(
             text.begin(), text.begin() + static_cast<long>(std::min(offset, text.size())), '\n'));
}

// The offset of state i's "#meta": {"index": i} in `text`, searching from `from`.
std::size_t state_offset(const std::string& text, std::size_t i, std::size_t from) {
  const std::string needle = fmt::format("\"index\": {}", i);
  for (std::size_t at = text.find(needle, from); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    const char next = at + needle.size() < text.size() ? text[at + needle.size()] : '\n';
    if (next < '0' || next > '9') return at;
  }
  return std::string::npos;
}

// The line of each state, in one pass: kmc writes the states in order.
std::vector<int> state_lines(const std::string& text, std::size_t states) {
  std::vector<int> lines;
  std::size_t at = text.find("\"states\"");
  at = at == std::string::npos ? 0 : at;
  int line = line_at(text, at);
  for (std::size_t i = 0; i < states; ++i) {
    const std::size_t next = state_offset(text, i, at);
    if (next == std::string::npos) break;
    line += static_cast<int>(std::count(text.begin() + static_cast<long>(at),
                                        text.begin() + static_cast<long>(next), '\n'));
    lines.push_back(line);
    at = next;
  }
  return lines;
}

// The line of state i: where its "#meta": {"index": i} is written; 0 when unknown.
int line_of_state(const ItfDocument& d, std::size_t i) {
  if (i < d.state_lines.size()) return d.state_lines[i];
  const std::size_t states = d.text.find("\"states\"");
  const std::size_t at = state_offset(d.text, i, states == std::string::npos ? 0 : states);
  return at == std::string::npos ? 0 : line_at(d.text, at);
}

[[noreturn]] void fail(const ItfDocument& d, int line, const std::string& field,
                       const std::string& message) {
  throw model::InputError({d.file, line}, field, message);
}

std::string string_at(const ItfDocument& d, const nlohmann::json& obj, const std::string& key,
                      const std::string& field, int line) {
  if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_string())
    fail(d, line, field, "expected a string");
  return obj.at(key).get<std::string>();
}

// The cells every tool compares must be there for every job and worker of
// the scenario: a trace that leaves one out cannot be replayed.
void require_job_cells(const ItfDocument& d, const model::Cells& cells, std::size_t i, int line,
                       const protocols::MkParams& p) {
  auto need = [&](const char* field, const std::vector<std::string>& entity) {
    if (cells.find(field, entity) == nullptr)
      fail(d, line, fmt::format("states[{}].{}", i, field),
           fmt::format("no value for {}", model::key_text(field, entity)));
  };
  for (int j = 0; j < p.J(); ++j) {
    need("phase", {p.jobs[j]});
    need("cluster", {p.jobs[j]});
    for (int w = 0; w < p.W(); ++w)
      for (const char* field : {"nominated", "remote", "prov", "attempts"})
        need(field, {p.jobs[j], p.workers[w]});
  }
}

// One entry of a field's {"#map": ...}: the key's names, checked against the field's axes.
std::vector<std::string> read_key(const ItfDocument& d, const nlohmann::json& key,
                                  const model::FieldSchema& f, const std::string& at, int line) {
  const std::string axes = fmt::format("{}", fmt::join(f.axes, ", "));
  if (f.axes.size() == 1) {
    if (!key.is_string()) fail(d, line, at, fmt::format("expected a key naming a {}", axes));
    return {key.get<std::string>()};
  }
  const bool tuple =
      key.is_object() && key.size() == 1 && key.contains("#tup") && key.at("#tup").is_array();
  if (!tuple || key.at("#tup").size() != f.axes.size())
    fail(d, line, at, fmt::format("expected a key {{\"#tup\": [{}]}}", axes));
  std::vector<std::string> names;
  for (const auto& n : key.at("#tup")) {
    if (!n.is_string())
      fail(d, line, at, fmt::format("expected a key {{\"#tup\": [{}]}} of names", axes));
    names.push_back(n.get<std::string>());
  }
  return names;
}

model::CellValue read_value(const ItfDocument& d, const nlohmann::json& v,
                            const model::FieldSchema& f, const std::string& at, int line) {
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
    fail(d, line, at, "expected an integer (a JSON number or {\"#bigint\": \"...\"})");
  }
  if (!v.is_string())
    fail(d, line, at,
         f.kind == model::CellKind::Enum ? "expected the name of a phase"
                                         : "expected a name (\"\" for none)");
  const std::string name = v.get<std::string>();
  if (f.kind == model::CellKind::Enum &&
      std::find(f.values.begin(), f.values.end(), name) == f.values.end())
    fail(d, line, at, fmt::format("'{}' is not one of {}", name, fmt::join(f.values, ", ")));
  return name;
}

}  // namespace

model::Cells read_cells(const ItfDocument& d, const nlohmann::json& vars, const std::string& where,
                        int line, const std::vector<model::FieldSchema>& fields) {
  model::Cells out;
  for (const auto& f : fields) {
    const std::string at = fmt::format("{}.{}", where, f.field);
    if (!vars.is_object() || !vars.contains(f.field)) {
      if (f.optional) continue;
      fail(d, line, at, "missing: a kmc trace writes this field in every state");
    }
    const auto& var = vars.at(f.field);
    if (!var.is_object() || var.size() != 1 || !var.contains("#map") || !var.at("#map").is_array())
      fail(d, line, at, "expected {\"#map\": [[key, value], ...]}");
    for (const auto& entry : var.at("#map")) {
      if (!entry.is_array() || entry.size() != 2)
        fail(d, line, at, "expected each #map entry as [key, value]");
      auto entity = read_key(d, entry[0], f, at, line);
      auto value = read_value(d, entry[1], f, at, line);
      if (out.find(f.field, entity) != nullptr)
        fail(d, line, at, fmt::format("{} appears twice", model::key_text(f.field, entity)));
      out.add({f.field, std::move(entity), std::move(value)});
    }
  }
  return out;
}

model::Cells read_cells(const ItfDocument& d, std::size_t i,
                        const std::vector<model::FieldSchema>& fields) {
  return read_cells(d, d.doc.at("states").at(i), fmt::format("states[{}]", i), line_of_state(d, i),
                    fields);
}

ItfRawStep read_raw_step(const ItfDocument& d, std::size_t i,
                         const std::vector<model::FieldSchema>& fields) {
  const auto& st = d.doc.at("states").at(i);
  const int line = line_of_state(d, i);
  const std::string at = fmt::format("states[{}]", i);
  if (!st.is_object()) fail(d, line, at, "expected an object of state variables");
  ItfRawStep s;
  s.action = string_at(d, st, "mbt::actionTaken", at + ".mbt::actionTaken", line);
  if (st.contains("mbt::nondetPicks")) {
    const auto& picks = st.at("mbt::nondetPicks");
    if (!picks.is_object())
      fail(d, line, at + ".mbt::nondetPicks",
           "expected an object such as {\"job\": ..., \"cluster\": ...}");
    for (const auto& [k, v] : picks.items())
      s.picks[k] = string_at(d, picks, k, at + ".mbt::nondetPicks." + k, line);
  }
  s.cells = read_cells(d, i, fields);
  return s;
}

model::ActionRef check_picks(const ItfDocument& d, std::size_t i, const ItfRawStep& s,
                             const model::Layout& layout) {
  const auto resolved = resolve_picks(layout, s.action, s.picks);
  if (const auto* problem = std::get_if<PickProblem>(&resolved))
    fail(d, line_of_state(d, i), fmt::format("states[{}].{}", i, problem->field), problem->message);
  return std::get<model::ActionRef>(resolved);
}

namespace {

// What a replay needs of a scenario's instance: its layout (the action table
// and the entities picks may name) and which actions it has at all.
struct Actions {
  model::Layout layout;
  std::set<std::pair<int, std::vector<int>>> candidates;  // (kind, argument indices)
};

Actions actions_of(const protocols::MkParams& p) {
  Actions a{protocols::MkSpec::layout(p), {}};
  for (const auto& c : protocols::MkSpec::candidates(p)) {
    const model::ActionRef ref = protocols::MkSpec::ref(p, c);
    a.candidates.emplace(ref.kind, ref.args);
  }
  return a;
}

ItfStep read_step(const ItfDocument& d, std::size_t i, const protocols::MkParams& p,
                  const Actions& actions) {
  const int line = line_of_state(d, i);
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
      fail(d, line, at + ".mbt::actionTaken",
           fmt::format("{}({}) is not an action of this scenario (its dispatcher, options and "
                       "queues leave it out)",
                       raw.action, fmt::join(named, ", ")));
  }
  s.cells = std::move(raw.cells);
  require_job_cells(d, s.cells, i, line, p);
  return s;
}

}  // namespace

ItfDocument parse_itf(const std::string& file, const std::string& text) {
  ItfDocument d{file, text, {}, {}};
  try {
    d.doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    fail(d, line_at(text, e.byte), "", fmt::format("not JSON: {}", e.what()));
  }
  if (d.doc.is_object() && d.doc.contains("states") && d.doc.at("states").is_array())
    d.state_lines = state_lines(text, d.doc.at("states").size());
  return d;
}

ItfDocument load_itf(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw model::InputError({file, 0}, "", "cannot read the trace file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_itf(file, ss.str());
}

ItfTrace read_itf_meta(const ItfDocument& d) {
  if (!d.doc.is_object() || !d.doc.contains("#meta") || !d.doc.contains("states") ||
      !d.doc.at("states").is_array())
    fail(d, 1, "", "not an ITF trace: expected \"#meta\" and a \"states\" array");
  const auto& meta = d.doc.at("#meta");
  ItfTrace t;
  t.property = string_at(d, meta, "property", "#meta.property", 0);
  if (meta.contains("source") && meta.at("source").is_string())
    t.source = meta.at("source").get<std::string>();
  if (meta.contains("replay") && meta.at("replay").is_string()) {
    t.token = meta.at("replay").get<std::string>();
    std::string why;
    if (auto tok = parse_token(t.token, why)) {
      t.subject = std::max(0, tok->subject);
    } else {
      fail(d, 0, "#meta.replay", why);
    }
  }
  if (meta.contains("levers")) {
    if (!meta.at("levers").is_object())
      fail(d, 0, "#meta.levers", "expected an object of lever settings");
    for (const auto& [k, v] : meta.at("levers").items())
      t.levers[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  if (d.doc.contains("loop")) {
    if (!d.doc.at("loop").is_number_unsigned()) fail(d, 0, "loop", "expected a state index");
    t.loop = d.doc.at("loop").get<std::size_t>();
    if (*t.loop >= d.doc.at("states").size()) fail(d, 0, "loop", "points past the last state");
  }
  return t;
}

ItfTrace read_itf(const ItfDocument& d, const protocols::MkParams& p) {
  ItfTrace t = read_itf_meta(d);
  const auto& states = d.doc.at("states");
  if (states.empty()) fail(d, 0, "states", "the trace has no states");
  const Actions actions = actions_of(p);
  for (std::size_t i = 0; i < states.size(); ++i) t.steps.push_back(read_step(d, i, p, actions));
  if (t.subject >= p.J())
    fail(d, 0, "#meta.replay", "the token's subject is not a job of this scenario");
  return t;
}

}  // namespace kmc::cx
