// An ITF counterexample as a sequence diagram (render.hpp): the trace is
// read and checked, turned into lanes and lines, then printed as Mermaid or
// as a numbered list for a terminal. The mapping from actions to arrows
// follows protocols/multikueue_rules_actions.hpp, but only through the
// trace's words: render stays usable on a trace whose scenario is gone.
#include "counterexamples/render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "counterexamples/diagram.hpp"
#include "model/diagnostics.hpp"

namespace kmc::cx {

namespace {

[[noreturn]] void bad(const std::string& file, const std::string& field,
                      const std::string& message) {
  throw model::InputError(model::Diagnostic{{file, 0}, field, message});
}

// ---------------------------------------------------------------- the trace

using Vars = std::map<std::string, std::string>;

struct ItfState {
  std::string kind;
  Vars picks;
  Vars vars;
};

struct ItfDoc {
  std::string file;
  std::vector<std::string> order;  // variable names as "vars" lists them: JSON objects forget order
  std::vector<ItfState> steps;
  std::optional<std::size_t> loop;
  std::string property, detail, source, replay;
};

// kmc writes every variable as a string; other ITF writers use numbers or
// {"#bigint": ...}, which read well enough as their JSON text.
std::string text_of(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

ItfState read_step(const nlohmann::json& st, std::size_t i, const std::string& file) {
  const std::string at = fmt::format("states[{}]", i);
  if (!st.is_object()) bad(file, at, "expected an object of state variables");
  ItfState s;
  if (!st.contains("mbt::actionTaken") || !st["mbt::actionTaken"].is_string())
    bad(file, at + ".mbt::actionTaken",
        "missing or not a string: a diagram needs each step's action");
  s.kind = st["mbt::actionTaken"].get<std::string>();
  if (st.contains("mbt::nondetPicks")) {
    const auto& picks = st["mbt::nondetPicks"];
    if (!picks.is_object())
      bad(file, at + ".mbt::nondetPicks",
          "expected an object such as {\"job\": ..., \"cluster\": ...}");
    for (const auto& [k, v] : picks.items()) {
      if (!v.is_string())
        bad(file, fmt::format("{}.mbt::nondetPicks.{}", at, k), "expected a string");
      s.picks[k] = v.get<std::string>();
    }
  }
  for (const auto& [k, v] : st.items())
    if (k != "#meta" && k.rfind("mbt::", 0) != 0) s.vars[k] = text_of(v);
  return s;
}

void read_meta(const nlohmann::json& doc, ItfDoc& t) {
  if (!doc.contains("#meta")) return;
  const auto& meta = doc["#meta"];
  if (!meta.is_object()) bad(t.file, "#meta", "expected an object");
  auto get = [&](const char* key, std::string& out) {
    if (!meta.contains(key)) return;
    if (!meta[key].is_string()) bad(t.file, fmt::format("#meta.{}", key), "expected a string");
    out = meta[key].get<std::string>();
  };
  get("property", t.property);
  get("detail", t.detail);
  get("source", t.source);
  get("replay", t.replay);
}

ItfDoc read_trace(const nlohmann::json& doc, const std::string& file) {
  if (!doc.is_object() || !doc.contains("states"))
    bad(file, "states", "not an ITF trace: expected a JSON object with a \"states\" array");
  const auto& states = doc["states"];
  if (!states.is_array() || states.empty())
    bad(file, "states", "expected a non-empty array of states");
  ItfDoc t;
  t.file = file;
  for (std::size_t i = 0; i < states.size(); ++i) t.steps.push_back(read_step(states[i], i, file));
  if (doc.contains("vars")) {
    if (!doc["vars"].is_array()) bad(file, "vars", "expected an array of variable names");
    for (std::size_t i = 0; i < doc["vars"].size(); ++i) {
      if (!doc["vars"][i].is_string()) bad(file, fmt::format("vars[{}]", i), "expected a string");
      t.order.push_back(doc["vars"][i].get<std::string>());
    }
  } else {
    for (const auto& [k, v] : t.steps.front().vars) t.order.push_back(k);
  }
  if (doc.contains("loop")) {
    const auto& l = doc["loop"];
    if (!l.is_number_unsigned() || l.get<std::size_t>() >= t.steps.size())
      bad(file, "loop", fmt::format("expected the index of a state, 0 to {}", t.steps.size() - 1));
    t.loop = l.get<std::size_t>();
  }
  read_meta(doc, t);
  return t;
}

// ------------------------------------------------------- lanes and lines

// Who is in the trace: jobs from "JOB @manager", workers from "JOB @WORKER",
// in the order the trace lists its variables (the scenario's order).
struct Fleet {
  std::vector<std::string> jobs, workers;
  bool snapshot = false;  // a CapacitySnapshot dispatcher: the manager keeps a view of capacity
};

Fleet fleet_of(const ItfDoc& t) {
  Fleet f;
  for (const auto& name : t.order) {
    const auto at = name.rfind(" @");
    if (name.rfind("snapshot ", 0) == 0) f.snapshot = true;
    if (at == std::string::npos || name.find(' ', at + 2) != std::string::npos) continue;
    const std::string job = name.substr(0, at), where = name.substr(at + 2);
    auto& list = where == "manager" ? f.jobs : f.workers;
    const std::string& item = where == "manager" ? job : where;
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  }
  for (const auto& s : t.steps)
    if (s.kind == "NominateWorker" || s.kind == "RefreshSnapshot") f.snapshot = true;
  if (f.workers.empty())
    bad(t.file, "vars", "no worker: expected state variables named \"JOB @WORKER\"");
  return f;
}

std::vector<Lane> lanes_of(const Fleet& f) {
  // The snapshot sits between the manager and the workers: the manager
  // reads it, the workers' refreshes write it. Each autoscaler sits next to
  // the worker whose ProvisioningRequests it answers.
  std::vector<Lane> lanes{{"user", "user"}, {"manager", "manager"}};
  if (f.snapshot) lanes.push_back({"snapshot", "capacity snapshot"});
  for (std::size_t w = 0; w < f.workers.size(); ++w) {
    lanes.push_back({fmt::format("w{}", w + 1), "worker " + f.workers[w]});
    lanes.push_back({fmt::format("a{}", w + 1), "autoscaler " + f.workers[w]});
  }
  return lanes;
}

// One step of the trace, with what its line needs to know.
struct StepView {
  const ItfDoc& t;
  const Fleet& fleet;
  std::size_t i;

  const Vars& before() const { return t.steps[i - 1].vars; }
  const Vars& after() const { return t.steps[i].vars; }
  std::string pick(const std::string& key) const {
    auto it = t.steps[i].picks.find(key);
    if (it == t.steps[i].picks.end())
      bad(t.file, fmt::format("states[{}].mbt::nondetPicks.{}", i, key),
          fmt::format("missing: {} names a {}", t.steps[i].kind, key));
    return it->second;
  }
  std::string job() const { return pick("job"); }
  std::string worker() const { return pick("cluster"); }
  // The lanes of the picked worker and of its autoscaler.
  std::string worker_lane() const { return fmt::format("w{}", worker_index() + 1); }
  std::string autoscaler_lane() const { return fmt::format("a{}", worker_index() + 1); }
  std::size_t worker_index() const {
    const std::string w = worker();
    auto it = std::find(fleet.workers.begin(), fleet.workers.end(), w);
    if (it == fleet.workers.end())
      bad(t.file, fmt::format("states[{}].mbt::nondetPicks.cluster", i),
          fmt::format("names {}, which no state variable \"JOB @{}\" mentions", w, w));
    return static_cast<std::size_t>(it - fleet.workers.begin());
  }
};

std::string var(const Vars& v, const std::string& name) {
  auto it = v.find(name);
  return it == v.end() ? "" : it->second;
}

// The remote Workload's phase on a worker: "QuotaReserved" of
// "QuotaReserved, ProvisioningRequest Accepted, nominated" ("-": no copy).
std::string remote_phase(const Vars& v, const std::string& job, const std::string& worker) {
  const std::string text = var(v, job + " @" + worker);
  return text.substr(0, text.find(','));
}

bool is_nominated(const Vars& v, const std::string& job, const std::string& worker) {
  return var(v, job + " @" + worker).find("nominated") != std::string::npos;
}

// Where quota moved on a cluster: "gpu-cq (h100)", from the usage variables
// ("usage CLUSTER/CQ FLAVOR RESOURCE") that changed in this step.
std::string quota_moved(const StepView& s, const std::string& cluster) {
  const std::string prefix = "usage " + cluster + "/";
  std::vector<std::string> where;
  for (const auto& [name, value] : s.after()) {
    if (name.rfind(prefix, 0) != 0 || var(s.before(), name) == value) continue;
    const std::string rest = name.substr(prefix.size());
    const auto space = rest.find(' ');
    const std::string cq = rest.substr(0, space);
    const std::string flavor = space == std::string::npos
                                   ? ""
                                   : rest.substr(space + 1, rest.find(' ', space + 1) - space - 1);
    const std::string item = flavor.empty() ? cq : fmt::format("{} ({})", cq, flavor);
    if (std::find(where.begin(), where.end(), item) == where.end()) where.push_back(item);
  }
  return where.empty() ? "" : fmt::format(" on {}", fmt::join(where, ", "));
}

// Variables "PREFIX REST" that changed in this step: "REST OLD to NEW".
std::string changes(const StepView& s, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& [name, value] : s.after())
    if (name.rfind(prefix, 0) == 0 && var(s.before(), name) != value)
      out.push_back(
          fmt::format("{} {} to {}", name.substr(prefix.size()), var(s.before(), name), value));
  return fmt::format("{}", fmt::join(out, ", "));
}

// Where the manager's view of a worker differs from its free capacity.
std::string stale_view(const Vars& v, const std::string& worker) {
  const std::string prefix = "snapshot " + worker + " ";
  std::vector<std::string> out;
  for (const auto& [name, value] : v) {
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    const std::string free = var(v, "free " + worker + " " + rest);
    if (!free.empty() && free != value)
      out.push_back(fmt::format("{} {} is {} in the view, {} free", worker, rest, value, free));
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

// ------------------------------------------------- actions become lines

// What became of the other copies when a worker was selected: Kueue deletes
// them; a broken variant keeps them, and the trace shows which.
std::string losers(const StepView& s) {
  const std::string j = s.job(), w = s.worker();
  std::vector<std::string> deleted, kept;
  for (const auto& o : s.fleet.workers) {
    if (o == w || remote_phase(s.before(), j, o) == "-") continue;
    (remote_phase(s.after(), j, o) == "-" ? deleted : kept).push_back(o);
  }
  std::string out;
  if (!deleted.empty()) out += fmt::format(", deletes the copies on {}", fmt::join(deleted, ", "));
  if (!kept.empty()) out += fmt::format(", keeps the copies on {}", fmt::join(kept, ", "));
  return out;
}

void draw_dispatch(const StepView& s, const std::string& kind, std::vector<Line>& out) {
  const std::string j = s.job();
  auto newly_nominated = [&] {
    std::vector<std::string> ws;
    for (const auto& w : s.fleet.workers)
      if (is_nominated(s.after(), j, w) && !is_nominated(s.before(), j, w)) ws.push_back(w);
    return fmt::format("{}", fmt::join(ws, ", "));
  };
  if (kind == "ReserveQuota") {
    out.push_back({s.i, "manager", "manager",
                   fmt::format("reserve quota for {}{}", j, quota_moved(s, "manager"))});
  } else if (kind == "Nominate") {
    out.push_back({s.i, "manager", "manager",
                   fmt::format("dispatcher nominates {} for {}", newly_nominated(), j)});
  } else if (kind == "NominateNextRound") {
    out.push_back({s.i, "manager", "manager",
                   fmt::format("next dispatch round nominates {} for {}", newly_nominated(), j)});
  } else if (kind == "NominateWorker") {
    const std::string w = s.worker();
    s.worker_index();  // the pick must name a lane
    out.push_back({s.i, "snapshot", "manager",
                   fmt::format("view shows room on {}: nominate it for {}", w, j)});
    const std::string stale = stale_view(s.before(), w);
    if (!stale.empty()) out.push_back({s.i, "snapshot", "", "stale: " + stale});
  } else if (kind == "Renominate") {
    std::vector<std::string> dropped;
    for (const auto& w : s.fleet.workers)
      if (is_nominated(s.before(), j, w) && !is_nominated(s.after(), j, w)) dropped.push_back(w);
    out.push_back({s.i, "manager", "manager",
                   fmt::format("drop the rejected copies of {} ({}) and nominate again", j,
                               fmt::join(dropped, ", "))});
  } else if (kind == "CreateRemoteWorkload") {
    out.push_back({s.i, "manager", s.worker_lane(), fmt::format("create remote Workload {}", j)});
  } else if (kind == "SelectWorker") {
    const std::string w = s.worker();
    out.push_back({s.i, s.worker_lane(), "manager",
                   fmt::format("copy of {} is {}: MultiKueue selects {}{}", j,
                               remote_phase(s.before(), j, w), w, losers(s))});
  } else {  // RetryDispatch
    out.push_back(
        {s.i, "manager", "manager",
         fmt::format(
             "copy of {} on {} is gone: MultiKueue check Retry, evict, release quota, requeue", j,
             s.worker())});
  }
}

// After a failed or timed-out ProvisioningRequest: retried, or rejected
// once the check's backoff limit is reached.
std::string after_failure(const StepView& s) {
  return remote_phase(s.after(), s.job(), s.worker()) == "Rejected"
             ? "check Rejected (backoff limit reached)"
             : "quota released, check Retry, requeued";
}

void draw_worker(const StepView& s, const std::string& kind, std::vector<Line>& out) {
  const std::string j = s.job(), w = s.worker(), wl = s.worker_lane(), al = s.autoscaler_lane();
  if (kind == "ReserveQuotaOnWorker") {
    const std::string quota = fmt::format("reserve quota for {}{}", j, quota_moved(s, w));
    if (var(s.after(), j + " @" + w).find("ProvisioningRequest") != std::string::npos) {
      out.push_back({s.i, wl, wl, quota});
      out.push_back({s.i, wl, al, fmt::format("create ProvisioningRequest for {}", j)});
    } else {
      out.push_back({s.i, wl, wl, quota + ": Admitted (no admission checks)"});
    }
  } else if (kind == "ProvisioningAccepted") {
    out.push_back(
        {s.i, al, wl, fmt::format("ProvisioningRequest for {} Accepted (no capacity yet)", j)});
  } else if (kind == "ProvisioningProvisioned") {
    out.push_back(
        {s.i, al, wl,
         fmt::format("ProvisioningRequest for {} Provisioned: nodes booked, Workload Admitted",
                     j)});
  } else if (kind == "ProvisioningFailed") {
    out.push_back(
        {s.i, al, wl, fmt::format("ProvisioningRequest for {} Failed: {}", j, after_failure(s))});
  } else if (kind == "ProvisioningTimeout") {
    out.push_back({s.i, wl, wl,
                   fmt::format("ProvisioningRequest for {} timed out, counted as Failed: {}", j,
                               after_failure(s))});
  } else {  // JobStarted
    out.push_back({s.i, wl, wl, fmt::format("pods of {} start running", j)});
  }
}

void draw_environment(const StepView& s, const std::string& kind, std::vector<Line>& out) {
  const std::string w = s.worker(), wl = s.worker_lane();
  if (kind == "JobFinished") {
    out.push_back({s.i, wl, "manager",
                   fmt::format("{} finished: quota released on {} and the manager", s.job(), w)});
  } else if (kind == "SpotReclaim") {
    out.push_back(
        {s.i, wl, "",
         fmt::format("spot reclaim: the nodes of {} are gone, its copy is evicted and requeued",
                     s.job())});
  } else if (kind == "CapacityLost") {
    const std::string flavor = s.pick("flavor");
    const std::string lost = changes(s, "free " + w + " " + flavor + " ");
    out.push_back({s.i, wl, "",
                   fmt::format("capacity lost: the idle {} nodes are gone{}", flavor,
                               lost.empty() ? "" : ", free " + lost)});
  } else {  // RefreshSnapshot
    const std::string seen = changes(s, "snapshot " + w + " ");
    out.push_back(
        {s.i, wl, "snapshot",
         fmt::format("refresh the view of {}: {}", w, seen.empty() ? "unchanged" : seen)});
  }
}

void draw_step(const StepView& s, std::vector<Line>& out) {
  static const std::map<std::string,
                        void (*)(const StepView&, const std::string&, std::vector<Line>&)>
      by_kind = {
          {"ReserveQuota", draw_dispatch},
          {"Nominate", draw_dispatch},
          {"NominateNextRound", draw_dispatch},
          {"NominateWorker", draw_dispatch},
          {"Renominate", draw_dispatch},
          {"CreateRemoteWorkload", draw_dispatch},
          {"SelectWorker", draw_dispatch},
          {"RetryDispatch", draw_dispatch},
          {"ReserveQuotaOnWorker", draw_worker},
          {"ProvisioningAccepted", draw_worker},
          {"ProvisioningProvisioned", draw_worker},
          {"ProvisioningFailed", draw_worker},
          {"ProvisioningTimeout", draw_worker},
          {"JobStarted", draw_worker},
          {"JobFinished", draw_environment},
          {"SpotReclaim", draw_environment},
          {"CapacityLost", draw_environment},
          {"RefreshSnapshot", draw_environment},
      };
  const std::string& kind = s.t.steps[s.i].kind;
  auto it = by_kind.find(kind);
  if (it == by_kind.end())
    bad(s.t.file, fmt::format("states[{}].mbt::actionTaken", s.i),
        fmt::format(
            "unknown action {}: kmc renders MultiKueue actions (ReserveQuota, NominateWorker, ...)",
            kind));
  it->second(s, kind, out);
}

Diagram make_diagram(const ItfDoc& t) {
  const Fleet fleet = fleet_of(t);
  Diagram d;
  d.lanes = lanes_of(fleet);
  d.loop = t.loop;
  d.title = t.property.empty() ? "a trace" : t.property;
  if (!t.source.empty()) d.title += " in " + t.source;
  for (const auto& job : fleet.jobs)
    d.lines.push_back(
        {0, "user", "manager",
         fmt::format("submit Job {} (Workload {})", job, var(t.steps[0].vars, job + " @manager"))});
  for (std::size_t i = 1; i < t.steps.size(); ++i) draw_step(StepView{t, fleet, i}, d.lines);
  d.closing = t.property.empty() ? "end of the trace" : fmt::format("{} is violated", t.property);
  if (!t.detail.empty()) d.closing += ": " + t.detail;
  if (t.loop && *t.loop + 1 >= t.steps.size())
    d.closing += fmt::format(" (state {} repeats forever)", *t.loop);
  if (!t.replay.empty())
    d.replay =
        t.source.empty() ? t.replay : fmt::format("kmc check {} --replay {}", t.source, t.replay);
  return d;
}

}  // namespace

std::optional<RenderFormat> parse_render_format(std::string_view name) {
  if (name == "mermaid") return RenderFormat::Mermaid;
  if (name == "text") return RenderFormat::Text;
  return std::nullopt;
}

std::string render_trace(const nlohmann::json& itf, RenderFormat format, const std::string& file) {
  const Diagram d = make_diagram(read_trace(itf, file));
  return format == RenderFormat::Mermaid ? print_mermaid(d) : print_text(d);
}

}  // namespace kmc::cx
