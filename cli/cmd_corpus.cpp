// `kmc corpus check [DIR]`: the regression suite of known bugs. Each entry
// folder holds a scenario/, its shrunk trace.itf.json, and expect.yaml (the
// property, the model's verdict, the engine replay's verdict). Every entry is
// re-run in the model (a fresh check, and the stored trace must still be a
// path of the model through the same states) and in the engine; any change
// fails the run (exit 1). Bad entries are exit 3.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>

#include "cli/check_one.hpp"
#include "cli/ci_report.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/token_trace.hpp"
#include "counterexamples/multikueue/engine_replay.hpp"
#include "counterexamples/multikueue/model_replay.hpp"
#include "counterexamples/multikueue/render.hpp"
#include "counterexamples/multikueue/replay_setup.hpp"
#include "counterexamples/render_generic.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cli {

namespace {

namespace fs = std::filesystem;

struct Expectation {
  std::string property, model, replay;
};

Expectation read_expectation(const fs::path& file) {
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    throw model::InputError({file.string(), e.mark.line + 1}, "", e.msg);
  }
  auto field = [&](const char* key, std::vector<std::string> allowed) {
    const YAML::Node n = doc[key];
    const int line = n.IsDefined() ? n.Mark().line + 1 : 1;
    if (!n.IsDefined() || !n.IsScalar())
      throw model::InputError({file.string(), line}, key, "required");
    const std::string v = n.as<std::string>();
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), v) == allowed.end())
      throw model::InputError({file.string(), line}, key,
                              fmt::format("expected one of {}", fmt::join(allowed, ", ")));
    return v;
  };
  return {field("property", {}), field("model", {"Verified", "Violated", "Incomplete", "Vacuous"}),
          // None: the protocol has no reference engine (kube-scheduler).
          field("replay", {"Reproduced", "Diverged", "None"})};
}

struct EntryResult {
  std::string name, property;
  std::string model_expected, model_actual;
  std::string replay_expected, replay_actual;
  std::string trace_problem;    // the stored trace no longer matches the model
  std::size_t fresh_steps = 0;  // the length of the trace a fresh check finds (0: none)
  std::size_t steps = 0;
  double check_s = 0, replay_s = 0;
  bool ok() const {
    return model_expected == model_actual && replay_expected == replay_actual &&
           trace_problem.empty();
  }
};

// The verdict an entry records for its property: the run's, naming another property that failed
// first, or Vacuous, the property's own, which fails no run (a run with it is Verified).
std::string model_verdict(const checker::Result& r, const std::string& property) {
  for (const auto& p : r.properties)
    if (p.name == property && p.verdict == checker::Verdict::Vacuous && !r.violation)
      return checker::to_string(p.verdict);
  std::string out = checker::to_string(r.verdict);
  if (r.violation && r.violation->property != property) out += " (" + r.violation->property + ")";
  return out;
}

