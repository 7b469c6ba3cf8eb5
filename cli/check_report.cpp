#include "cli/check_report.hpp"

#include <fmt/format.h>

#include "counterexamples/itf.hpp"
#include "counterexamples/timeline.hpp"

namespace kmc::cli {

namespace {

const char* kind_name(model::PropertyKind k) {
  switch (k) {
    case model::PropertyKind::Always:
      return "always";
    case model::PropertyKind::Sometimes:
      return "sometimes";
    case model::PropertyKind::StuckFree:
      return "stuck-free";
    case model::PropertyKind::LeadsTo:
      return "leads-to";
    case model::PropertyKind::RecurrenceFree:
      return "recurrence-free";
  }
  return "?";
}

// How an SMT engine decided a property, in JSON: {"method": "k-induction", "k": N}, or
// "bmc-complete" with the depth no simple path reaches, or "bmc" with the depth of the violation
// or witness; null for explicit search.
nlohmann::json proof_json(const checker::PropertyResult& p) {
  if (p.method.empty()) return nullptr;
  return {{"method", p.method}, {"k", p.k}};
}

// What an Incomplete search proved (issue 13: a bound is not silence): every behaviour of up to
// its explored depth, so the always properties that did not fail hold that far; the others wait
// on the whole graph.
struct Proven {
  std::vector<std::string> within, undecided;
  std::vector<std::string> why;  // per undecided property
};
Proven proven_of(const checker::Result& r) {
  Proven p;
  for (const auto& prop : r.properties) {
    if (prop.verdict != checker::Verdict::Incomplete) continue;
    if (prop.kind == model::PropertyKind::Always) {
      p.within.push_back(prop.name);
      continue;
    }
    p.undecided.push_back(prop.name);
    p.why.push_back(prop.kind == model::PropertyKind::Sometimes
                        ? fmt::format("not witnessed within {} steps", r.explored_depth)
                        : std::string("decided on the whole state graph only"));
  }
  return p;
}

// What to try when a search stops on a bound, beyond raising it: the reductions that were refused
// and why, and splitting the fleet where its parts share nothing.
std::vector<std::string> suggestions(const CheckOutcome& o) {
  const auto& r = o.result;
  std::vector<std::string> out;
  out.push_back(
      "raise the bound that stopped the run (--time-limit, --max-states, --max-memory, "
      "--max-depth), or give --threads 0 to use every core");
  const auto p = proven_of(r);
  for (const auto& line : r.reductions)
    if (line.rfind("symmetry not used", 0) == 0 && !p.within.empty())
      out.push_back(fmt::format(
          "check the always properties alone, where symmetry reduction applies: kmc check {} "
          "--property {}",
          o.scenario, fmt::join(p.within, " --property ")));
  bool bmc_open = false;
  for (const auto& prop : r.properties)
    bmc_open = bmc_open || (prop.engine == "bmc" && prop.verdict == checker::Verdict::Incomplete);
  if (bmc_open)
    out.push_back(
        fmt::format("prove the always properties for every depth: kmc check {} --engine induction",
                    o.scenario));
  if (!r.induction_counterexample.empty())
    out.push_back(
        "k-induction needs a stronger invariant: the counterexample to induction above is a state "
        "no reachable behaviour may reach; a property that rules it out makes the proof go "
        "through");
  out.push_back(
      "split the fleet into scenarios that share nothing (one per cohort, or per ClusterQueue "
      "with its jobs and workers): independent parts multiply each other's states");
  if (p.undecided.size() + p.within.size() > 1)
    out.push_back("check one property at a time (--property): each search keeps less");
  return out;
}

// What a user does after reading the report (issue 15: every report of a violation ends with
// What to change when no behaviour reaches a "sometimes" guard, by what the guard asks for.
std::string unwitnessed_advice(const std::string& property) {
  if (property == "some-job-runs")
    return "Make the jobs fit: their requests within some ClusterQueue's quota and some "
           "worker's capacity.";
  if (property == "some-workload-admitted")
    return "Make a workload fit: its requests within its ClusterQueue's quota, borrowing "
           "included.";
  if (property == "some-preemption")
    return "Make a preemption possible: a waiting workload whose ClusterQueue's preemption "
           "policy (withinClusterQueue, reclaimWithinCohort, borrowWithinCohort) lets it evict "
           "a workload holding quota, or leave the guard out with --property.";
  return "Check that what it asks for can happen in this scenario.";
}

// what to do next), in commands they can paste.
std::string next_steps(const CheckOutcome& o) {
  const auto& r = o.result;
  std::string out;
  if (r.violation && !o.token.empty()) {
    const std::string replay = fmt::format("kmc check {} --replay {}", o.token_dir(), o.token);
    out += "\nNext:\n";
    out += fmt::format("  {} --trace-out trace.itf.json && kmc render trace.itf.json\n", replay);
    out += "      draws the trace as a sequence diagram\n";
    if (!o.engine && o.has_engine)
      out += fmt::format(
          "  {} --replay-engine\n      re-executes it in the reference admission "
          "engine (Reproduced or Diverged)\n",
          replay);
    out += fmt::format(
        "  change the scenario, then kmc diff {} FIXED\n      shows which verdicts the fix "
        "turns\n",
        o.scenario);
  } else if (r.violation) {
    // No token: a "sometimes" property that no behaviour reaches is decided by the whole search,
    // and no single path replays it.
    out += fmt::format(
        "\nNext: no behaviour reaches it, so there is no trace or token to replay (only a whole "
        "search decides that; kmc check {} --property {} re-decides it). {}\n",
        o.scenario, r.violation->property, unwitnessed_advice(r.violation->property));
  } else if (r.verdict == checker::Verdict::Incomplete) {
    out += "\nNext:\n";
    for (const auto& line : suggestions(o)) out += "  " + line + "\n";
  }
  return out;
}

// The engine replay's verdict for the Result line (issue 12d): a violation the engine does not
// reproduce says so where the verdict is read, not only in the replay printed after it.
std::string engine_verdict(const cx::EngineReport& e) {
  if (e.reproduced) return "Reproduced in the engine";
  const auto& d = e.json.value("diverged", nlohmann::json::object());
  std::string out = "Diverged in the engine";
  if (d.contains("step"))
    out += fmt::format(" at step {}, {}: {}", d["step"].dump(), d.value("action", ""),
                       d.value("engine", ""));
  return out + "; the model and the engine disagree, see the replay below";
}

}  // namespace

std::string method_words(const checker::PropertyResult& p) {
  if (p.method == "k-induction")
    return fmt::format("proven for every depth by k-induction, k = {}", p.k);
  if (p.method == "bmc-complete")
    return p.verdict == checker::Verdict::Verified
               ? fmt::format(
                     "holds for every depth: no path of {} steps without a repeated state "
                     "(bounded model checking reached the recurrence diameter)",
                     p.k)
               : fmt::format("never holds: every reachable state lies within {} steps", p.k - 1);
  if (p.method == "bmc")
    return fmt::format("{} at depth {} (bounded model checking)",
                       p.kind == model::PropertyKind::Always ? "violated" : "witnessed", p.k);
  return {};
}

int exit_code_of(checker::Verdict v) {
  switch (v) {
    case checker::Verdict::Verified:
      return 0;
    case checker::Verdict::Violated:
      return 1;
    case checker::Verdict::Incomplete:
      return 2;
    case checker::Verdict::Vacuous:
      // Only a property's verdict, never a run's (result.hpp); were it one, it would fail nothing.
      return 0;
  }
  return 2;
}

std::string stats_line(const checker::Stats& s) {
  return fmt::format(
      "{} states, {} transitions, depth {}; {:.3f} s, {:.0f} states/s, {:.1f} bytes/state "
      "(peak RSS {} MiB), fingerprint collision probability {:.1e}",
      s.states, s.transitions, s.depth, s.seconds, s.states_per_s, s.bytes_per_state,
      s.peak_rss_bytes >> 20, s.collision_probability);
}

std::string render_text(const CheckOutcome& o) {
  const auto& r = o.result;
  std::string out = fmt::format("kmc check {}\n{}\n", o.scenario, o.summary);
  if (o.token_replayed)
    out += r.violation ? "Replayed the token: the violation reproduces.\n"
                       : "Replayed the token: the property holds at its end; the violation does "
                         "not reproduce.\n";
  out += "\n";
  if (r.violation) {
    const std::size_t k = [&] {
      for (std::size_t i = 0; i < r.properties.size(); ++i)
        if (r.properties[i].name == r.violation->property) return i;
      return std::size_t{0};
    }();
    out += fmt::format("Property {} is violated ({}).\n", r.violation->property,
                       k < o.descriptions.size() ? o.descriptions[k] : r.violation->property);
    if (!r.violation->detail.empty()) out += r.violation->detail + ".\n";
    if (!o.why.empty()) {
      out += "Why, in Kueue's words (the reference engine on each cluster alone):\n";
      for (const auto& line : o.why) out += "  " + line + "\n";
    }
    // Appended in two steps, not `"\n" + text`: GCC 12 at -O3 warns -Wrestrict, falsely, inside
    // libstdc++'s operator+(const char*, string&&) (GCC bugs 105329, 105651).
    if (o.shrink) {
      out += "\n";
      out += cx::describe(*o.shrink);
    }
    if (!o.replay_dir.empty())
      out +=
          fmt::format("The scenario without them is in {}; the trace and its token are for it.\n",
                      o.replay_dir);
    if (o.trace) {
      out += "\n";
      out += cx::render_timeline(*o.trace);
    }
    out += "\n";
  }
  out += "Properties:\n";
  std::size_t width = 0;
  for (const auto& p : r.properties) width = std::max(width, p.name.size());
  for (const auto& p : r.properties) {
    out += fmt::format("  {:<{}}  {:<10}  ({})", p.name, width, checker::to_string(p.verdict),
                       kind_name(p.kind));
    if (*checker::why(p.verdict)) out += fmt::format(": {}", checker::why(p.verdict));
    if (const auto how = method_words(p); !how.empty()) out += ": " + how;
    out += "\n";
  }
  for (std::size_t i = 0; i < r.engines.size(); ++i)
    out += fmt::format("{}{}\n", i == 0 ? "Engines: " : "         ", r.engines[i]);
  if (!r.induction_counterexample.empty()) {
    out += "Counterexample to induction (add an invariant that rules out the first state):\n";
    for (const auto& line : r.induction_counterexample) out += "  " + line + "\n";
  }
  if (!r.assumptions.empty())
    out += fmt::format("Fairness assumed: {}\n", fmt::join(r.assumptions, ", "));
  // Which reductions ran, and which could not and why: a state count is read against them.
  for (std::size_t i = 0; i < r.reductions.size(); ++i)
    out += fmt::format("{}{}\n", i == 0 ? "Reductions: " : "            ", r.reductions[i]);
  out += fmt::format("\nResult: {}", checker::to_string(r.verdict));
  if (o.engine) out += " (" + engine_verdict(*o.engine) + ")";
  if (r.verdict == checker::Verdict::Incomplete && r.explored_depth < 0)
    out += fmt::format(" (stopped by {}; nothing is proven)", r.incomplete_reason);
  else if (r.verdict == checker::Verdict::Incomplete)
    out += fmt::format(
        " (stopped by {}; every state within {} steps checked, nothing is proven "
        "beyond)",
        r.incomplete_reason, r.explored_depth);
  if (r.verdict == checker::Verdict::Incomplete && r.explored_depth >= 0) {
    const auto p = proven_of(r);
    if (!p.within.empty())
      out += fmt::format(
          "\nProven: every behaviour of up to {} steps explored: no violation of {} "
          "within {} steps",
          r.explored_depth, fmt::join(p.within, ", "), r.explored_depth);
    for (std::size_t i = 0; i < p.undecided.size(); ++i)
      out += fmt::format("{}{} ({})", i == 0 ? "\nUndecided: " : ", ", p.undecided[i], p.why[i]);
  }
  if (r.stats.states == 0 && !r.engines.empty())  // no explicit search ran: no states to count
    out += fmt::format(
        "\nStats: no states stored (an SMT engine decided every property); {:.3f} s, peak RSS {} "
        "MiB\n",
        r.stats.seconds, r.stats.peak_rss_bytes >> 20);
  else
    out += "\nStats: " + stats_line(r.stats) + "\n";
  if (!o.token.empty())
    out += fmt::format("Replay: kmc check {} --replay {}\n", o.token_dir(), o.token);
  out += next_steps(o);
  return out;
}

nlohmann::json render_json(const CheckOutcome& o) {
  const auto& r = o.result;
  nlohmann::json j;
  j["scenario"] = o.scenario;
  j["verdict"] = checker::to_string(r.verdict);
  j["property"] = r.violation ? nlohmann::json(r.violation->property) : nlohmann::json(nullptr);
  j["detail"] = r.violation ? nlohmann::json(r.violation->detail) : nlohmann::json(nullptr);
  j["shape"] = r.violation ? nlohmann::json(checker::to_string(r.violation->shape))
                           : nlohmann::json(nullptr);
  j["incomplete"] = r.verdict == checker::Verdict::Incomplete ? nlohmann::json(r.incomplete_reason)
                                                              : nlohmann::json(nullptr);
  // What an Incomplete search proved: every state within this many steps checked (-1: none).
  j["exploredDepth"] = r.verdict == checker::Verdict::Incomplete ? nlohmann::json(r.explored_depth)
                                                                 : nlohmann::json(nullptr);
  nlohmann::json props = nlohmann::json::array();
  for (std::size_t i = 0; i < r.properties.size(); ++i)
    props.push_back(
        {{"name", r.properties[i].name},
         {"kind", kind_name(r.properties[i].kind)},
         {"verdict", checker::to_string(r.properties[i].verdict)},
         {"description", i < o.descriptions.size() ? o.descriptions[i] : ""},
         {"why", *checker::why(r.properties[i].verdict)
                     ? nlohmann::json(checker::why(r.properties[i].verdict))
                     : nlohmann::json(nullptr)},
         {"engine", r.properties[i].engine.empty() ? "explicit" : r.properties[i].engine},
         {"proof", proof_json(r.properties[i])}});
  j["properties"] = props;
  j["fairness"] = r.assumptions;
  j["reductions"] = r.reductions;
  j["engines"] = r.engines;
  j["inductionCounterexample"] = r.induction_counterexample.empty()
                                     ? nlohmann::json(nullptr)
                                     : nlohmann::json(r.induction_counterexample);
  // An Incomplete search's proof so far and what to try (null otherwise).
  j["proven"] = nullptr;
  j["suggestions"] = nullptr;
  if (r.verdict == checker::Verdict::Incomplete) {
    const auto p = proven_of(r);
    if (r.explored_depth >= 0)
      j["proven"] = {
          {"depth", r.explored_depth}, {"holdWithinDepth", p.within}, {"undecided", p.undecided}};
    j["suggestions"] = suggestions(o);
  }
  j["trace"] = o.trace ? cx::to_itf(*o.trace, o.token_dir(), o.token) : nlohmann::json(nullptr);
  j["shrink"] = nlohmann::json(nullptr);
  if (o.shrink)
    j["shrink"] = {{"stepsBefore", o.shrink->steps_before},
                   {"stepsAfter", o.shrink->steps_after},
                   {"droppedActions", o.shrink->dropped_actions},
                   {"changedPicks", o.shrink->changed_picks},
                   {"droppedJobs", o.shrink->dropped_jobs},
                   {"droppedWorkers", o.shrink->dropped_workers},
                   {"replays", o.shrink->replays},
                   {"rechecks", o.shrink->rechecks},
                   {"seconds", o.shrink->seconds},
                   {"scenario",
                    o.replay_dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.replay_dir)}};
  j["replay"] = o.token.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.token);
  const auto& s = r.stats;
  j["stats"] = {{"states", s.states},
                {"transitions", s.transitions},
                {"depth", s.depth},
                {"seconds", s.seconds},
                {"statesPerSecond", s.states_per_s},
                {"bytesPerState", s.bytes_per_state},
                {"peakRssBytes", s.peak_rss_bytes},
                {"collisionProbability", s.collision_probability},
                {"phaseSeconds",
                 {{"expand", s.phases.expand},
                  {"insert", s.phases.insert},
                  {"number", s.phases.number},
                  {"record", s.phases.record},
                  {"graph", s.phases.graph},
                  {"analyses", s.phases.analyses}}}};
  // With --replay-engine: Reproduced or Diverged beside the verdict, the replay itself below.
  j["why"] = o.why;  // a "sometimes" property never witnessed: what stops the jobs, per cluster
  j["engineVerdict"] = nlohmann::json(nullptr);
  if (o.engine) {
    j["engineVerdict"] = o.engine->reproduced ? "Reproduced" : "Diverged";
    j["engineReplay"] = o.engine->json;
  }
  nlohmann::json warnings = nlohmann::json::array();
  for (const auto& line : model::review_warnings(o.warnings, false)) warnings.push_back(line);
  j["warnings"] = warnings;
  return j;
}

}  // namespace kmc::cli
