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
  std::string dir = scenario_dir ? *scenario_dir : meta.source;
  // A trace kept beside its scenario (the corpus) names it relative to itself.
  if (!scenario_dir && !dir.empty() && !std::filesystem::is_directory(dir)) {
    const auto beside = std::filesystem::path(itf.file).parent_path() / dir;
    if (std::filesystem::is_directory(beside)) dir = beside.string();
  }
  if (dir.empty())
    throw model::InputError({itf.file, 0}, "#meta.source",
                            "the trace names no scenario; pass --scenario DIR");
  if (!std::filesystem::is_directory(dir))
    throw model::InputError({itf.file, 0}, scenario_dir ? "--scenario" : "#meta.source",
                            fmt::format("scenario folder '{}' not found (run from where the trace "
                                        "was made, or pass --scenario DIR)",
                                        dir));
  ReplayTarget t{model::load_scenario(dir), {}};
  t.params = protocols::compile_multikueue(t.scenario);
  for (const auto& [name, value] : meta.levers)
    protocols::apply_lever(t.params, model::Lever{name, {value}, {itf.file, 0}}, value);
  if (!meta.token.empty()) {
    std::string why;
    const auto token = parse_token(meta.token, why);
    const std::uint32_t id = scenario_id(protocols::MultiKueue(t.params));
    if (token && token->scenario != id)
      throw model::InputError(
          {itf.file, 0}, "#meta.replay",
          fmt::format("the trace was made from another scenario or other lever settings than {} "
                      "(scenario id {:08x}, the trace's {:08x})",
                      dir, id, token->scenario));
  }
  return t;
}

}  // namespace kmc::cx
