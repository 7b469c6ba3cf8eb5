// Kubernetes resource.Quantity, as Kueue's scheduler counts it.
//
// Kueue converts every quantity to an int64 (pkg/resources/requests.go:
// ResourceValue): CPU in milli-units, every other resource in base units,
// rounded up. We keep the exact milli value so both views are lossless for
// the magnitudes a fleet uses (up to 9.2e15 base units), and say which view
// a caller wants.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kmc::model {

struct Quantity {
  std::int64_t milli = 0;  // value × 1000, exact for every accepted input

  static Quantity from_units(std::int64_t units) { return Quantity{units * 1000}; }
  // Kueue's integer view: milli-units for "cpu", base units (rounded up) otherwise.
  std::int64_t kueue_value(std::string_view resource) const;
  // Canonical text: "8", "500m", "64Gi" where exact, else a milli or plain form.
  std::string to_string() const;

  friend auto operator<=>(const Quantity&, const Quantity&) = default;
  friend Quantity operator+(Quantity a, Quantity b) { return Quantity{a.milli + b.milli}; }
  friend Quantity operator-(Quantity a, Quantity b) { return Quantity{a.milli - b.milli}; }
};

// Parses "8", "500m", "64Gi", "1.5", "2e3", "1k", "1E"... as Kubernetes does.
// Anything else, fractions finer than a milli-unit, negative values where the
// caller forbids them, and values beyond int64 milli-units, throw
// QuantityError naming the text.
Quantity parse_quantity(std::string_view text);

struct QuantityError : std::exception {
  explicit QuantityError(std::string m) : message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
  std::string message;
};

}  // namespace kmc::model
