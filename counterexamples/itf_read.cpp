#include "counterexamples/itf_read.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "counterexamples/token.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cx {

namespace {

int line_at(const std::string& text, std::size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(std::min(offset, text.size())), '\n'));
}

// The line of state i: where its "#meta": {"index": i} is written.
int line_of_state(const std::string& text, std::size_t i) {
  const std::string needle = fmt::format("\"index\": {}", i);
  std::size_t at = text.find("\"states\"");
  for (at = text.find(needle, at == std::string::npos ? 0 : at); at != std::string::npos; at = text.find(needle, at + 1)) {
    const char next = at + needle.size() < text.size() ? text[at + needle.size()] : '\n';
    if (next < '0' || next > '9') return line_at(text, at);
  }
  return 0;
}

[[noreturn]] void fail(const ItfDocument& d, int line, const std::string& field, const std::string& message) {
  throw model::InputError(model::Diagnostic{{d.file, line}, field, message});
}

std::string string_at(const ItfDocument& d, const nlohmann::json& obj, const std::string& key, const std::string& field, int line) {
  if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_string()) fail(d, line, field, "expected a string");
  return obj.at(key).get<std::string>();
}

int index_of(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

std::optional<protocols::ActionKind> kind_of(const std::string& name) {
  for (int k = 0; k <= static_cast<int>(protocols::ActionKind::RetryDispatch); ++k)
    if (name == protocols::action_kind_name(static_cast<protocols::ActionKind>(k))) return static_cast<protocols::ActionKind>(k);
  return std::nullopt;
}

ItfStep read_step(const ItfDocument& d, const nlohmann::json& st, std::size_t i, const protocols::MkParams& p) {
  const int line = line_of_state(d.text, i);
  const std::string at = fmt::format("states[{}]", i);
  ItfStep s;
  s.index = i;
  const std::string action = string_at(d, st, "mbt::actionTaken", at + ".mbt::actionTaken", line);
  if (i == 0) {
    s.init = true;
  } else if (auto k = kind_of(action)) {
    s.kind = *k;
  } else {
    fail(d, line, at + ".mbt::actionTaken", fmt::format("'{}' is not a MultiKueue protocol action", action));
  }
  const auto& picks = st.contains("mbt::nondetPicks") ? st.at("mbt::nondetPicks") : nlohmann::json::object();
  if (!picks.is_object()) fail(d, line, at + ".mbt::nondetPicks", "expected an object");
  if (picks.contains("job")) {
    const std::string job = string_at(d, picks, "job", at + ".mbt::nondetPicks.job", line);
    s.job = index_of(p.jobs, job);
    if (s.job < 0) fail(d, line, at + ".mbt::nondetPicks.job", fmt::format("no job '{}' in this scenario ({})", job, fmt::join(p.jobs, ", ")));
  }
  if (picks.contains("cluster")) {
    const std::string c = string_at(d, picks, "cluster", at + ".mbt::nondetPicks.cluster", line);
    s.worker = index_of(p.workers, c);
    if (s.worker < 0) fail(d, line, at + ".mbt::nondetPicks.cluster", fmt::format("no worker '{}' in this scenario ({})", c, fmt::join(p.workers, ", ")));
  }
  if (picks.contains("flavor")) s.flavor = string_at(d, picks, "flavor", at + ".mbt::nondetPicks.flavor", line);
  for (const auto& [k, v] : st.items()) {
    if (!v.is_string()) continue;
    if (k.find(" @") != std::string::npos) s.cells[k] = v.get<std::string>();
    if (k.rfind("free ", 0) == 0) s.free[k.substr(5)] = v.get<std::string>();
  }
  return s;
}

}  // namespace

ItfDocument parse_itf(const std::string& file, const std::string& text) {
  ItfDocument d{file, text, {}};
  try {
    d.doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    fail(d, line_at(text, e.byte), "", fmt::format("not JSON: {}", e.what()));
  }
  return d;
}

ItfDocument load_itf(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw model::InputError(model::Diagnostic{{file, 0}, "", "cannot read the trace file"});
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_itf(file, ss.str());
}

ItfTrace read_itf_meta(const ItfDocument& d) {
  if (!d.doc.is_object() || !d.doc.contains("#meta") || !d.doc.contains("states") || !d.doc.at("states").is_array())
    fail(d, 1, "", "not an ITF trace: expected \"#meta\" and a \"states\" array");
  const auto& meta = d.doc.at("#meta");
  ItfTrace t;
  t.property = string_at(d, meta, "property", "#meta.property", 0);
  if (meta.contains("source") && meta.at("source").is_string()) t.source = meta.at("source").get<std::string>();
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
    if (!meta.at("levers").is_object()) fail(d, 0, "#meta.levers", "expected an object of lever settings");
    for (const auto& [k, v] : meta.at("levers").items()) t.levers[k] = v.is_string() ? v.get<std::string>() : v.dump();
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
  for (std::size_t i = 0; i < states.size(); ++i) t.steps.push_back(read_step(d, states[i], i, p));
  if (t.subject >= p.J()) fail(d, 0, "#meta.replay", "the token's subject is not a job of this scenario");
  return t;
}

}  // namespace kmc::cx
