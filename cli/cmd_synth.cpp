// `kmc synth DIR`: where a scenario's parameters ({param: NAME, range: [LO, HI]}
// in place of a number) make each property hold or fail. The grid and its
// boxes are counterexamples/synth.hpp; this file loads each point, runs the
// check, and prints.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/protocols.hpp"
#include "cli/stop_signals.hpp"
#include "counterexamples/pipeline.hpp"
#include "counterexamples/synth.hpp"
#include "model/parameters.hpp"

namespace kmc::cli {

namespace {

struct SynthArgs {
  std::string dir;
  std::vector<std::string> properties;
  std::string output = "text";
  std::string engine = "explicit";
  std::optional<std::string> time_limit_s, max_depth;
  std::string max_points = "4096";
};

std::string box_text(const cx::SynthBox& box) {
  std::vector<std::string> parts;
  for (const auto& [name, range] : box.ranges)
    parts.push_back(range.first == range.second
                        ? fmt::format("{} = {}", name, range.first)
                        : fmt::format("{} in [{}, {}]", name, range.first, range.second));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string point_text(const cx::Point& p) {
  std::vector<std::string> parts;
  for (const auto& [name, v] : p) parts.push_back(fmt::format("{} = {}", name, v));
  return fmt::format("{}", fmt::join(parts, ", "));
}

const char* region_of(checker::Verdict v) {
  switch (v) {
    case checker::Verdict::Verified:
      return "holds";
    case checker::Verdict::Violated:
      return "fails";
    case checker::Verdict::Vacuous:
      return "vacuous";
    case checker::Verdict::Incomplete:
      return "undecided";
  }
  return "?";
}

int run_synth(const SynthArgs& a) {
  choice_option("--output", a.output, {"text", "json"});
  choice_option("--engine", a.engine, {"explicit", "bmc", "induction"});
  const auto max_points = integer_option("--max-points", a.max_points, 1, 1'000'000);
  const auto max_depth = integer_option("--max-depth", a.max_depth, 0, 1'000'000'000);
  const auto time_limit = seconds_option("--time-limit", a.time_limit_s);
  const StopOnSignals signals;
  // The parameters, read by one load with every parameter at its LO.
  std::vector<model::Parameter> parameters;
  std::vector<std::string> properties = a.properties;
  {
    model::ParameterScope scope;
    const model::Scenario sc = load_checked_scenario(a.dir);
    parameters = scope.parameters();
    if (parameters.empty())
      throw model::InputError({a.dir + "/kmc.yaml", 0}, "param",
                              "no parameters: write {param: NAME, range: [LO, HI]} in place of "
                              "a number in kmc.yaml or a manifest");
    if (properties.empty()) properties = sc.fleet.check.properties;
  }
  const std::size_t points = cx::grid_size(parameters);
  if (points > static_cast<std::size_t>(max_points))
    throw model::InputError({}, "--max-points",
                            fmt::format("the parameters' grid has {} points, more than {}: narrow "
                                        "their ranges or raise --max-points",
                                        points, max_points));
  const auto check = [&](const cx::Point& point, const std::string& property) {
    model::ParameterScope scope(point);
    const model::Scenario sc = load_checked_scenario(a.dir);
    cx::CheckRequest req;
    if (!property.empty()) req.properties = {property};
    req.shrink = false;  // a witness per box, not a minimal one: each point is one check
    req.stop = stop_requested;
    if (time_limit) req.time_limit_s = time_limit;
    if (max_depth) req.max_depth = static_cast<int>(*max_depth);
    if (a.engine == "bmc") req.smt = checker::SmtEngine::Bmc;
    if (a.engine == "induction") req.smt = checker::SmtEngine::Induction;
    const auto o = protocol_of(sc).check(sc, req);
    cx::PointVerdict v;
    v.verdict = o.result.verdict;
    for (const auto& p : o.result.properties)
      if (p.name == property)
        v.verdict = p.verdict, v.engine = p.engine.empty() ? "explicit" : p.engine;
    if (o.result.violation && o.result.violation->property == property) {
      v.token = o.token;
      v.steps = o.result.violation->path.choices.size();
    }
    return v;
  };
  if (properties.empty()) {  // the protocol's defaults, as kmc check runs them
    model::ParameterScope scope;
    const model::Scenario sc = load_checked_scenario(a.dir);
    cx::CheckRequest req;
    req.shrink = false;
    req.max_depth = 0;
    for (const auto& p : protocol_of(sc).check(sc, req).result.properties)
      properties.push_back(p.name);
  }
  const auto r = cx::synthesize(parameters, properties, check);
  bool fails = false, undecided = false;
  for (const auto& p : r.properties)
    for (const auto& b : p.boxes) {
      fails = fails || b.verdict == checker::Verdict::Violated;
      undecided = undecided || b.verdict == checker::Verdict::Incomplete;
    }
  if (a.output == "json") {
    nlohmann::json j;
    j["scenario"] = a.dir;
    j["points"] = r.points;
    for (const auto& p : r.parameters)
      j["parameters"][p.name] = {
          {"range", {p.lo, p.hi}}, {"file", p.pos.file}, {"line", p.pos.line}, {"field", p.field}};
    for (const auto& prop : r.properties) {
      nlohmann::json& out = j["properties"][prop.name];
      for (const char* region : {"holds", "fails", "vacuous", "undecided"})
        out[region] = nlohmann::json::array();
      for (const auto& b : prop.boxes) {
        nlohmann::json box;
        for (const auto& [name, range] : b.ranges) box[name] = {range.first, range.second};
        box["decidedBy"] = b.engines;
        if (b.verdict == checker::Verdict::Violated)
          box["witness"] = {
              {"point", b.witness}, {"replay", b.at_witness.token}, {"steps", b.at_witness.steps}};
        out[region_of(b.verdict)].push_back(box);
      }
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::string out = fmt::format("kmc synth {}\nParameters:\n", a.dir);
    for (const auto& p : r.parameters)
      out += fmt::format("  {} in [{}, {}]  ({}:{}: {})\n", p.name, p.lo, p.hi, p.pos.file,
                         p.pos.line, p.field);
    out += fmt::format("{} point{}, each checked by {} search\n", r.points,
                       r.points == 1 ? "" : "s", a.engine == "explicit" ? "explicit" : a.engine);
    for (const auto& prop : r.properties) {
      out += fmt::format("\n{}:\n", prop.name);
      for (const auto& b : prop.boxes) {
        out += fmt::format("  {:<9} {}", region_of(b.verdict), box_text(b));
        if (b.verdict == checker::Verdict::Violated && !b.at_witness.token.empty())
          out += fmt::format("\n            witness at {} ({} steps): kmc check DIR --replay {}",
                             point_text(b.witness), b.at_witness.steps, b.at_witness.token);
        out += "\n";
      }
    }
    out +=
        "\nA witness replays against the scenario with its point's values written in place of "
        "the parameters.\n";
    std::cout << out;
  }
  return fails ? 1 : undecided ? 2 : 0;
}

}  // namespace

void add_synth_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SynthArgs>();
  auto* cmd = app.add_subcommand(
      "synth", "Where a scenario's parameters make each property hold or fail, as boxes");
  cmd->add_option("dir", args->dir,
                  "Scenario folder whose kmc.yaml or manifests write {param: NAME, range: [LO, "
                  "HI]} in place of numbers")
      ->required();
  cmd->add_option("--property", args->properties,
                  "Synthesize for this property (repeatable); default: kmc check's");
  cmd->add_option("--engine", args->engine, "explicit (default), bmc or induction, per point");
  cmd->add_option("--max-depth", args->max_depth, "Per point, as kmc check's");
  cmd->add_option("--time-limit", args->time_limit_s, "Per point, in seconds");
  cmd->add_option("--max-points", args->max_points,
                  "Refuse a grid with more points than this (default 4096)");
  cmd->add_option("--output", args->output, "text or json");
  cmd->callback([args, &exit_code] { exit_code = guarded([&] { return run_synth(*args); }); });
}

}  // namespace kmc::cli
