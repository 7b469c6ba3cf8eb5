// Replay of a MultiKueue trace in the engine: the steps followed one by one
// (replayer.hpp turns each into what the engine sees or does), the cells of
// the job each step touched compared with the trace's, and the verdict: the
// property decided in the engine's own state at the end, or, for a lasso,
// the engine going round the same loop.
#include "counterexamples/multikueue/engine_replay.hpp"

#include <fmt/format.h>

#include <chrono>
#include <tuple>

#include "counterexamples/itf.hpp"
#include "counterexamples/multikueue/engine_compare.hpp"
#include "counterexamples/multikueue/engine_view.hpp"
#include "counterexamples/multikueue/itf_read.hpp"
#include "counterexamples/multikueue/replayer.hpp"
#include "counterexamples/token.hpp"
#include "model/diagnostics.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

namespace {

using mk::Outcome;
using mk::Replayer;

std::string step_name(const ItfStep& s, const protocols::MkParams& p) {
  std::vector<std::string> args;
  if (s.job >= 0) args.push_back(p.jobs[s.job]);
  if (s.worker >= 0) args.push_back(p.workers[s.worker]);
  if (!s.flavor.empty()) args.push_back(s.flavor);
  return fmt::format("{}({})", protocols::action_kind_name(s.kind), fmt::join(args, ", "));
}

void diverge(EngineReplay& r, const ItfStep& s, const protocols::MkParams& p, const Outcome& o,
             std::vector<std::string> diff) {
  r.verdict = EngineReplay::Verdict::Diverged;
  r.step = s.index;
  r.action = step_name(s, p);
  r.engine_did = o.did;
  r.difference = std::move(diff);
}

// Replays steps [from, to); false (and a Diverged result) at the first disagreement.
bool follow(Replayer& rp, const ItfTrace& t, std::size_t from, std::size_t to,
            const protocols::MkParams& p, EngineReplay& r) {
  for (std::size_t i = from; i < to; ++i) {
    const ItfStep& s = t.steps[i];
    const Outcome o = rp.apply(s);
    auto diff = cell_differences(s, rp.view(), touched_cells(s, p.W()));
    if (!o.ok || !diff.empty()) {
      diverge(r, s, p, o, std::move(diff));
      return false;
    }
    r.steps.push_back({s.index, step_name(s, p), o.did});
  }
  return true;
}

Environment environment_of(const ItfStep& last) {
  Environment env;
  for (const model::Cell& c : last.cells.all())
    if (c.field == "capacity") env.free[c.entity] = std::get<std::int64_t>(c.value);
  return env;
}

// A property of kmc.yaml's own reads the state's cells only. Those the engine keeps (every job's
// manager and copy cells, the flavors its reservations took, every ClusterQueue's usage) must all
// equal the trace's final ones; the others are the environment's (free capacity, the manager's
// snapshot, budgets), which replay takes from the trace. Then the state the expression reads is
// the engine's, and it fails there as in the trace. `moved` gets each cell that differs.
std::optional<std::string> user_property_in_engine(const model::UserPropertySpec& u,
                                                   const Replayer& rp, const ItfTrace& t,
                                                   std::vector<std::string>& moved) {
  const model::Cells& last = t.steps.back().cells;
  for (const auto& [key, value] : rp.view().projection()) {
    const model::CellValue* trace = last.find(key.field, key.entity);
    if (trace == nullptr) continue;  // a usage the model has no cell for: a flavor not covering it
    if (*trace != value)
      moved.push_back(fmt::format("{}: trace {}, engine {}", model::key_text(key.field, key.entity),
                                  model::to_string(*trace), model::to_string(value)));
  }
  if (!moved.empty()) return std::nullopt;
  return fmt::format(
      "every cell the engine keeps equals the trace's last state, where \"{}\" is false",
      u.holds.text);
}

// The property decided in the engine's state at the trace's end: a sentence when it is violated
// there. A stuck job (no-stuck-job, and a liveness behaviour that stops: a lasso with no loop
// steps) is stuck in the engine only where the engine, run to the end, leaves it where the trace
// does: `moved` gets each cell of the job that differs, and a job Kueue evicted and re-reserved
// meanwhile is no confirmation, however still it then sits (issue 12e).
std::optional<std::string> property_in_engine(const std::string& property, const Replayer& rp,
                                              const protocols::MkParams& p, const ItfTrace& t,
                                              std::vector<std::string>& moved) {
  for (const auto& u : p.user_properties)
    if (u.name == property && u.kind == model::UserPropertySpec::Kind::Always)
      return user_property_in_engine(u, rp, t, moved);
  if (property == "cluster-queue-within-quota") return engine_quota_exceeded(rp.fleet());
  if (property == "quota-counted-once") return engine_quota_counted_twice(rp.fleet());
  if (property == "no-job-on-two-workers") return engine_job_on_two_workers(rp.fleet(), p);
  engine::Fleet settled = rp.fleet();
  run_a_virtual_day(settled);
  auto stuck = engine_job_stuck(settled, p, environment_of(t.steps.back()), t.subject);
  if (stuck) moved = job_differences(t.steps.back(), FleetView(settled, p), t.subject, p.W());
  return stuck;
}

// The end of a trace that was followed step by step: Reproduced when the property is violated
// in the engine's own state, Diverged otherwise, with the first difference when the engine's job
// is not where the trace leaves it.
void decide_at_end(const Replayer& rp, const ItfTrace& t, const protocols::MkParams& p,
                   EngineReplay& r) {
  std::vector<std::string> moved;
  const auto why = property_in_engine(t.property, rp, p, t, moved);
  const bool own = std::any_of(p.user_properties.begin(), p.user_properties.end(),
                               [&](const auto& u) { return u.name == t.property; });
  if (why && moved.empty()) {
    r.verdict = EngineReplay::Verdict::Reproduced;
    r.property_check = *why;
    return;
  }
  r.verdict = EngineReplay::Verdict::Diverged;
  r.step = t.steps.back().index;
  r.action = "(end of trace)";
  r.engine_did =
      moved.empty() ? "the engine followed every step, but in its own state the property holds"
      : own         ? fmt::format(
                          "the engine followed every step, but its state differs from the "
                                  "trace's last one, which {} reads: {}",
                          t.property, moved.front())
            : fmt::format(
                  "after a virtual day of every controller and timer, the engine moved job {} from "
                  "where the trace leaves it stuck: {}",
                  p.jobs[t.subject], moved.front());
  r.difference = std::move(moved);
}

// What the engine holds for a job, to see it retry: each copy's identity,
// its check's retry count and whether it is active, and the manager's reservation.
struct RetryMarks {
  std::vector<std::tuple<std::int64_t, int, bool>> copies;  // uid (0: none), retries, active
  bool reserved = false;
};

RetryMarks retry_marks(const FleetView& v, const protocols::MkParams& p, int j) {
  RetryMarks m;
  for (int w = 0; w < p.W(); ++w) {
    const engine::WorkloadInfo* r = v.remote(j, w);
    int retries = 0;
    if (r != nullptr)
      for (const auto& s : r->obj.admission_checks) retries += s.retry_count;
    m.copies.emplace_back(r == nullptr ? 0 : r->uid, retries, r != nullptr && r->obj.active);
  }
  m.reserved = v.local(j) != nullptr && v.local(j)->has_quota_reservation();
  return m;
}

// The engine retried the job between two marks: a copy's check went round
// again, a copy was rejected or dropped while the job still waits, or the
// manager gave its reservation back to dispatch again (the model's retry step).
bool engine_retried(const RetryMarks& a, const RetryMarks& b) {
  if (a.reserved && !b.reserved) return true;
  for (std::size_t w = 0; w < a.copies.size(); ++w) {
    const auto [uid_a, n_a, active_a] = a.copies[w];
    const auto [uid_b, n_b, active_b] = b.copies[w];
    if (uid_a != 0 && uid_a == uid_b && (n_b > n_a || (active_a && !active_b))) return true;
    if (uid_a != 0 && uid_b == 0 && b.reserved) return true;
  }
  return false;
}

void replay_lasso(Replayer& rp, const ItfTrace& t, const protocols::MkParams& p, EngineReplay& r) {
  const std::size_t loop = *t.loop, n = t.steps.size();
  if (!follow(rp, t, 1, loop + 1, p, r)) return;
  const auto at_start = rp.view().projection();
  for (int turn = 1; turn <= 2; ++turn) {
    int retries = 0;
    for (std::size_t i = loop + 1; i < n; ++i) {
      const RetryMarks before = retry_marks(rp.view(), p, t.subject);
      if (!follow(rp, t, i, i + 1, p, r)) return;
      retries += engine_retried(before, retry_marks(rp.view(), p, t.subject)) ? 1 : 0;
    }
    const auto again = rp.view().projection();
    std::vector<std::string> diff;
    for (int w = 0; w < p.W(); ++w)
      if (rp.view().running(t.subject, w))
        diff.push_back(
            fmt::format("job {} runs on {} in the engine", p.jobs[t.subject], p.workers[w]));
    for (const auto& [k, v] : at_start)
      if (again.at(k) != v)
        diff.push_back(fmt::format("{}: at the loop's start {}, after turn {} {}",
                                   model::key_text(k.field, k.entity), model::to_string(v), turn,
                                   model::to_string(again.at(k))));
    if (t.property == "no-endless-retry" && retries == 0)
      diff.push_back("the engine did not retry the job in this turn");
    if (!diff.empty()) {
      diverge(r, t.steps[n - 1], p,
              {false,
               fmt::format("the engine's state at the loop's start does not repeat after turn {}",
                           turn)},
              std::move(diff));
      return;
    }
    r.lasso_retries = retries;
  }
  r.verdict = EngineReplay::Verdict::Reproduced;
  r.property_check = fmt::format(
      "the engine's state at the loop's start (state {}) repeats after two turns of the loop, "
      "and job {} never runs",
      loop, p.jobs[t.subject]);
  if (t.property == "no-endless-retry")
    r.property_check +=
        fmt::format("; the engine retried it {} times in each turn", r.lasso_retries);
}

}  // namespace

EngineReplay replay_in_engine(const model::Scenario& sc, const protocols::MkParams& p,
                              const ItfDocument& itf) {
  const auto t0 = std::chrono::steady_clock::now();
  const ItfTrace t = read_itf(itf, p);
  EngineReplay r;
  r.property = t.property;
  Replayer rp(sc, p);
  const bool cycles = t.loop && *t.loop + 1 < t.steps.size();
  if (cycles) {
    r.lasso = true;
    replay_lasso(rp, t, p, r);
  } else if (follow(rp, t, 1, t.steps.size(), p, r)) {
    decide_at_end(rp, t, p, r);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

EngineReplay replay_in_engine(const model::Scenario& sc, const protocols::MkParams& p,
                              const Trace& trace, const std::string& replay_token) {
  return replay_in_engine(sc, p, itf_in_memory("<kmc check>", to_itf(trace, "", replay_token)));
}

}  // namespace kmc::cx
