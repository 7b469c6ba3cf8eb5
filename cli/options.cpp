#include "cli/options.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "checker/memory.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cli {

namespace {

[[noreturn]] void bad(const std::string& option, const std::string& must, const std::string& text) {
  throw model::InputError({}, option, fmt::format("{} (got '{}')", must, text));
}

}  // namespace

std::int64_t integer_option(const std::string& option, const std::string& text, std::int64_t min,
                            std::int64_t max) {
  const std::string must = max == std::numeric_limits<std::int64_t>::max()
                               ? fmt::format("must be a whole number, {} or more", min)
                               : fmt::format("must be a whole number from {} to {}", min, max);
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || at != end || v < min || v > max) bad(option, must, text);
  return v;
}

std::optional<std::int64_t> integer_option(const std::string& option,
                                           const std::optional<std::string>& text, std::int64_t min,
                                           std::int64_t max) {
  if (!text) return std::nullopt;
  return integer_option(option, *text, min, max);
}

double seconds_option(const std::string& option, const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || at != end || !std::isfinite(v) || v < 0 || v >= 1e9)
    bad(option, "must be a number of seconds, 0 or more", text);
  return v;
}

std::optional<double> seconds_option(const std::string& option,
                                     const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  return seconds_option(option, *text);
}

std::optional<std::size_t> memory_option(const std::string& option,
                                         const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  std::string why;
  const auto bytes = checker::parse_size(*text, why);
  if (!bytes) throw model::InputError({}, option, why);
  return bytes;
}

void choice_option(const std::string& option, const std::string& text,
                   const std::vector<std::string>& choices) {
  for (const auto& c : choices)
    if (text == c) return;
  bad(option, fmt::format("must be {}", fmt::join(choices, " or ")), text);
}

}  // namespace kmc::cli
