#include "model/diagnostics.hpp"

#include <fmt/format.h>

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

}  // namespace kmc::model
