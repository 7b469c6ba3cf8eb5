// `kmc admit PATH... [--cycles N] [--output text|json] [--expect STATE=NS/NAME,...]`:
// one cluster's manifests through the reference engine: who is admitted, who
// waits and why. With --expect it is a CI check (the shape of kueue#15614's
// `kueuectl simulate`): exit 1 when a workload does not end as expected.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "engine/engine.hpp"
#include "engine/report.hpp"
#include "model/diagnostics.hpp"
#include "model/scenario.hpp"

namespace kmc::cli {

namespace {

struct Expectation {
  std::string key;       // as written: admitted, pending, ...
  std::string state;     // the report's state it asks for
  std::string workload;  // NS/NAME
};

// The states a workload can end a run in (engine/report.hpp's workload_state), by the key
// --expect spells them with.
const std::vector<std::pair<std::string, std::string>>& expectable() {
  static const std::vector<std::pair<std::string, std::string>> states = {
      {"admitted", "Admitted"},
      {"pending", "Pending"},
      {"quota-reserved", "QuotaReserved"},
      {"evicted", "Evicted"},
      {"finished", "Finished"}};
  return states;
}

[[noreturn]] void bad_expect(const std::string& item, const std::string& why) {
  throw model::InputError({}, "--expect", fmt::format("{} (got '{}')", why, item));
}

std::vector<Expectation> parse_expectations(const std::vector<std::string>& given) {
  std::vector<Expectation> out;
  for (const auto& arg : given) {
    std::size_t from = 0;
    while (from <= arg.size()) {
      const std::size_t comma = std::min(arg.find(',', from), arg.size());
      const std::string item = arg.substr(from, comma - from);
      from = comma + 1;
      const std::size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
        bad_expect(item, "must be STATE=NAMESPACE/NAME");
      Expectation e{item.substr(0, eq), "", item.substr(eq + 1)};
      for (const auto& [key, state] : expectable())
        if (key == e.key) e.state = state;
      if (e.state.empty())
        bad_expect(item, "STATE must be admitted, pending, quota-reserved, evicted or finished");
      if (e.workload.find('/') == std::string::npos)
        bad_expect(item, "the workload must be NAMESPACE/NAME");
      out.push_back(std::move(e));
    }
  }
  return out;
}

struct Checked {
  const Expectation* expectation;
  const engine::WorkloadReport* workload;
  bool met() const { return workload->state == expectation->state; }
};

// A name the run does not know is bad input, not a failed expectation: a typo must not read as
// "the job was not admitted".
std::vector<Checked> check_expectations(const std::vector<Expectation>& expectations,
                                        const engine::AdmitReport& report) {
  std::vector<Checked> out;
  for (const auto& e : expectations) {
    const engine::WorkloadReport* found = nullptr;
    for (const auto& w : report.workloads)
      if (w.name == e.workload) found = &w;
    if (!found)
      bad_expect(e.key + "=" + e.workload,
                 fmt::format("no workload {} in the manifests ({} workloads read)", e.workload,
                             report.workloads.size()));
    out.push_back({&e, found});
  }
  return out;
}

std::string expectations_text(const std::vector<Checked>& checked) {
  std::string out = "\nExpectations:\n";
  for (const auto& c : checked)
    out +=
        fmt::format("  {} {}: {}{}\n", c.expectation->key, c.expectation->workload,
                    c.met() ? "met" : "NOT MET, it is " + c.workload->state,
                    c.met() || c.workload->message.empty() ? "" : " (" + c.workload->message + ")");
  return out;
}

// The manifests to run. A scenario folder (its kmc.yaml) of one cluster is
// that cluster's: read as kmc check reads it, not as a folder of manifests
// where kmc.yaml would be an unknown kind and the cluster/ folder unread.
model::ClusterManifests admitted_manifests(const std::vector<std::string>& paths) {
  if (paths.size() == 1 && std::filesystem::is_directory(paths.front()) &&
      std::filesystem::exists(std::filesystem::path(paths.front()) / "kmc.yaml")) {
    model::Scenario sc = model::load_scenario(paths.front());
    if (!sc.workers.empty())
      throw model::InputError(
          sc.fleet.protocol_pos, "protocol",
          fmt::format("{} has a manager and workers; run kmc admit on one of their folders",
                      paths.front()));
    return std::move(sc.manager);
  }
  return model::load_cluster_manifests(paths);
}

}  // namespace

void add_admit_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "admit", "run one cluster's Kueue manifests through the reference admission engine");
  struct Options {
    std::vector<std::string> paths;
    std::optional<std::string> cycles;  // unset: until nothing changes
    std::string output = "text";
    std::vector<std::string> expect;
    bool strict = false;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("paths", opts->paths, "manifest files or folders; - reads standard input")
      ->required();
  cmd->add_option("--cycles", opts->cycles,
                  "scheduling cycles to run (default: until nothing changes)");
  cmd->add_option("--output", opts->output, "text or json");
  cmd->add_option("--expect", opts->expect,
                  "STATE=NAMESPACE/NAME[,...] (admitted, pending, quota-reserved, evicted, "
                  "finished): exit 1 unless each workload ends so (repeatable)");
  cmd->add_flag("--strict", opts->strict,
                "Refuse (exit 3) any input kmc would ignore although it could change the answer");
  cmd->callback([opts, &exit_code] {
    exit_code = guarded([&] {
      const long cycles_asked = integer_option("--cycles", opts->cycles, 0).value_or(-1);
      choice_option("--output", opts->output, {"text", "json"});
      const auto expectations = parse_expectations(opts->expect);
      model::ClusterManifests manifests = admitted_manifests(opts->paths);
      for (auto& d :
           model::unread_gates(manifests.configuration, "the engine", engine::Engine::reads_gate))
        manifests.warnings.push_back(std::move(d));
      for (const auto& line : model::review_warnings(manifests.warnings, opts->strict))
        std::cerr << "warning: " << line << "\n";
      engine::EngineOptions o;
      o.pods_ready_as_loaded = true;  // a dump's PodsReady False is the pods' state
      engine::Engine e(manifests, o);
      // Jobs in manifests have no known runtime: admitted ones keep running, so the
      // run ends when the scheduler has nothing left to change.
      const long cycles = e.run(cycles_asked);
      const engine::AdmitReport report = engine::make_report(e, cycles);
      const auto checked = check_expectations(expectations, report);
      bool all_met = true;
      for (const auto& c : checked) all_met = all_met && c.met();
      if (opts->output == "json") {
        auto j = engine::to_json(report);
        if (!checked.empty()) {
          j["expectations"] = nlohmann::json::array();
          for (const auto& c : checked)
            j["expectations"].push_back({{"workload", c.expectation->workload},
                                         {"expected", c.expectation->state},
                                         {"actual", c.workload->state},
                                         {"met", c.met()}});
        }
        std::cout << j.dump(2) << "\n";
      } else {
        std::cout << engine::to_text(report);
        if (!checked.empty()) std::cout << expectations_text(checked);
      }
      return all_met ? 0 : 1;
    });
  });
}

}  // namespace kmc::cli
