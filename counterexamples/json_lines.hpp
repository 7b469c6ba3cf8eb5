// The line each value of a JSON document starts on, by its path
// ("states[3].mbt::nondetPicks.job", "#meta.replay"), so that an error about
// a field of a trace or an engine log names the line an editor shows it on.
// nlohmann::json keeps no positions; its SAX parser, fed through an iterator
// that counts newlines, tells where each key and each element begins.
#pragma once

#include <string>
#include <unordered_map>

namespace kmc::cx {

class JsonLines {
 public:
  // Indexes `text`; text that is not JSON indexes what came before the error.
  explicit JsonLines(const std::string& text);
  JsonLines() = default;
  // The line of `path`, or of its longest indexed prefix ("states[3].phase"
  // when the document has no states[3].phase.#map[9]); 1, the document's
  // first line, when none is indexed.
  int line_of(const std::string& path) const;
  // Where the text stops being JSON (a syntax error, a number too large for
  // any JSON number type); 0 when it is JSON.
  int error_line() const { return error_line_; }

 private:
  std::unordered_map<std::string, int> lines_;
  int error_line_ = 0;
};

}  // namespace kmc::cx
