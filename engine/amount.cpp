#include "engine/amount.hpp"

#include <fmt/format.h>

namespace kmc::engine {

Amount amount_add(Amount a, Amount b) {
  if (a == kUnlimited || b == kUnlimited) return kUnlimited;
  Amount out = 0;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? kUnlimited : kAmountMin;
  return out;
}

Amount amount_sub(Amount a, Amount b) {
  if (a == kUnlimited && b == kUnlimited) return 0;
  if (a == kUnlimited) return kUnlimited;
  if (b == kUnlimited) return kAmountMin;
  Amount out = 0;
  if (__builtin_sub_overflow(a, b, &out)) return b < 0 ? kUnlimited : kAmountMin;
  return out;
}

Amount resource_value(const std::string& resource, const model::Quantity& q) {
  if (resource == "cpu") return q.milli;
  // Quantity.Value() rounds up to the next integer.
  if (q.milli >= 0) return q.milli / 1000 + (q.milli % 1000 != 0 ? 1 : 0);
  return q.milli / 1000;
}

std::string format_amount(const std::string& resource, Amount v) {
  if (v == kUnlimited) return "unlimited";
  if (resource == "cpu") {
    if (v % 1000 == 0) return fmt::format("{}", v / 1000);
    return fmt::format("{}m", v);
  }
  if (resource == "memory" || resource.starts_with("hugepages-") ||
      resource == "ephemeral-storage") {
    static constexpr const char* kSuffix[] = {"Ki", "Mi", "Gi", "Ti", "Pi"};
    Amount unit = 1024 * 1024 * 1024LL * 1024 * 1024;
    for (int i = 4; i >= 0; --i, unit /= 1024) {
      if (v != 0 && v % unit == 0) return fmt::format("{}{}", v / unit, kSuffix[i]);
    }
  }
  return fmt::format("{}", v);
}

}  // namespace kmc::engine
