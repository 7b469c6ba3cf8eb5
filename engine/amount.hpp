// resources.Amount: Kueue's int64 quota arithmetic with an Unlimited sentinel.
//
// Kueue (pkg/resources/amount.go) saturates additions and treats MaxInt64 as
// "unlimited"; kueue-semantics.md §3.1 asks for the same saturation here so
// that borrowing limits and potential capacity compare exactly as upstream.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "model/quantity.hpp"

namespace kmc::engine {

using Amount = std::int64_t;
inline constexpr Amount kUnlimited = std::numeric_limits<Amount>::max();
inline constexpr Amount kAmountMin = std::numeric_limits<Amount>::min();

Amount amount_add(Amount a, Amount b);
Amount amount_sub(Amount a, Amount b);

// Kueue's integer view of a quantity (pkg/resources/requests.go ResourceValue):
// CPU in milli-units, everything else in base units rounded up.
Amount resource_value(const std::string& resource, const model::Quantity& q);
// The inverse, for people: "4", "500m", "64Gi" where exact.
std::string format_amount(const std::string& resource, Amount v);

// A (flavor, resource) pair, interned to a small integer per engine.
using FrId = int;
struct FlavorResource {
  std::string flavor, resource;
  friend auto operator<=>(const FlavorResource&, const FlavorResource&) = default;
};
// Ordered, so every iteration (and so every decision) is deterministic.
using FrUsage = std::map<FrId, Amount>;

}  // namespace kmc::engine