// An entry of a protocol without readers of its own, through its token
// (cli/token_trace.hpp): the stored states must be what the token gives in
// today's model, the diagram what kmc render draws, and the engine replay
// is the protocol's own (--replay-engine).
std::optional<EntryResult> check_token_entry(const fs::path& dir, const Expectation& want,
                                             double time_limit_s, EntryResult e) {
  const std::string file = (dir / "trace.itf.json").string(),
                    scenario = (dir / "scenario").string();
  if (!fs::is_regular_file(dir / "scenario" / "kmc.yaml")) return std::nullopt;
  const model::Scenario sc = load_checked_scenario(scenario);
  const ProtocolEntry& protocol = protocol_of(sc);
  if (protocol.name == "multikueue") return std::nullopt;
  auto t0 = std::chrono::steady_clock::now();
  try {
    const cx::ItfDocument itf = cx::load_itf(file);
    const auto t = read_token_trace(itf, protocol.engine, scenario);
    if (!t) cx::itf_error(itf, "#meta", "names no scenario and no replay token");
    e.replay_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    e.steps = t->outcome.trace->steps.size() - 1;
    e.replay_actual = !protocol.engine                                     ? "None"
                      : t->outcome.engine && t->outcome.engine->reproduced ? "Reproduced"
                                                                           : "Diverged";
    std::ifstream in(dir / "trace.mmd");
    const std::string drawn((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (fs::exists(dir / "trace.mmd") &&
        drawn != cx::render_generic(*t->outcome.trace, cx::RenderFormat::Mermaid,
                                    "kmc check " + t->named + " --replay " + t->token))
      e.trace_problem =
          "trace.mmd is not what kmc render draws from trace.itf.json (kmc render trace.itf.json "
          "--format mermaid)";
  } catch (const model::InputError& err) {
    e.trace_problem = "the stored trace no longer matches the model: " + err.diagnostic.to_string();
  }
  t0 = std::chrono::steady_clock::now();
  cx::CheckRequest req;
  req.properties = {want.property};
  req.time_limit_s = time_limit_s;
  const cx::CheckOutcome fresh = protocol.check(sc, req);
  e.model_actual = model_verdict(fresh.result, want.property);
  if (fresh.result.violation) e.fresh_steps = fresh.result.violation->path.choices.size();
  e.check_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return e;
}

EntryResult check_entry(const fs::path& dir, double time_limit_s) {
  EntryResult e;
  e.name = dir.filename().string();
  const Expectation want = read_expectation(dir / "expect.yaml");
  e.property = want.property;
  e.model_expected = want.model;
  e.replay_expected = want.replay;
  if (auto generic = check_token_entry(dir, want, time_limit_s, e)) return *generic;
  const cx::ItfDocument itf = cx::load_itf((dir / "trace.itf.json").string());
  const cx::ReplayTarget target = cx::load_replay_target(itf, (dir / "scenario").string());
  const protocols::MultiKueue mk(target.params);
  e.steps = itf.doc.at("states").size() - 1;
  if (auto diff = cx::model_difference(mk, itf))
    e.trace_problem = "the stored trace no longer matches the model: " + *diff;
  // The committed diagram must be what kmc render draws from the committed trace.
  if (fs::exists(dir / "trace.mmd")) {
    std::ifstream in(dir / "trace.mmd");
    const std::string drawn((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (drawn != cx::render_trace(itf, cx::RenderFormat::Mermaid))
      e.trace_problem =
          "trace.mmd is not what kmc render draws from trace.itf.json (kmc render trace.itf.json "
          "--format mermaid)";
  }

  auto t0 = std::chrono::steady_clock::now();
  const checker::Result r = check_property(mk, target.scenario, want.property, time_limit_s);
  e.model_actual = model_verdict(r, want.property);
  if (r.violation) e.fresh_steps = r.violation->path.choices.size();
  e.check_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const cx::EngineReplay replay = cx::replay_in_engine(target.scenario, target.params, itf);
  e.replay_actual = cx::to_string(replay.verdict);
  e.replay_s = replay.seconds;
  return e;
}

void print(const std::vector<EntryResult>& results) {
  fmt::print(
      "| entry | property | steps | model | engine replay | check s | replay ms "
      "|\n|---|---|---|---|---|---|---|\n");
  for (const auto& e : results) {
    auto verdict = [](const std::string& want, const std::string& got) {
      return want == got ? got : fmt::format("**{} (expected {})**", got, want);
    };
    fmt::print("| {} | {} | {} | {} | {} | {:.2f} | {:.1f} |\n", e.name, e.property, e.steps,
               verdict(e.model_expected, e.model_actual),
               verdict(e.replay_expected, e.replay_actual), e.check_s, e.replay_s * 1000);
  }
  for (const auto& e : results) {
    if (!e.trace_problem.empty()) fmt::print("{}: {}\n", e.name, e.trace_problem);
    // Not a failure: the stored trace is still a violation, but a shorter one is
    // there to be had (regenerate with scripts/corpus-entry.sh).
    if (e.fresh_steps > 0 && e.fresh_steps < e.steps)
      fmt::print("{}: note: a fresh check finds a {}-step trace, shorter than the stored {}\n",
                 e.name, e.fresh_steps, e.steps);
  }
}

// An entry is a CI test case that passes when nothing changed; a change is a failure located at
// the entry's expect.yaml.
std::vector<CiCase> ci_cases(const fs::path& corpus, const std::vector<EntryResult>& results) {
  std::vector<CiCase> cases;
  for (const auto& e : results) {
    CiCase c;
    c.group = "kmc corpus check " + corpus.string();
    c.name = e.name;
    c.rule = "corpus-entry-changed";
    c.description = "a corpus entry's verdicts and trace are what expect.yaml records";
    c.verdict = e.ok() ? checker::Verdict::Verified : checker::Verdict::Violated;
    c.seconds = e.check_s + e.replay_s;
    if (!e.ok()) {
      c.message = fmt::format("{}: model {} (expected {}), engine replay {} (expected {}){}",
                              e.property, e.model_actual, e.model_expected, e.replay_actual,
                              e.replay_expected, e.trace_problem.empty() ? "" : "; trace changed");
      c.story = e.trace_problem;
      c.locations = {{(corpus / e.name / "expect.yaml").string(), 1}};
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace

void add_corpus_command(CLI::App& app, int& exit_code) {
  auto* corpus = app.add_subcommand("corpus", "the regression suite of counterexample traces");
  corpus->require_subcommand(1);
  auto* cmd = corpus->add_subcommand(
      "check", "re-run every corpus entry in the model and in the engine; fail on any change");
  struct Options {
    std::string dir = "counterexamples/corpus";
    std::string time_limit = "120";  // seconds (cli/options.hpp)
    std::string output = "markdown";
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("dir", opts->dir, "the corpus folder (default: counterexamples/corpus)");
  cmd->add_option("--time-limit", opts->time_limit, "seconds per model check");
  cmd->add_option("--output", opts->output, "markdown, junit or sarif");
  cmd->callback([opts, &exit_code] {
    exit_code = guarded([&] {
      const double time_limit_s = seconds_option("--time-limit", opts->time_limit);
      choice_option("--output", opts->output, {"markdown", "junit", "sarif"});
      if (!fs::is_directory(opts->dir))
        throw model::InputError({opts->dir, 0}, "", "corpus folder not found");
      std::vector<fs::path> entries;
      for (const auto& d : fs::directory_iterator(opts->dir))
        if (d.is_directory()) entries.push_back(d.path());
      std::sort(entries.begin(), entries.end());
      if (entries.empty()) throw model::InputError({opts->dir, 0}, "", "the corpus has no entries");
      std::vector<EntryResult> results;
      for (const auto& dir : entries) {
        results.push_back(check_entry(dir, time_limit_s));
        fmt::print(stderr, "{}: model {}, engine {}\n", results.back().name,
                   results.back().model_actual, results.back().replay_actual);
      }
      const auto changed =
          std::count_if(results.begin(), results.end(), [](const auto& e) { return !e.ok(); });
      if (opts->output == "junit") {
        fmt::print("{}", to_junit("kmc corpus check " + opts->dir, ci_cases(opts->dir, results)));
        return changed == 0 ? 0 : 1;
      }
      if (opts->output == "sarif") {
        fmt::print("{}\n", to_sarif(ci_cases(opts->dir, results)).dump(2));
        return changed == 0 ? 0 : 1;
      }
      print(results);
      fmt::print("{} entr{}, {} changed\n", results.size(), results.size() == 1 ? "y" : "ies",
                 changed);
      return changed == 0 ? 0 : 1;
    });
  });
}

}  // namespace kmc::cli
