// A short fingerprint of a protocol instance, so a replay token from one
// scenario is refused by another instead of replaying nonsense.
#pragma once

#include <cstdint>
#include <vector>

#include "counterexamples/trace.hpp"
#include "model/fingerprint.hpp"

namespace kmc::cx {

template <Describable P>
std::uint32_t scenario_id(const P& p) {
  model::Hasher h;
  for (const auto& s : p.init_states())
    for (const auto& [k, v] : p.describe(s)) {
      model::hash_append(h, k);
      model::hash_append(h, v);
    }
  std::vector<typename P::Action> actions;
  for (const auto& s : p.init_states()) p.actions(s, actions);
  for (const auto& a : actions) model::hash_append(h, p.action_name(a));
  if constexpr (requires { p.identity(); })
    h.word(p.identity());  // options that do not show in the first state
  return static_cast<std::uint32_t>(model::mix64(h.h));
}

}  // namespace kmc::cx
