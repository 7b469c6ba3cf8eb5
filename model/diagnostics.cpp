#include "model/diagnostics.hpp"

#include <fmt/format.h>

namespace kmc::model {

std::string Diagnostic::to_string() const {
  std::string where = pos.file.empty() ? "<input>" : pos.file;
  if (pos.line > 0) where += fmt::format(":{}", pos.line);
  if (field.empty()) return fmt::format("{}: {}", where, message);
  return fmt::format("{}: {}: {}", where, field, message);
}

}  // namespace kmc::model
