// `kmc check DIR`: a scenario against its properties. The pipeline itself is
// counterexamples/pipeline.hpp; this file parses arguments and prints.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <new>
#include <thread>

#include "checker/memory.hpp"
#include "cli/check_report.hpp"
#include "cli/ci_report.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/protocols.hpp"
#include "cli/stop_signals.hpp"
#include "counterexamples/itf.hpp"
#include "counterexamples/pipeline.hpp"
#include "counterexamples/timeline.hpp"
#include "model/scenario.hpp"

namespace kmc::cli {

namespace {

struct CheckArgs {
  std::string dir;
  std::vector<std::string> properties;
  // Numbers as text, converted by cli/options.hpp: bad values are exit 3 alike in every command.
  std::optional<std::string> max_depth, max_states, time_limit_s;
  std::optional<std::string> max_memory;  // a size (checker::parse_size); unset: the default
  std::string threads = "1";
  std::string output = "text";
  std::string engine = "explicit";  // or bmc, induction: the SMT engines (checker/smt_engines.hpp)
  std::string trace_out;
  std::string replay;
  bool replay_engine = false;   // re-execute the violation in the reference engine
  bool no_shrink = false;       // print the checker's own (BFS) trace
  bool no_symmetry = false;     // search every state, not one per orbit of interchangeable workers
  bool por = false;             // expand a stubborn subset of the enabled actions where sound
  bool strict = false;          // refuse input kmc would ignore although it could change the answer
  std::string shrink_scenario;  // also leave out jobs and workers; write the reduced scenario here
};

// A search deeper than this is not a bound anyone means; threads past this are not cores.
constexpr std::int64_t kMaxDepth = 1'000'000'000, kMaxThreads = 4096;

[[noreturn]] void usage_error(const std::string& option, const std::string& message) {
  throw model::InputError({}, option, message);
}

cx::CheckRequest request_of(const CheckArgs& a) {
  // A bound given on the command line means what it says; nonsense is a usage error, never a
  // fallback.
  const auto max_depth = integer_option("--max-depth", a.max_depth, 0, kMaxDepth);
  const auto max_states = integer_option("--max-states", a.max_states, 0);
  const int threads = static_cast<int>(integer_option("--threads", a.threads, 0, kMaxThreads));
  cx::CheckRequest r;
  r.time_limit_s = seconds_option("--time-limit", a.time_limit_s);
  r.max_memory_bytes = memory_option("--max-memory", a.max_memory);
  r.properties = a.properties;
  if (max_depth) r.max_depth = static_cast<int>(*max_depth);
  if (max_states) r.max_states = static_cast<std::uint64_t>(*max_states);
  r.threads =
      threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  r.stop = stop_requested;
  r.replay_token = a.replay;
  r.shrink = !a.no_shrink;
  r.symmetry = !a.no_symmetry;
  r.por = a.por;
  choice_option("--engine", a.engine, {"explicit", "bmc", "induction"});
  if (a.engine == "bmc") r.smt = checker::SmtEngine::Bmc;
  if (a.engine == "induction") r.smt = checker::SmtEngine::Induction;
  r.shrink_scenario = a.shrink_scenario;
  r.replay_engine = a.replay_engine;
  r.warn = [strict = a.strict](const model::Warnings& ws) {
    for (const auto& line : model::review_warnings(ws, strict))
      fmt::print(stderr, "warning: {}\n", line);
  };
  return r;
}

// Progress on stderr, with the memory bound the search runs under (--max-memory, else
// kmc.yaml's check.maxMemory, else the default).
void report_progress(cx::CheckRequest& r, const model::CheckSpec& spec) {
  const std::size_t memory = cx::memory_bound(r, spec);
  const std::string bound = memory ? fmt::format("bound {} MiB", memory >> 20) : "no bound";
  r.progress = [bound](const checker::Progress& p) {
    if (p.seconds < 1.0) return;  // only runs over a second report progress
    fmt::print(stderr,
               "progress: {} states, {} transitions, depth {}, {:.0f} states/s, {} MiB resident "
               "({})\n",
               p.states, p.transitions, p.depth, p.seconds > 0 ? p.states / p.seconds : 0.0,
               p.rss_bytes >> 20, bound);
  };
}

// One CI test case per property: the violated one carries the trace's story and the manifests it
// involves; an Incomplete one says which bound stopped it.
std::vector<CiCase> ci_cases(const cx::CheckOutcome& o, const model::Scenario* sc) {
  std::vector<CiCase> cases;
  const auto& r = o.result;
  for (std::size_t i = 0; i < r.properties.size(); ++i) {
    const auto& p = r.properties[i];
    CiCase c;
    c.group = o.scenario;
    c.name = c.rule = p.name;
    c.description = i < o.descriptions.size() ? o.descriptions[i] : "";
    c.verdict = p.verdict;
    c.seconds = r.stats.seconds;
    if (p.verdict == checker::Verdict::Incomplete)
      c.message =
          r.incomplete_reason.empty() ? "not examined" : "stopped by " + r.incomplete_reason;
    if (p.verdict == checker::Verdict::Vacuous) c.message = checker::why(p.verdict);
    if (r.violation && r.violation->property == p.name) {
      c.message = r.violation->detail.empty() ? c.description : r.violation->detail;
      if (o.trace) {
        c.story = cx::render_timeline(*o.trace);
        if (sc) c.locations = involved_objects(*sc, *o.trace);
      }
      if (!o.token.empty())
        c.story += fmt::format("\nReplay: kmc check {} --replay {}\n", o.token_dir(), o.token);
    }
    if (c.locations.empty() && sc && p.verdict != checker::Verdict::Verified)
      c.locations = {sc->fleet.pos};
    cases.push_back(std::move(c));
  }
  return cases;
}

int emit(const CheckArgs& a, const cx::CheckOutcome& o, const model::Scenario* sc) {
  if (!a.trace_out.empty() && o.trace) {
    std::ofstream f(a.trace_out);
    if (!f) usage_error("--trace-out", "cannot write " + a.trace_out);
    f << cx::itf_text(cx::to_itf(*o.trace, o.token_dir(), o.token)) << "\n";
  }
  if (a.output == "junit") {
    std::cout << to_junit("kmc check " + o.scenario, ci_cases(o, sc));
  } else if (a.output == "sarif") {
    std::cout << to_sarif(ci_cases(o, sc)).dump(2) << "\n";
  } else if (a.output == "json") {
    std::cout << render_json(o).dump(2) << "\n";
  } else {
    std::cout << render_text(o);
    if (o.engine) std::cout << "\n" << o.engine->text;
  }
  return exit_code_of(o.result.verdict);
}

// The last resort when memory runs out past the search (which reports that itself): shrinking,
// the trace, the engine replay. Incomplete with what is known, never an abort with nothing.
cx::CheckOutcome out_of_memory(const CheckArgs& a) {
  checker::release_reserve();
  cx::CheckOutcome o;
  o.scenario = a.dir;
  o.summary = "(out of memory after the search; its result is lost)";
  o.result.verdict = checker::Verdict::Incomplete;
  o.result.stats.peak_rss_bytes = checker::peak_resident_bytes();
  o.result.incomplete_reason = "an allocation failure (out of memory at peak resident " +
                               checker::format_size(o.result.stats.peak_rss_bytes) + ")";
  return o;
}

int run_check(const CheckArgs& a) {
  choice_option("--output", a.output, {"text", "json", "junit", "sarif"});
  cx::CheckRequest request = request_of(a);  // every option read before any input
  // From here on, SIGINT and SIGTERM stop the search and print what it found so far.
  const StopOnSignals signals;
  checker::hold_reserve();
  const model::Scenario sc = load_checked_scenario(a.dir);
  const ProtocolEntry& protocol = protocol_of(sc);
  report_progress(request, sc.fleet.check);
  std::optional<cx::CheckOutcome> outcome;
  try {
    outcome = protocol.check(sc, request);
  } catch (const std::bad_alloc&) {
    outcome = out_of_memory(a);
  }
  return emit(a, *outcome, &sc);
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand("check", "Check a scenario folder against its properties");
  cmd->add_option("dir", args->dir, "Scenario folder (kmc.yaml, manager/, workers/<cluster>/)")
      ->required();
  cmd->add_option("--property", args->properties, "Check only this property (repeatable)");
  cmd->add_option("--max-depth", args->max_depth,
                  "Stop after this many steps (Incomplete, never Verified)");
  cmd->add_option("--max-states", args->max_states, "Stop after storing this many states");
  cmd->add_option("--time-limit", args->time_limit_s, "Stop after this many seconds");
  cmd->add_option("--max-memory", args->max_memory,
                  fmt::format("Stop when the process's resident memory reaches SIZE (512M, 8G, "
                              "2GiB: powers of 1024; or bytes). Default: {}% of physical memory "
                              "(or of the cgroup's limit, if lower): {} here",
                              checker::kDefaultMemoryPercent,
                              checker::format_size(checker::default_memory_bound())))
      ->option_text("SIZE");
  cmd->add_option("--threads", args->threads,
                  "Worker threads (0: all cores); results do not depend on it");
  cmd->add_option("--engine", args->engine,
                  "explicit (default), bmc (bounded model checking: shortest violations of the "
                  "always properties, step by step up to --max-depth, default 20) or induction "
                  "(k-induction: proofs for every depth); graph properties stay with explicit "
                  "search");
  cmd->add_option("--output", args->output,
                  "text, json, junit (a testcase per property) or sarif (results at the "
                  "manifests' lines)");
  cmd->add_option("--trace-out", args->trace_out,
                  "Write the counterexample as ITF JSON to this file");
  cmd->add_option("--replay", args->replay,
                  "Re-run the path of a replay token printed by an earlier check");
  cmd->add_flag("--replay-engine", args->replay_engine,
                "Re-execute the violation in the reference admission engine: Reproduced or "
                "Diverged (kmc replay)");
  cmd->add_flag("--strict", args->strict,
                "Refuse (exit 3) any input kmc would ignore although it could change the answer");
  cmd->add_flag("--no-symmetry", args->no_symmetry,
                "Search every state, not one per orbit of interchangeable workers (to compare)");
  cmd->add_flag("--por", args->por,
                "Partial-order reduction: expand a stubborn subset of the enabled actions, for "
                "deadlock and the always and sometimes properties (see the README)");
  cmd->add_flag("--no-shrink", args->no_shrink,
                "Print and save the checker's own (shortest-by-BFS) trace, unshrunk");
  cmd->add_option("--shrink-scenario", args->shrink_scenario,
                  "Also leave out the jobs and workers the violation does not need; write that "
                  "scenario to this new folder")
      ->excludes("--no-shrink");
  cmd->callback([args, &exit_code] { exit_code = guarded([&] { return run_check(*args); }); });
}

}  // namespace kmc::cli
