#include "model/diagnostics.hpp"

#include <fmt/format.h>

#include <map>

namespace kmc::model {

std::string Diagnostic::to_string() const {
  if (pos.file.empty() && field.empty()) return message;  // a usage error: no place to name
  std::string where = pos.file.empty() ? "<command line>" : pos.file;
  if (pos.line > 0) where += fmt::format(":{}", pos.line);
  if (field.empty()) return fmt::format("{}: {}", where, message);
  return fmt::format("{}: {}: {}", where, field, message);
}

InputError::InputError(SourcePos pos, std::string field, std::string message)
    : InputError(Diagnostic{std::move(pos), std::move(field), std::move(message)}) {}

Diagnostic ignored_input(SourcePos pos, std::string field, std::string concept_,
                         std::string message) {
  Diagnostic d{std::move(pos), std::move(field), std::move(message)};
  d.may_change_answer = true;
  d.concept_ = std::move(concept_);
  return d;
}

namespace {

// Warnings of one concept are one thing ignored, wherever it is written;
// warnings without a concept collapse only when field and text are equal.
std::string group_key(const Diagnostic& d) {
  if (!d.concept_.empty()) return "concept\n" + d.concept_;
  return "text\n" + d.field + "\n" + d.message;
}

}  // namespace

std::vector<std::string> review_warnings(const Warnings& warnings, bool strict) {
  if (strict) {
    for (const auto& w : warnings) {
      if (!w.may_change_answer) continue;
      Diagnostic refused = w;
      refused.message = "--strict: " + w.message;
      throw InputError(std::move(refused));
    }
  }
  std::vector<const Diagnostic*> firsts;  // in order of first appearance
  std::map<std::string, std::size_t> count;
  for (const auto& w : warnings)
    if (count[group_key(w)]++ == 0) firsts.push_back(&w);
  std::vector<std::string> lines;
  for (const Diagnostic* w : firsts) {
    const std::size_t n = count[group_key(*w)];
    if (n == 1) {
      lines.push_back(w->to_string());
      continue;
    }
    const std::string what = w->concept_.empty() ? w->field : w->concept_;
    lines.push_back(fmt::format("{}: ignored in {} places (first at {}:{}): {}", what, n,
                                w->pos.file, w->pos.line, w->message));
  }
  return lines;
}

}  // namespace kmc::model
