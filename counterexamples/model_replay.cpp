#include "counterexamples/model_replay.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "checker/replay.hpp"
#include "counterexamples/token.hpp"

namespace kmc::cx {

std::optional<std::string> model_difference(const protocols::MultiKueue& mk, const ItfDocument& itf) {
  const ItfTrace meta = read_itf_meta(itf);
  std::string why;
  const auto token = parse_token(meta.token, why);
  if (!token) return "the trace has no usable replay token: " + why;
  std::vector<protocols::MultiKueue::State> states;
  try {
    states = checker::replay(mk, token->path);
  } catch (const std::out_of_range& e) {
    return std::string("the model cannot take the trace's path: ") + e.what();
  }
  const auto& written = itf.doc.at("states");
  if (written.size() != states.size())
    return fmt::format("the token's path has {} states, the trace {}", states.size(), written.size());
  for (std::size_t i = 0; i < states.size(); ++i)
    for (const auto& [k, v] : mk.describe(states[i])) {
      const auto& st = written[i];
      if (!st.contains(k)) return fmt::format("state {}: the trace has no '{}'", i, k);
      if (st.at(k) != v) return fmt::format("state {}: '{}' is \"{}\" in the model, \"{}\" in the trace", i, k, v, st.at(k).get<std::string>());
    }
  return std::nullopt;
}

}  // namespace kmc::cx
