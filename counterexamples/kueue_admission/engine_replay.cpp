// Replay of a kueue-admission trace in the engine: each step driven by
// apply_step (engine_replay_step.cpp), the engine's cells compared with the
// trace's after it, the property decided on the engine's objects at the end
// (engine_replay_properties.cpp); a lasso's prefix and two turns of its loop.
#include "counterexamples/kueue_admission/engine_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>

#include "counterexamples/itf.hpp"
#include "counterexamples/kueue_admission/engine_replay_internal.hpp"

namespace kmc::cx {

namespace {

using admission::ReplayStep;
using admission::ReplayTrace;

void diverge(EngineReplay& r, const ReplayStep& s, const std::string& did,
             std::vector<std::string> diff) {
  r.verdict = EngineReplay::Verdict::Diverged;
  r.step = s.index;
  r.action = s.name;
  r.engine_did = did;
  r.difference = std::move(diff);
}

// Replays steps [from, to); false (and a Diverged result) at the first
// disagreement. `each` sees the engine after every step that agreed.
bool follow(engine::Engine& e, const protocols::ka::AdmissionParams& p,
            const model::ClusterManifests& m, const ReplayTrace& t, std::size_t from,
            std::size_t to, EngineReplay& r,
            const std::function<void(const ReplayStep&, const engine::Engine&)>& each = {}) {
  for (std::size_t i = from; i < to; ++i) {
    const ReplayStep& s = t.steps[i];
    const admission::Outcome o =
        admission::apply_step(e, p, m, s.kind, s.workload, s.check, s.cluster_queue);
    auto diff = admission::cell_differences(e, s.cells);
    if (!o.ok || !diff.empty()) {
      diverge(r, s, o.did, std::move(diff));
      return false;
    }
    r.steps.push_back({s.index, s.name, o.did});
    if (each) each(s, e);
  }
  return true;
}

// The liveness properties ask whether their subject is within its guarantee
// somewhere (their premise), which the engine answers on its own.
bool has_premise(const std::string& property) {
  return property == "guarantee-eventually-admitted" || property == "no-preemption-livelock";
}

// Records the first step after which the engine finds `subject` within its guarantee.
std::function<void(const ReplayStep&, const engine::Engine&)> premise_of(
    const std::string& subject, std::optional<std::size_t>& premise) {
  return [&premise, subject](const ReplayStep& s, const engine::Engine& e) {
    if (!premise && admission::guaranteed_in_engine(e, subject)) premise = s.index;
  };
}

// A lasso: the prefix up to the loop's start, then the loop twice. Every step
// is compared, so the engine's cells at the loop's start come back after each
// turn (the trace's last state is its loop state); the property's own
// question is asked of each turn: the subject never gets quota, and for
// no-preemption-livelock the engine evicts a workload in every turn.
void replay_lasso(engine::Engine& e, const protocols::ka::AdmissionParams& p,
                  const model::ClusterManifests& m, const ReplayTrace& t, EngineReplay& r) {
  const std::size_t loop = *t.meta.loop, n = t.steps.size();
  const std::string subject = p.workloads[t.meta.subject].name;
  std::optional<std::size_t> premise;
  const auto guaranteed = premise_of(subject, premise);
  guaranteed(t.steps.front(), e);
  if (!follow(e, p, m, t, 1, loop + 1, r, guaranteed)) return;
  for (int turn = 1; turn <= 2; ++turn) {
    bool admitted = false;
    int evictions = 0;
    std::map<std::string, std::string> was;
    for (const auto& w : p.workloads) was[w.name] = admission::engine_phase(e, w.name);
    auto watch = [&](const ReplayStep& s, const engine::Engine& now) {
      guaranteed(s, now);
      const std::string phase = admission::engine_phase(now, subject);
      admitted = admitted || phase == "Admitted" || phase == "Finished";
      for (auto& [key, before] : was) {
        const std::string after = admission::engine_phase(now, key);
        evictions += before == "Admitted" && after != "Admitted" && after != "Finished";
        before = after;
      }
    };
    if (!follow(e, p, m, t, loop + 1, n, r, watch)) return;
    std::vector<std::string> diff;
    if (admitted) diff.push_back(fmt::format("{} gets quota in the engine", subject));
    if (turn == 2 && has_premise(t.meta.property) && !premise)
      diff.push_back(fmt::format("{} is never within its guarantee in the engine", subject));
    if (t.meta.property == "no-preemption-livelock" && evictions == 0)
      diff.push_back("the engine preempted no workload in this turn");
    if (!diff.empty()) {
      diverge(r, t.steps[n - 1],
              fmt::format("turn {} of the loop does not show the property's behaviour", turn),
              std::move(diff));
      return;
    }
    r.lasso_retries = evictions;
  }
  r.verdict = EngineReplay::Verdict::Reproduced;
  r.property_check = fmt::format(
      "the engine's cells at the loop's start (state {}) repeat after two turns of the loop, "
      "and {} never gets quota, though the engine finds it within its guarantee after step {}",
      loop, subject, *premise);
  if (t.meta.property == "no-preemption-livelock")
    r.property_check +=
        fmt::format("; the engine preempted {} workload(s) in each turn", r.lasso_retries);
}

}  // namespace

EngineReplay replay_in_engine(const model::Scenario& sc, const protocols::ka::AdmissionParams& p,
                              const ItfDocument& itf) {
  const auto t0 = std::chrono::steady_clock::now();
  const ReplayTrace t = admission::read_trace(itf, p);
  EngineReplay r;
  r.property = t.meta.property;
  engine::Engine e = admission::make_engine(sc, p);
  auto done = [&] {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  };
  if (auto diff = admission::cell_differences(e, t.steps.front().cells); !diff.empty()) {
    diverge(r, t.steps.front(), "the engine loaded the scenario's manifests", std::move(diff));
    return done();
  }
  // A property of kmc.yaml's own reads cells only, and follow() compares every cell the engine
  // keeps after every step: followed to the end, the engine's state is the trace's last one.
  const auto own = std::find_if(p.user_properties.begin(), p.user_properties.end(),
                                [&](const auto& u) { return u.name == t.meta.property; });
  const bool own_always =
      own != p.user_properties.end() && own->kind == model::UserPropertySpec::Kind::Always;
  if (!own_always && !admission::engine_decides(t.meta.property)) {
    diverge(r, t.steps.back(), "kmc has no engine predicate for " + t.meta.property, {});
    r.action = "(end of trace)";
    return done();
  }
  if (t.meta.loop && *t.meta.loop + 1 < t.steps.size()) {
    r.lasso = true;
    replay_lasso(e, p, sc.manager, t, r);
    return done();
  }
  std::optional<std::size_t> premise;
  std::function<void(const ReplayStep&, const engine::Engine&)> each;
  if (has_premise(t.meta.property)) {
    each = premise_of(p.workloads[t.meta.subject].name, premise);
    each(t.steps.front(), e);
  }
  if (!follow(e, p, sc.manager, t, 1, t.steps.size(), r, each)) return done();
  if (own_always) {
    r.verdict = EngineReplay::Verdict::Reproduced;
    r.property_check = fmt::format(
        "every cell the engine keeps equals the trace's last state (the others, such as queue "
        "ranks and budgets, are the trace's), where \"{}\" is false",
        own->holds.text);
    return done();
  }
  const auto check = admission::property_in_engine(
      t.meta.property, e, p, admission::environment_of(sc, p), t.meta.subject, premise);
  if (check.decided && check.violated) {
    r.verdict = EngineReplay::Verdict::Reproduced;
    r.property_check = check.why;
  } else {
    diverge(r, t.steps.back(),
            "the engine followed every step, but in its own state the property holds: " + check.why,
            {});
    r.action = "(end of trace)";
  }
  return done();
}

EngineReplay replay_in_engine(const model::Scenario& sc, const protocols::ka::AdmissionParams& p,
                              const Trace& trace, const std::string& replay_token) {
  return replay_in_engine(sc, p, itf_in_memory("<kmc check>", to_itf(trace, "", replay_token)));
}

}  // namespace kmc::cx
