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
#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include <fstream>
#include <sstream>

#include "model/yaml_node.hpp"

namespace kmc::model {

namespace {

struct NoProgress {
  YAML::Mark mark;
};

// Counts nothing, builds nothing: only where each document starts.
class ProgressGuard : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (started_ && mark.pos == last_.pos) throw NoProgress{mark};
    started_ = true;
    last_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  bool started_ = false;
  YAML::Mark last_;
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
