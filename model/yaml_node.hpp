// Reading YAML so that every problem names file, line and field.
//
// yaml-cpp nodes forget where they live once you step into them; YamlNode keeps
// the file, the dotted field path ("spec.resourceGroups[0].flavors[1]") and a
// fallback line (the parent's) for keys that are absent. Every typed read
// throws InputError with that position, so loaders never format errors
// themselves. Internal to model/: the loaders share it, nobody else should.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/diagnostics.hpp"
#include "model/quantity.hpp"

namespace kmc::model {

struct YamlEntry;

class YamlNode {
 public:
  YamlNode(YAML::Node node, std::string file, std::string path, int fallback_line,
           int line_offset = 0, int key_line = 0);

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  // 1-based: the line of this node's key when it has one (so a missing child
  // or a mistyped block is reported where its key is written), else its own
  // line, else the parent's line when it is absent.
  int line() const;
  SourcePos pos() const { return {file_, line()}; }
  const YAML::Node& raw() const { return node_; }

  bool present() const;  // defined and not null
  bool is_map() const { return node_.IsDefined() && node_.IsMap(); }
  bool is_seq() const { return node_.IsDefined() && node_.IsSequence(); }

  YamlNode operator[](std::string_view key) const;  // child, possibly absent
  std::vector<YamlEntry> entries() const;  // mapping entries in file order; fails unless a map
  std::vector<YamlNode> items() const;     // sequence items; fails unless a sequence

  Diagnostic diagnostic(std::string message) const;
  [[noreturn]] void fail(std::string message) const;

  // Typed reads of a present node; each fails naming the field.
  std::string str() const;
  std::int64_t int64(std::int64_t min, std::int64_t max) const;
  std::int32_t int32(std::int32_t min = std::numeric_limits<std::int32_t>::min()) const;
  bool boolean() const;
  double number() const;
  Quantity quantity(bool allow_negative = false) const;
  std::int64_t duration_s() const;  // Go durations: "30s", "15m", "1h30m"
  std::map<std::string, std::string> string_map() const;
  std::vector<std::string> string_list() const;

  // One of a closed set of spellings; the error lists them in this order.
  template <class E>
  E one_of(std::initializer_list<std::pair<std::string_view, E>> values) const {
    const std::string text = str();
    for (const auto& [name, value] : values)
      if (text == name) return value;
    std::string expected;
    for (const auto& [name, value] : values)
      expected += (expected.empty() ? "" : ", ") + std::string(name);
    fail("unknown value '" + text + "'; expected one of " + expected);
  }

 private:
  std::string child_path(std::string_view key) const;
  int line_of(const YAML::Node& n) const;

  YAML::Node node_;
  std::string file_, path_;
  int fallback_line_;
  int line_offset_;  // added to yaml-cpp's lines for YAML embedded in a string
  int key_line_;     // 0 for documents and list items
};

struct YamlEntry {
  std::string key;
  int key_line;  // 1-based line of the key itself
  YamlNode value;
};

// Which keys a mapping may hold. Keys Kueue defines and kmc models are read by
// the caller; keys Kueue defines that kmc does not model become a warning;
// silent keys (Kubernetes bookkeeping, connection details) are accepted as is.
// Anything else is an "unknown field" error at the key's line.
// An unmodeled key whose effect on admission kmc cannot answer for names
// that effect (`changes`, "admission may differ because ..."): its warning is
// marked may_change_answer, which `--strict` refuses.
struct UnmodeledKey {
  UnmodeledKey(const char* k) : key(k) {}  // NOLINT: lists of plain names read best
  UnmodeledKey(std::string_view k, std::string_view c) : key(k), changes(c) {}
  std::string_view key;
  std::string_view changes;  // empty: ignoring it does not change who is admitted
};
struct KeyPolicy {
  std::vector<std::string_view> modeled = {};
  std::vector<UnmodeledKey> unmodeled = {};
  std::vector<std::string_view> silent = {};
};
void check_keys(const YamlNode& map, const KeyPolicy& policy, Warnings& warnings);

// Fails unless the key is present; returns it.
YamlNode require(const YamlNode& map, std::string_view key);

// All documents of a YAML file or text; empty documents are skipped. A syntax
// error is an InputError at its line.
std::vector<YamlNode> load_yaml_file(const std::string& path, const std::string& shown_as);
std::vector<YamlNode> parse_yaml_text(const std::string& text, const std::string& file,
                                      int line_offset);

}  // namespace kmc::model
