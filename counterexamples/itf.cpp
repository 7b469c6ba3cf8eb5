// The ITF writer. A kmc trace is
//
//   {"#meta": {format, format-description, source, description, property,
//              detail, replay (the token), and levers for a kmc matrix cell},
//    "vars": ["mbt::actionTaken", "mbt::nondetPicks", FIELD...],
//    "states": [{"#meta": {"index": i}, "mbt::actionTaken": "ReserveQuota",
//                "mbt::nondetPicks": {"job": ..., "cluster": ..., "flavor": ...},
//                FIELD: {"#map": [[KEY, VALUE], ...]}, ...}, ...],
//    "loop": i}                     (lassos only: the state the last one returns to)
//
// with one variable per field of the protocol's state (for MultiKueue:
// phase, cluster, mgr_flavor, nominated, remote, remote_flavor, prov,
// attempts, usage, capacity, snapshot and staleness with a capacity-snapshot
// dispatcher, budget). A KEY is the entity's name for a field over one axis
// ("team-ml/llm-finetune") and a {"#tup": [...]} of names over several
// (["manager/gpu-cq", "h100", "nvidia.com/gpu"]). A VALUE is an integer (a
// JSON number, or {"#bigint": "..."} beyond 2^53; quantities in Kueue's
// integer units: cpu in millicores, memory in bytes), a name from the field's
// enum ("QuotaReserved"), or an entity name, "" for none.
#include "counterexamples/itf.hpp"

#include <algorithm>
#include <iterator>

namespace kmc::cx {

namespace {

nlohmann::json itf_value(const model::CellValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  const std::int64_t i = std::get<std::int64_t>(v);
  constexpr std::int64_t safe =
      (std::int64_t{1} << 53) - 1;  // what every JSON reader holds exactly
  if (i > safe || i < -safe) return {{"#bigint", std::to_string(i)}};
  return i;
}

nlohmann::json itf_key(const std::vector<std::string>& entity) {
  if (entity.size() == 1) return entity.front();
  return {{"#tup", entity}};
}

// JSON on one line, with the spacing of dump(2): `"index": 0`, `[a, b]`.
std::string flat(const nlohmann::json& v) {
  if (!v.is_structured()) return v.dump();
  std::string out = v.is_object() ? "{" : "[";
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    out += first ? "" : ", ";
    first = false;
    if (v.is_object()) out += nlohmann::json(it.key()).dump() + ": ";
    out += flat(*it);
  }
  return out + (v.is_object() ? "}" : "]");
}

void print(const nlohmann::json& v, std::size_t indent, std::string& out) {
  constexpr std::size_t width = 100;
  std::string one = flat(v);
  if (!v.is_structured() || v.empty() || indent + one.size() <= width) {
    out += one;
    return;
  }
  out += v.is_object() ? "{\n" : "[\n";
  for (auto it = v.begin(); it != v.end(); ++it) {
    out += std::string(indent + 2, ' ');
    if (v.is_object()) out += nlohmann::json(it.key()).dump() + ": ";
    print(*it, indent + 2, out);
    out += std::next(it) == v.end() ? "\n" : ",\n";
  }
  out += std::string(indent, ' ') + (v.is_object() ? "}" : "]");
}

}  // namespace

std::string itf_text(const nlohmann::json& doc) {
  std::string out;
  print(doc, 0, out);
  return out;
}

nlohmann::json itf_variables(const std::vector<model::Cell>& cells) {
  nlohmann::json vars = nlohmann::json::object();
  for (const auto& c : cells) {
    if (!vars.contains(c.field)) vars[c.field] = {{"#map", nlohmann::json::array()}};
    vars[c.field]["#map"].push_back(nlohmann::json::array({itf_key(c.entity), itf_value(c.value)}));
  }
  return vars;
}

nlohmann::json to_itf(const Trace& t, const std::string& source, const std::string& replay_token) {
  nlohmann::json doc;
  doc["#meta"] = {{"format", "ITF"},
                  {"format-description", "https://apalache-mc.org/docs/adr/015adr-trace.html"},
                  {"source", source},
                  {"description", "kmc counterexample: " + t.property + " is violated"},
                  {"property", t.property},
                  {"detail", t.detail},
                  {"replay", replay_token}};
  nlohmann::json vars = nlohmann::json::array({"mbt::actionTaken", "mbt::nondetPicks"});
  if (!t.steps.empty())
    for (const auto& c : t.steps.front().cells)
      if (std::find(vars.begin(), vars.end(), c.field) == vars.end()) vars.push_back(c.field);
  doc["vars"] = vars;
  nlohmann::json states = nlohmann::json::array();
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const Step& s = t.steps[i];
    nlohmann::json st = itf_variables(s.cells);
    st["#meta"] = {{"index", i}};
    st["mbt::actionTaken"] = s.kind;
    nlohmann::json picks = nlohmann::json::object();
    for (const auto& [k, v] : s.picks) picks[k] = v;
    st["mbt::nondetPicks"] = picks;
    states.push_back(st);
  }
  doc["states"] = states;
  if (t.loop) doc["loop"] = *t.loop;
  return doc;
}

}  // namespace kmc::cx
