// Go's time.Duration text ("30s", "15m", "1h30m", "1.5h"), as the Kueue
// Configuration spells timeouts and intervals.
#include <fmt/format.h>

#include <cmath>

#include "model/yaml_node.hpp"

namespace kmc::model {
namespace {

// Seconds per unit, or 0 when the unit is not one Go accepts.
double unit_seconds(std::string_view unit) {
  if (unit == "h") return 3600;
  if (unit == "m") return 60;
  if (unit == "s") return 1;
  if (unit == "ms") return 1e-3;
  if (unit == "us" || unit == "µs") return 1e-6;
  if (unit == "ns") return 1e-9;
  return 0;
}

}  // namespace

// Sub-second remainders round up to a whole second: kmc's clocks count seconds,
// and rounding up never turns a positive timeout into "no timeout".
std::int64_t YamlNode::duration_s() const {
  const std::string text = str();
  const auto bad = [&] {
    fail(fmt::format("invalid duration '{}'; expected Go syntax such as 30s, 15m or 1h30m", text));
  };
  if (text == "0") return 0;
  double total = 0;
  std::size_t i = 0;
  if (text.empty()) bad();
  while (i < text.size()) {
    const std::size_t number_start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
      ++i;
    if (i == number_start) bad();
    const double value = std::strtod(text.substr(number_start, i - number_start).c_str(), nullptr);
    const std::size_t unit_start = i;
    while (i < text.size() && !std::isdigit(static_cast<unsigned char>(text[i])) && text[i] != '.')
      ++i;
    const double per_unit = unit_seconds(std::string_view(text).substr(unit_start, i - unit_start));
    if (per_unit == 0) bad();
    total += value * per_unit;
  }
  if (total > 9e15) bad();
  return static_cast<std::int64_t>(std::ceil(total - 1e-9));
}

}  // namespace kmc::model
