#include "model/yaml_node.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "model/parameters.hpp"

namespace kmc::model {

YamlNode::YamlNode(YAML::Node node, std::string file, std::string path, int fallback_line,
                   int line_offset, int key_line)
    : node_(std::move(node)),
      file_(std::move(file)),
      path_(std::move(path)),
      fallback_line_(fallback_line),
      line_offset_(line_offset),
      key_line_(key_line) {}

int YamlNode::line_of(const YAML::Node& n) const {
  if (!n.IsDefined()) return fallback_line_;
  const YAML::Mark mark = n.Mark();
  if (mark.is_null() || mark.line < 0) return fallback_line_;
  return mark.line + 1 + line_offset_;  // yaml-cpp counts lines from 0
}

int YamlNode::line() const {
  return key_line_ > 0 ? key_line_ : line_of(node_);
}

bool YamlNode::present() const {
  return node_.IsDefined() && !node_.IsNull();
}

std::string YamlNode::child_path(std::string_view key) const {
  // Label-like keys ("kueue.x-k8s.io/queue-name") would read ambiguously
  // after a dot, so they get brackets.
  const bool plain = key.find_first_of("./ ") == std::string_view::npos;
  const std::string part = plain ? std::string(key) : fmt::format("[\"{}\"]", key);
  if (path_.empty()) return plain ? part : part;
  return plain ? path_ + "." + part : path_ + part;
}

YamlNode YamlNode::operator[](std::string_view key) const {
  // yaml-cpp hands out "invalid" nodes for missing keys, and assigning or
  // querying one throws; so only look up in a real map, and copy-construct.
  if (node_.IsDefined() && node_.IsMap()) {
    for (const auto& kv : node_)
      if (kv.first.IsScalar() && kv.first.Scalar() == key)
        return YamlNode(kv.second, file_, child_path(key), line(), line_offset_, line_of(kv.first));
  }
  return YamlNode(YAML::Node(YAML::NodeType::Undefined), file_, child_path(key), line(),
                  line_offset_);
}

std::vector<YamlEntry> YamlNode::entries() const {
  if (!present()) return {};
  if (!node_.IsMap()) fail("expected a mapping (key: value)");
  std::vector<YamlEntry> out;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) fail("expected a mapping with plain keys");
    const std::string key = kv.first.Scalar();
    const int key_line = line_of(kv.first);
    out.push_back(
        YamlEntry{key, key_line,
                  YamlNode(kv.second, file_, child_path(key), key_line, line_offset_, key_line)});
  }
  return out;
}

std::vector<YamlNode> YamlNode::items() const {
  if (!present()) return {};
  if (!node_.IsSequence()) fail("expected a list");
  std::vector<YamlNode> out;
  std::size_t i = 0;
  for (const auto& item : node_) {
    out.emplace_back(item, file_, fmt::format("{}[{}]", path_, i++), line(), line_offset_);
  }
  return out;
}

Diagnostic YamlNode::diagnostic(std::string message) const {
  return Diagnostic{pos(), path_, std::move(message)};
}

void YamlNode::fail(std::string message) const {
  throw InputError(diagnostic(std::move(message)));
}

std::string YamlNode::str() const {
  if (!present()) fail("required field is missing");
  if (!node_.IsScalar())
    fail("expected a string, got a " + std::string(node_.IsMap() ? "mapping" : "list"));
  return node_.Scalar();
}

std::int64_t YamlNode::int64(std::int64_t min, std::int64_t max) const {
  if (std::int64_t v = 0; ParameterScope::value_of(*this, v)) {  // kmc synth's {param: ...}
    if (v < min || v > max)
      fail(fmt::format("parameter value {} is out of range [{}, {}]", v, min, max));
    return v;
  }
  const std::string text = str();
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    fail(fmt::format("expected an integer, got '{}'", text));
  if (value < min || value > max) fail(fmt::format("{} is out of range [{}, {}]", value, min, max));
  return value;
}

std::int32_t YamlNode::int32(std::int32_t min) const {
  return static_cast<std::int32_t>(int64(min, std::numeric_limits<std::int32_t>::max()));
}

bool YamlNode::boolean() const {
  const std::string text = str();
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  fail(fmt::format("expected true or false, got '{}'", text));
}

double YamlNode::number() const {
  const std::string text = str();
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') fail(fmt::format("expected a number, got '{}'", text));
  return value;
}

Quantity YamlNode::quantity(bool allow_negative) const {
  if (std::int64_t v = 0; ParameterScope::value_of(*this, v)) {  // kmc synth's {param: ...}
    if (!allow_negative && v < 0) fail(fmt::format("parameter value {} must not be negative", v));
    return parse_quantity(std::to_string(v));
  }
  const std::string text = str();
  Quantity q;
  try {
    q = parse_quantity(text);
  } catch (const QuantityError& e) {
    fail(e.message);
  }
  if (!allow_negative && q.milli < 0) fail(fmt::format("quantity '{}' must not be negative", text));
  return q;
}

std::map<std::string, std::string> YamlNode::string_map() const {
  std::map<std::string, std::string> out;
  for (const auto& e : entries()) out[e.key] = e.value.present() ? e.value.str() : "";
  return out;
}

std::vector<std::string> YamlNode::string_list() const {
  std::vector<std::string> out;
  for (const auto& item : items()) out.push_back(item.str());
  return out;
}

namespace {

// "spec.resourceGroups[0].flavors[1].name" -> "spec.resourceGroups.flavors.name": the
// concept one warning stands for wherever it is written.
std::string without_indexes(const std::string& path) {
  std::string out;
  bool in_index = false;
  for (char c : path) {
    if (c == '[') in_index = true;
    if (!in_index) out += c;
    if (c == ']') in_index = false;
  }
  return out;
}

}  // namespace

void check_keys(const YamlNode& map, const KeyPolicy& policy, Warnings& warnings) {
  auto has = [](const std::vector<std::string_view>& keys, const std::string& key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  for (const auto& e : map.entries()) {
    if (has(policy.modeled, e.key) || has(policy.silent, e.key)) continue;
    auto unmodeled = std::find_if(policy.unmodeled.begin(), policy.unmodeled.end(),
                                  [&](const UnmodeledKey& u) { return u.key == e.key; });
    if (unmodeled != policy.unmodeled.end()) {
      Diagnostic d{{map.file(), e.key_line},
                   e.value.path(),
                   fmt::format("kmc does not model {}; ignored", e.value.path())};
      d.concept_ = without_indexes(e.value.path());  // so the summary counts its places
      if (!unmodeled->changes.empty()) {
        d.message += fmt::format(": {}", unmodeled->changes);
        d.may_change_answer = true;
      }
      warnings.push_back(std::move(d));
      continue;
    }
    std::string known;
    for (auto k : policy.modeled) known += (known.empty() ? "" : ", ") + std::string(k);
    for (const auto& u : policy.unmodeled)
      known += (known.empty() ? "" : ", ") + std::string(u.key);
    throw InputError({map.file(), e.key_line}, e.value.path(),
                     fmt::format("unknown field; expected one of {}", known));
  }
}

YamlNode require(const YamlNode& map, std::string_view key) {
  YamlNode child = map[key];
  if (!child.present()) child.fail("required field is missing");
  return child;
}

}  // namespace kmc::model
