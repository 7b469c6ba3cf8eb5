// Kubernetes resource.Quantity text <-> exact milli-units.
//
// Grammar (k8s.io/apimachinery resource.Quantity):
//   quantity ::= sign? digits ( "." digits? )? suffix | sign? "." digits suffix
//   suffix   ::= "" | n u m k M G T P E | Ki Mi Gi Ti Pi Ei | (e|E) sign? digits
// We compute value = D × 10^x × 2^b exactly in 128-bit arithmetic, where D is
// the digit string without its decimal point. Kubernetes would round a value
// finer than 1m up (CPU's MilliValue); kmc instead rejects it, because every
// quantity in a model must be exact and such inputs are almost always typos
// ("100n" cpu). Out-of-range values are rejected rather than clamped.
#include "model/quantity.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <optional>

namespace kmc::model {
namespace {

using i128 = __int128;  // enough for 37 significant digits times 1000

struct Suffix {
  int decimal_exponent = 0;  // × 10^this
  int binary_exponent = 0;   // × 2^this
};

[[noreturn]] void reject(std::string_view text, std::string_view why) {
  throw QuantityError(fmt::format("invalid quantity '{}': {}", text, why));
}

// The suffix after the number, or nullopt when it is not one Kubernetes knows.
std::optional<Suffix> parse_suffix(std::string_view s, std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, Suffix>, 16> table{{
      {"", {0, 0}},
      {"n", {-9, 0}},
      {"u", {-6, 0}},
      {"m", {-3, 0}},
      {"k", {3, 0}},
      {"M", {6, 0}},
      {"G", {9, 0}},
      {"T", {12, 0}},
      {"P", {15, 0}},
      {"E", {18, 0}},
      {"Ki", {0, 10}},
      {"Mi", {0, 20}},
      {"Gi", {0, 30}},
      {"Ti", {0, 40}},
      {"Pi", {0, 50}},
      {"Ei", {0, 60}},
  }};
  for (const auto& [name, suffix] : table)
    if (s == name) return suffix;
  // Decimal exponent: e|E followed by a signed integer ("2e3", "1E-3").
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return std::nullopt;
  std::size_t i = 1;
  bool negative = false;
  if (s[i] == '+' || s[i] == '-') negative = s[i++] == '-';
  if (i == s.size()) return std::nullopt;
  int exponent = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    // Anything beyond 10^±60 is out of range or finer than 1m for every
    // representable mantissa, so stop accumulating there.
    if (exponent < 1000) exponent = exponent * 10 + (s[i] - '0');
  }
  if (exponent >= 1000) reject(text, "exponent out of range");
  return Suffix{negative ? -exponent : exponent, 0};
}

// Multiplies `value` by `factor` `times` times, failing on int64-milli overflow.
void scale_up(i128& value, int factor, int times, std::string_view text) {
  const i128 limit = i128{std::numeric_limits<std::int64_t>::max()} + 1;
  for (int i = 0; i < times; ++i) {
    value *= factor;
    if (value > limit) reject(text, "out of range (more than 9.2e15 units)");
  }
}

}  // namespace

Quantity parse_quantity(std::string_view text) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  i128 digits = 0;     // significant digits seen, as an integer
  int exponent10 = 0;  // decimal exponent of the last digit
  int digit_count = 0, significant = 0;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    ++digit_count;
    if (seen_point) --exponent10;
    if (digits == 0 && c == '0') continue;  // leading zeros carry no precision
    if (++significant > 36) reject(text, "too many significant digits");
    digits = digits * 10 + (c - '0');
  }
  if (digit_count == 0) reject(text, "expected a number such as 8, 500m, 1.5 or 64Gi");
  const auto suffix = parse_suffix(text.substr(i), text);
  if (!suffix)
    reject(text,
           "unknown suffix; expected one of n u m k M G T P E Ki Mi Gi Ti Pi Ei or e<exponent>");

  // milli = digits × 10^(exponent10 + decimal + 3) × 2^binary, exactly.
  int shift10 = exponent10 + suffix->decimal_exponent + 3;
  i128 milli = digits;
  if (milli != 0) {
    scale_up(milli, 2, suffix->binary_exponent, text);
    for (; shift10 < 0; ++shift10) {
      if (milli % 10 != 0)
        reject(text, "finer than a milli-unit (1m); kmc counts exact milli-units");
      milli /= 10;
    }
    scale_up(milli, 10, shift10, text);
  }
  if (negative) milli = -milli;
  if (milli > std::numeric_limits<std::int64_t>::max() ||
      milli < std::numeric_limits<std::int64_t>::min())
    reject(text, "out of range (more than 9.2e15 units)");
  return Quantity{static_cast<std::int64_t>(milli)};
}

std::int64_t Quantity::kueue_value(std::string_view resource) const {
  if (resource == "cpu") return milli;
  // Quantity.Value() rounds up toward +infinity.
  const std::int64_t units = milli / 1000;
  return (milli % 1000 > 0) ? units + 1 : units;
}

std::string Quantity::to_string() const {
  if (milli % 1000 != 0) return fmt::format("{}m", milli);
  const std::int64_t units = milli / 1000;
  // Binary suffixes only where they are exact, largest first: 64Gi, not 65536Mi.
  static constexpr std::array<std::pair<int, const char*>, 6> binary{{
      {60, "Ei"},
      {50, "Pi"},
      {40, "Ti"},
      {30, "Gi"},
      {20, "Mi"},
      {10, "Ki"},
  }};
  for (const auto& [shift, name] : binary) {
    const std::int64_t unit = std::int64_t{1} << shift;
    if (units != 0 && units % unit == 0) return fmt::format("{}{}", units / unit, name);
  }
  return fmt::format("{}", units);
}

}  // namespace kmc::model
