#include "counterexamples/multikueue/model_replay.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "checker/replay.hpp"
#include "counterexamples/token.hpp"

namespace kmc::cx {

std::optional<std::string> model_difference(const protocols::MultiKueue& mk,
                                            const ItfDocument& itf) {
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
    return fmt::format("the token's path has {} states, the trace {}", states.size(),
                       written.size());
  for (std::size_t i = 0; i < states.size(); ++i) {
    const model::Cells cells = read_cells(itf, i, protocols::MultiKueue::cell_fields());
    for (const auto& c : mk.cells(states[i])) {
      const std::string name = model::key_text(c.field, c.entity);
      const model::CellValue* v = cells.find(c.field, c.entity);
      if (v == nullptr) return fmt::format("state {}: the trace has no {}", i, name);
      if (*v != c.value)
        return fmt::format("state {}: {} is {} in the model, {} in the trace", i, name,
                           model::to_string(c.value), model::to_string(*v));
    }
    if (cells.all().size() != mk.cells(states[i]).size())
      return fmt::format("state {}: the trace has cells the model does not", i);
  }
  return std::nullopt;
}

}  // namespace kmc::cx
