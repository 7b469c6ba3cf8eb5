// Splitting a YAML file into documents, with syntax errors as InputError.
//
// yaml-cpp 0.7, Debian 12's, loops forever in LoadAll on a document that
// reads no token (jbeder/yaml-cpp#1040): its parser leaves a token it cannot
// start a node with where it is, a ',' outside [ ] and { } (",", "- a\n,",
// "[a],"), and LoadAll reads the same empty document from it again and
// again, growing about 100 MB/s. So a first pass over yaml-cpp's own parser
// events stops at the first document that starts where the one before it
// started: it read nothing, and every later one would be the same. Upstream
// stops LoadAll on the same condition, token positions that do not move
// (f25f110, 2026, after #1319 in 0.9.0 stopped at an empty document), but
// silently; here it is an error. It is exactly when LoadAll loops: over 8,980
// inputs (all of up to four characters from ", a:-[" and a newline, or from
// ",\"#!|}-" and a newline, and 1,500 random ones of up to 14), LoadAll ran
// in a child with a one-second alarm looped on 1,471, the guard refused those
// and nothing else, and on the rest LoadAll's result is unchanged. The cost
// is a second pass of the parser, without nodes: about 0.2 ms a manifest.
// README, Dependencies, says why this and not another YAML library.
//
// The same pass refuses a key written twice in one mapping. YAML forbids it,
// yet yaml-cpp keeps one of the two silently; two manifests concatenated
// without a `---` between them read as one object with the second's keys,
// and an object of the first file vanishes with exit 0. Events are streamed,
// aliases are not expanded, so the check is linear in the text.
#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "model/yaml_node.hpp"

namespace kmc::model {

namespace {

struct NoProgress {
  YAML::Mark mark;
};
struct DuplicateKey {
  YAML::Mark mark;
  std::string key;
  int first_line;  // 0-based, as yaml-cpp's marks
};

// Counts nothing, builds nothing: only where each document starts.
class ProgressGuard : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (started_ && mark.pos == last_.pos) throw NoProgress{mark};
    started_ = true;
    last_ = mark;
  }
  void OnDocumentEnd() override { frames_.clear(); }
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { node_done(nullptr, {}); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { node_done(nullptr, {}); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    node_done(&value, mark);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    frames_.push_back({false, true, {}});
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    frames_.push_back({true, true, {}});
  }
  void OnMapEnd() override { close(); }

 private:
  // A mapping or sequence being read: in a mapping, nodes alternate key and value.
  struct Frame {
    bool is_map;
    bool expect_key;
    std::map<std::string, int> keys;  // scalar key -> its line
  };

  void close() {
    frames_.pop_back();
    node_done(nullptr, {});
  }

  // A node is complete; `scalar` is its text when it is a scalar.
  void node_done(const std::string* scalar, const YAML::Mark& mark) {
    if (frames_.empty() || !frames_.back().is_map) return;
    Frame& f = frames_.back();
    if (f.expect_key && scalar) {
      auto [it, inserted] = f.keys.emplace(*scalar, mark.line);
      if (!inserted) throw DuplicateKey{mark, *scalar, it->second};
    }
    f.expect_key = !f.expect_key;
  }

  bool started_ = false;
  YAML::Mark last_;
  std::vector<Frame> frames_;
};

void guard_progress(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  ProgressGuard guard;
  while (parser.HandleNextDocument(guard)) {
  }
}

}  // namespace

std::vector<YamlNode> parse_yaml_text(const std::string& text, const std::string& file,
                                      int line_offset) {
  std::vector<YAML::Node> documents;
  try {
    guard_progress(text);
    documents = YAML::LoadAll(text);
  } catch (const NoProgress& e) {
    const auto at = static_cast<std::size_t>(e.mark.pos);
    const char c = at < text.size() ? text[at] : ' ';
    throw InputError(
        {file, e.mark.line + 1 + line_offset}, "",
        fmt::format("YAML syntax error at column {}: '{}' cannot start a value{}",
                    e.mark.column + 1, c,
                    c == ',' ? " (a ',' separates entries only inside [ ] or { })" : ""));
  } catch (const DuplicateKey& e) {
    throw InputError({file, e.mark.line + 1 + line_offset}, e.key,
                     fmt::format("a second '{}' in one mapping (the first is at line {}); YAML "
                                 "allows a key once, and kubectl never prints one twice (were two "
                                 "files joined without a --- between them?)",
                                 e.key, e.first_line + 1 + line_offset));
  } catch (const YAML::Exception& e) {
    // ParserException carries the 0-based line of the offending token.
    const int line = e.mark.is_null() ? 0 : e.mark.line + 1 + line_offset;
    throw InputError({file, line}, "", fmt::format("YAML syntax error: {}", e.msg));
  }
  std::vector<YamlNode> out;
  for (auto& doc : documents) {
    if (!doc.IsDefined() || doc.IsNull()) continue;  // "---" followed by nothing
    out.emplace_back(doc, file, "", line_offset + 1, line_offset);
  }
  return out;
}

std::vector<YamlNode> load_yaml_file(const std::string& path, const std::string& shown_as) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({shown_as, 0}, "", "cannot read file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_yaml_text(text.str(), shown_as, 0);
}

}  // namespace kmc::model
