#include "cli/token_trace.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "counterexamples/itf.hpp"
#include "counterexamples/token.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kEdited =
    "(the trace was edited, or made by another version of kmc or of the scenario)";

// A JSON value for a message: on one line, cut short.
std::string shown(const nlohmann::json& v) {
  std::string s = v.dump();
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

// The scenario folder of a trace: `given`, else #meta.source as written or
// beside the trace (a corpus entry). Empty when it has no kmc.yaml there.
std::string scenario_of(const cx::ItfDocument& d, const std::string& named,
                        const std::string& given) {
  std::error_code ec;
  std::string dir = given.empty() ? named : given;
  if (given.empty() && !fs::is_directory(dir, ec)) {
    const auto beside = fs::path(d.file).parent_path() / dir;
    if (fs::is_directory(beside, ec)) dir = beside.string();
  }
  return fs::is_regular_file(fs::path(dir) / "kmc.yaml", ec) ? dir : "";
}

// One state field of the file against the token's: a {"#map": ...} names
// the first entry that differs.
void compare_field(const cx::ItfDocument& d, const std::string& at, const nlohmann::json& got,
                   const nlohmann::json& want) {
  if (got == want) return;
  const bool maps = got.is_object() && want.is_object() && got.contains("#map") &&
                    want.contains("#map") && got["#map"].is_array() && want["#map"].is_array() &&
                    got["#map"].size() == want["#map"].size();
  if (maps)
    for (std::size_t j = 0; j < want["#map"].size(); ++j) {
      const auto &g = got["#map"][j], &w = want["#map"][j];
      if (g == w) continue;
      if (g.is_array() && g.size() == 2 && w.size() == 2 && g[0] == w[0])
        cx::itf_error(d, at,
                      fmt::format("{} is {} here; the token gives {} {}", shown(w[0]), shown(g[1]),
                                  shown(w[1]), kEdited));
      cx::itf_error(
          d, at,
          fmt::format("entry {} is {}; the token gives {} {}", j, shown(g), shown(w), kEdited));
    }
  cx::itf_error(d, at,
                fmt::format("is {} here; the token gives {} {}", shown(got), shown(want), kEdited));
}

// The file's states, field by field, against the token's.
void compare_states(const cx::ItfDocument& d, const nlohmann::json& want) {
  if (!d.doc.contains("states") || !d.doc["states"].is_array())
    cx::itf_error(d, "states", "expected an array of states");
  const auto& got = d.doc["states"];
  if (got.size() != want.size())
    cx::itf_error(d, "states",
                  fmt::format("the trace has {} states; its token gives {} {}", got.size(),
                              want.size(), kEdited));
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::string at = fmt::format("states[{}]", i);
    if (!got[i].is_object()) cx::itf_error(d, at, "expected an object of state variables");
    std::set<std::string> keys;
    for (const auto& [k, v] : got[i].items()) keys.insert(k);
    for (const auto& [k, v] : want[i].items()) keys.insert(k);
    for (const auto& k : keys) {
      const std::string field = at + "." + k;
      if (!want[i].contains(k))
        cx::itf_error(d, field,
                      fmt::format("not a variable of this protocol's traces {}", kEdited));
      if (!got[i].contains(k))
        cx::itf_error(d, field,
                      fmt::format("missing; the token gives {} {}", shown(want[i][k]), kEdited));
      compare_field(d, field, got[i][k], want[i][k]);
    }
  }
}

// The token re-checked in `t.scenario`. An error about the command line (the
// token, --replay-engine) is about the file's #meta here.
cx::CheckOutcome recheck(const cx::ItfDocument& d, const TokenTrace& t, bool replay_engine) {
  cx::CheckRequest req;
  req.replay_token = t.token;
  req.replay_engine = replay_engine;
  try {
    return t.protocol->check(t.scenario, req);
  } catch (const model::InputError& e) {
    if (!e.diagnostic.pos.file.empty()) throw;
    const bool engine = e.diagnostic.field == "--replay-engine";
    cx::itf_error(d, engine ? "#meta.source" : "#meta.replay",
                  engine ? fmt::format("{} ({} is a {} scenario)", e.diagnostic.message, t.source,
                                       t.protocol->name)
                         : e.diagnostic.message);
  }
}

}  // namespace

std::optional<TokenTrace> read_token_trace(const cx::ItfDocument& d, bool replay_engine,
                                           const std::string& scenario) {
  const auto& doc = d.doc;
  if (!doc.is_object() || !doc.contains("#meta") || !doc["#meta"].is_object()) return std::nullopt;
  const auto& meta = doc["#meta"];
  if (!meta.contains("source") || !meta["source"].is_string()) return std::nullopt;
  TokenTrace t;
  t.named = meta["source"].get<std::string>();
  t.source = scenario_of(d, t.named, scenario);
  if (t.source.empty()) return std::nullopt;
  t.scenario = load_checked_scenario(t.source);
  t.protocol = &protocol_of(t.scenario);
  if (t.protocol->name == "multikueue") return std::nullopt;
  // Such a trace is its token's: the token is what is replayed, the states what it must give.
  if (!meta.contains("replay") || !meta["replay"].is_string())
    cx::itf_error(d, "#meta.replay",
                  fmt::format("expected a string: the replay token kmc check printed (a {} "
                              "trace is read through it)",
                              t.protocol->name));
  t.token = meta["replay"].get<std::string>();
  std::string why;
  const auto token = cx::parse_token(t.token, why);
  if (!token) cx::itf_error(d, "#meta.replay", why);
  if (!meta.contains("property") || !meta["property"].is_string())
    cx::itf_error(d, "#meta.property", "expected a string: the violated property");
  if (meta["property"] != token->property)
    cx::itf_error(d, "#meta.property",
                  fmt::format("is {}; the token is a trace of {} {}", shown(meta["property"]),
                              token->property, kEdited));
  t.outcome = recheck(d, t, replay_engine);
  if (!t.outcome.trace) cx::itf_error(d, "#meta.replay", "the token gives no trace in " + t.source);
  const nlohmann::json want = cx::to_itf(*t.outcome.trace, t.named, t.token);
  compare_states(d, want["states"]);
  const nlohmann::json no_loop;
  if (doc.value("loop", no_loop) != want.value("loop", no_loop))
    cx::itf_error(
        d, doc.contains("loop") ? "loop" : "states",
        fmt::format("the loop is {}; the token gives {} {}", shown(doc.value("loop", no_loop)),
                    shown(want.value("loop", no_loop)), kEdited));
  return t;
}

}  // namespace kmc::cli
