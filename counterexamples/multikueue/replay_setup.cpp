#include "counterexamples/multikueue/replay_setup.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "counterexamples/scenario_id.hpp"
#include "counterexamples/token.hpp"
#include "model/diagnostics.hpp"
#include "protocols/multikueue.hpp"
#include "protocols/multikueue_levers.hpp"

namespace kmc::cx {

ReplayTarget load_replay_target(const ItfDocument& itf,
                                const std::optional<std::string>& scenario_dir) {
  const ItfTrace meta = read_itf_meta(itf);
  const std::string dir = trace_scenario_dir(itf, scenario_dir);
  ReplayTarget t{model::load_scenario(dir), {}};
  t.params = protocols::compile_multikueue(t.scenario);
  for (const auto& [name, value] : meta.levers)
    protocols::apply_lever(
        t.params, model::Lever{name, {value}, {itf.file, itf_line(itf, "#meta.levers." + name)}},
        value);
  if (!meta.token.empty()) {
    std::string why;
    const auto token = parse_token(meta.token, why);
    const std::uint32_t id = scenario_id(protocols::MultiKueue(t.params));
    if (token && token->scenario != id)
      itf_error(
          itf, "#meta.replay",
          fmt::format("the trace was made from another scenario or other lever settings than {} "
                      "(scenario id {:08x}, the trace's {:08x})",
                      dir, id, token->scenario));
  }
  return t;
}

}  // namespace kmc::cx
